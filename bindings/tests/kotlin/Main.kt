// Entry point of the Kotlin suite without a test framework:
// java ... acdtest.MainKt <tests/vectors dir>
package acdtest

import java.io.File
import kotlin.system.exitProcess

/** Every registered test of the Kotlin suite, vectors from `vectors`. */
fun allTests(vectors: File): Runner {
    val runner = Runner()
    registerGateVectors(runner, vectors)
    registerClientVectors(runner, vectors)
    registerGateApiTests(runner)
    registerClientWithGateTests(runner)
    registerClientApiTests(runner)
    registerPollerTests(runner)
    registerBoundaryTests(runner)
    return runner
}

fun main(args: Array<String>) {
    val (summary, failed) = allTests(File(args.getOrElse(0) { "tests/vectors" })).runAll()
    println(summary)
    exitProcess(if (failed == 0) 0 else 1)
}
