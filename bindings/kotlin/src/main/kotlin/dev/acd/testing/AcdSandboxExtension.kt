// The JUnit 5 extension: `@ExtendWith(AcdSandboxExtension::class)`, then a
// test (or a @BeforeAll/@BeforeEach method) that takes an AcdSandbox
// parameter gets a real acd-sandbox, stopped when that test (or the class)
// is done. @AcdSandboxOptions on the test or its class chooses the data,
// flags and clock.
package dev.acd.testing

import org.junit.jupiter.api.extension.ExtensionContext
import org.junit.jupiter.api.extension.ParameterContext
import org.junit.jupiter.api.extension.ParameterResolver

/** What the sandbox of [AcdSandboxExtension] serves: [config] (JSON text; empty: the demo data), extra [args], the [clock]. */
@Target(AnnotationTarget.CLASS, AnnotationTarget.FUNCTION)
@Retention(AnnotationRetention.RUNTIME)
annotation class AcdSandboxOptions(
    /** The configuration's JSON text (empty: the built-in demo data). */ val config: String = "",
    /** Extra flags, e.g. `--faults`. */ val args: Array<String> = [],
    /** `manual` (default) or `system`. */ val clock: String = "manual",
)

/** Resolves [AcdSandbox] parameters: one sandbox per test (per class for a `@BeforeAll` method), stopped after it. */
class AcdSandboxExtension : ParameterResolver {
    /** Whether the parameter is an [AcdSandbox]. */
    override fun supportsParameter(parameter: ParameterContext, context: ExtensionContext): Boolean = parameter.parameter.type == AcdSandbox::class.java

    /** The sandbox of this test (or class), started on first use. */
    override fun resolveParameter(parameter: ParameterContext, context: ExtensionContext): Any {
        val options =
            context.testMethod.map { it.getAnnotation(AcdSandboxOptions::class.java) }.orElse(null)
                ?: context.testClass.map { it.getAnnotation(AcdSandboxOptions::class.java) }.orElse(null)
        val store = context.getStore(ExtensionContext.Namespace.create(AcdSandboxExtension::class.java, context.uniqueId))
        val running =
            store.getOrComputeIfAbsent("sandbox", {
                Running(AcdSandbox.start(options?.config?.ifEmpty { null }, options?.args?.toList().orEmpty(), options?.clock ?: "manual"))
            }, Running::class.java)
        return running.sandbox
    }

    /** A sandbox the store closes when its test or class ends. */
    private class Running(val sandbox: AcdSandbox) : ExtensionContext.Store.CloseableResource {
        override fun close() = sandbox.close()
    }
}
