// Every test of the Kotlin suite, registered in one Runner (JUnit 5 runs them
// through AcdSuiteTest).
package acdtest

import java.io.File

/** Every registered test of the Kotlin suite, vectors from `vectors`. */
fun allTests(vectors: File): Runner {
    val runner = Runner()
    registerGateVectors(runner, vectors)
    registerGateApiTests(runner)
    registerBoundaryTests(runner)
    return runner
}
