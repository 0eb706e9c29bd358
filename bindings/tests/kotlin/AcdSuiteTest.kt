// JUnit 5 entry point of the Kotlin suite: every registered test (vectors,
// API, boundary, driver tests) as one dynamic test, vectors from the
// `acd.vectors` system property (set by the POM's Surefire configuration).
package acdtest

import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.TestFactory
import java.io.File

class AcdSuiteTest {
    /** One dynamic test per registered test, in registration order. */
    @TestFactory
    fun suite(): List<DynamicTest> {
        val vectors = File(System.getProperty("acd.vectors") ?: "tests/vectors")
        return allTests(vectors).tests.map { (name, body) -> DynamicTest.dynamicTest(name) { body() } }
    }
}
