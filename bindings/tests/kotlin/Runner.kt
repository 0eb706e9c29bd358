// A very small test runner: named tests, failures collected, one summary line
// (`kotlin: N passed, M failed`) that scripts/test-kotlin ends with.
package acdtest

class Runner {
    var passed = 0
        private set
    var failed = 0
        private set

    /** Runs one named test; a thrown exception (assertion or other) fails it. */
    fun test(name: String, body: () -> Unit) {
        try {
            body()
            passed++
        } catch (error: Throwable) {
            failed++
            println("FAIL $name: ${error::class.simpleName}: ${error.message}")
        }
    }

    fun summary(): String = "kotlin: $passed passed, $failed failed"
}
