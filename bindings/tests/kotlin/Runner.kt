// Named tests registered by the suites' `register...` functions, run by
// JUnit 5 as dynamic tests (AcdSuiteTest).
package acdtest

class Runner {
    /** The registered tests, in order: name and body. */
    val tests = mutableListOf<Pair<String, () -> Unit>>()

    /** Registers one named test; a thrown exception (assertion or other) fails it. */
    fun test(name: String, body: () -> Unit) {
        tests += name to body
    }
}
