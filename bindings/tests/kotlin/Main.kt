// Entry point of the Kotlin suite: java ... acdtest.MainKt <tests/vectors dir>
package acdtest

import java.io.File
import kotlin.system.exitProcess

fun main(args: Array<String>) {
    val vectors = File(args.getOrElse(0) { "tests/vectors" })
    val runner = Runner()
    registerGateVectors(runner, vectors)
    registerClientVectors(runner, vectors)
    registerGateApiTests(runner)
    registerClientWithGateTests(runner)
    registerClientApiTests(runner)
    registerPollerTests(runner)
    registerBoundaryTests(runner)
    println(runner.summary())
    exitProcess(if (runner.failed == 0) 0 else 1)
}
