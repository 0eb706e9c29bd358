// Named tests registered by the suites' `register...` functions: run by JUnit 5
// as dynamic tests (AcdSuiteTest), or in order by `runAll` with one summary
// line (`kotlin: N passed, M failed`).
package acdtest

class Runner {
    /** The registered tests, in order: name and body. */
    val tests = mutableListOf<Pair<String, () -> Unit>>()

    /** Registers one named test; a thrown exception (assertion or other) fails it. */
    fun test(name: String, body: () -> Unit) {
        tests += name to body
    }

    /** Runs every test in order; prints each failure and returns the summary line and failure count. */
    fun runAll(): Pair<String, Int> {
        var failed = 0
        for ((name, body) in tests) {
            try {
                body()
            } catch (error: Throwable) {
                failed++
                println("FAIL $name: ${error::class.simpleName}: ${error.message}")
            }
        }
        return "kotlin: ${tests.size - failed} passed, $failed failed" to failed
    }
}
