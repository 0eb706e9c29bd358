// The SDK conformance kit (tests/vectors/sdk-scenarios.json) through the
// public facades: AcdHttpClient's coroutines inside runTest (the test
// scheduler is the clock and every delay, so concurrent calls share virtual
// time), and api.java()'s futures on a VirtualClock (their scope is the
// client's own, so only scenarios whose steps hold one call are replayed
// there). Both send through the public `transport` hook to a scripted server
// (SdkScript) that plays each scenario's answers, delays and connection
// failures. A scenario in the kit's known_failures for the language is
// skipped naming its issue item, and fails once it passes.
@file:OptIn(ExperimentalCoroutinesApi::class)

package acdtest

import dev.acd.AcdException
import dev.acd.AcdHttpClient
import dev.acd.CallOptions
import dev.acd.RateLimitException
import dev.acd.RetryPolicy
import dev.acd.testing.VirtualClock
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.test.runTest
import kotlinx.serialization.json.Json as KJson
import kotlinx.serialization.json.JsonElement
import org.junit.jupiter.api.Assumptions.assumeTrue
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.TestFactory
import java.io.File
import java.util.concurrent.TimeUnit
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.milliseconds

private fun Any?.list(): List<Any?> = arr()

private val KIT: Map<String, Any?> by lazy {
    val vectors = File(System.getProperty("acd.vectors") ?: "tests/vectors")
    Json.parse(File(vectors, "sdk-scenarios.json").readText()).obj()
}

/** The kit's `client` member with the scenario's own on top. */
private fun settings(scenario: Map<String, Any?>): Map<String, Any?> =
    KIT["client"].obj() + ((scenario["client"] as? Map<String, Any?>) ?: emptyMap())

private fun options(call: Map<String, Any?>): CallOptions {
    val options = (call["options"] as? Map<String, Any?>) ?: emptyMap()
    return CallOptions(timeout = (options["timeout_ms"] as Long?)?.milliseconds, maxAttempts = (options["max_attempts"] as Long?)?.toInt())
}

private fun input(value: Any?): JsonElement = KJson.parseToJsonElement(toJsonText(value))

private fun client(scenario: Map<String, Any?>, transport: SdkScript, clock: () -> Long, delay: suspend (kotlin.time.Duration) -> Unit): AcdHttpClient {
    val s = settings(scenario)
    return AcdHttpClient(
        apiKey = s["api_key"] as String, baseUrl = s["base_url"] as String, seed = s["seed"] as Long,
        retry = RetryPolicy(backoffBase = (s["backoff_base_ms"] as Long).milliseconds, backoffCap = (s["backoff_cap_ms"] as Long).milliseconds),
        transport = transport, clock = clock, delay = delay,
    )
}

/** Calls the kit method of [call] on [api]'s coroutines; the result as plain JSON values. */
private suspend fun invoke(api: AcdHttpClient, call: Map<String, Any?>): Any? {
    val args = call["args"].obj()
    val o = options(call)
    val size = (args["page_size"] as Long?)?.toInt()
    return when (call["method"]) {
        "tables.read" -> plain(api.tables.read(args["table"] as String, size, timeout = o.timeout, maxAttempts = o.maxAttempts))
        "tables.pages" -> api.tables.pages(args["table"] as String, size, timeout = o.timeout, maxAttempts = o.maxAttempts).toList().map { plain(it.records) }
        "connections.read" -> plain(api.connections.read(args["connection"] as String, args["entity"] as String, size, timeout = o.timeout, maxAttempts = o.maxAttempts))
        "runs.create" -> plain(api.runs.create(args["agent_id"] as String, input(args["input"]), o.timeout, maxAttempts = o.maxAttempts))
        "runs.wait" -> plain(api.runs.wait(args["run_id"] as String))
        else -> error("unknown kit method ${call["method"]}")
    }
}

/** Calls the kit method of [call] through `api.java()`'s futures. */
private fun invokeJava(api: AcdHttpClient, call: Map<String, Any?>): Any? {
    val java = api.java()
    val args = call["args"].obj()
    val o = options(call)
    val size = (args["page_size"] as Long?)?.toInt()
    val future = when (call["method"]) {
        "tables.read" -> java.tables.read(args["table"] as String, size, null, o)
        "connections.read" -> java.connections.read(args["connection"] as String, args["entity"] as String, size, null, o)
        "runs.create" -> java.runs.create(args["agent_id"] as String, input(args["input"]), o)
        "runs.wait" -> java.runs.wait(args["run_id"] as String)
        "tables.pages" -> return java.tables.iter(args["table"] as String, size, options = o).map { plain(it) }
        else -> error("unknown kit method ${call["method"]}")
    }
    return try {
        plain(future.get(60, TimeUnit.SECONDS))
    } catch (failure: java.util.concurrent.ExecutionException) {
        throw failure.cause ?: failure
    }
}

private class Replay(val sent: List<SdkScript.Sent>, val outcomes: Map<String, SdkOutcome>)

private fun coroutineReplay(scenario: Map<String, Any?>): Replay {
    val outcomes = LinkedHashMap<String, SdkOutcome>()
    val start = scenario["start_ms"] as Long
    var sent: List<SdkScript.Sent> = emptyList()
    runTest {
        val now = { start + testScheduler.currentTime }
        val s = settings(scenario)
        val script = SdkScript(scenario, s["base_url"] as String, s["exchange_timeout_ms"] as Long, now) { delay(it) }
        sent = script.sent
        client(scenario, script, now, { delay(it) }).use { api ->
            for (step in scenario["steps"].list()) {
                val at = step.obj()["at"] as Long?
                if (at != null && at > now()) delay(at - now())
                coroutineScope {
                    step.obj()["calls"].list().map { call ->
                        async {
                            val outcome = SdkOutcome()
                            outcomes[call.obj()["id"] as String] = outcome
                            try {
                                outcome.value = invoke(api, call.obj())
                            } catch (error: AcdException) {
                                outcome.error = error
                            }
                            outcome.endsAt = now()
                        }
                    }.awaitAll()
                }
            }
        }
    }
    return Replay(sent, outcomes)
}

private fun javaReplay(scenario: Map<String, Any?>): Replay {
    val clock = VirtualClock(scenario["start_ms"] as Long)
    val s = settings(scenario)
    val script = SdkScript(scenario, s["base_url"] as String, s["exchange_timeout_ms"] as Long, clock::now) { clock.advance(it) }
    val outcomes = LinkedHashMap<String, SdkOutcome>()
    client(scenario, script, clock::now, clock::delay).use { api ->
        for (step in scenario["steps"].list()) {
            val at = step.obj()["at"] as Long?
            if (at != null && at > clock.now()) clock.advance(at - clock.now())
            val call = step.obj()["calls"].list().single().obj()
            val outcome = SdkOutcome()
            outcomes[call["id"] as String] = outcome
            try {
                outcome.value = invokeJava(api, call)
            } catch (error: AcdException) {
                outcome.error = error
            }
            outcome.endsAt = clock.now()
        }
    }
    return Replay(script.sent, outcomes)
}

private fun verdict(language: String, scenario: Map<String, Any?>, replay: Replay) {
    val problems = sdkRequestProblems(KIT, scenario, replay.sent) + sdkOutcomeProblems(scenario, replay.outcomes)
    val issue = KIT["known_failures"].obj()[language].list().map { it.obj() }.firstOrNull { it["scenario"] == scenario["name"] }?.get("issue")
    if (issue != null) {
        assertTrue(problems.isNotEmpty(), "passes, but is listed in known_failures.$language: remove the entry")
        assumeTrue(false, "$issue: ${problems.joinToString("; ")}")
    }
    assertTrue(problems.isEmpty(), problems.joinToString("\n"))
}

class SdkScenariosTest {
    /** Every scenario through AcdHttpClient's coroutines. */
    @TestFactory
    fun coroutines(): List<DynamicTest> =
        KIT["scenarios"].list().map { scenario ->
            DynamicTest.dynamicTest(scenario.obj()["name"] as String) { verdict("kotlin", scenario.obj(), coroutineReplay(scenario.obj())) }
        }

    /** Every scenario whose steps hold one call each, through `api.java()`'s futures. */
    @TestFactory
    fun javaFutures(): List<DynamicTest> =
        KIT["scenarios"].list().filter { scenario -> scenario.obj()["steps"].list().all { it.obj()["calls"].list().size == 1 } }.map { scenario ->
            DynamicTest.dynamicTest(scenario.obj()["name"] as String) { verdict("java", scenario.obj(), javaReplay(scenario.obj())) }
        }
}

/** Reads [error]'s class, category, status and retry time the way the kit names them. */
internal fun sdkErrorFacts(error: AcdException): Map<String, Any?> =
    mapOf(
        "class" to error::class.simpleName, "category" to error.category, "status" to error.status?.toLong(),
        "retry_at" to (error as? RateLimitException)?.retryAt, "message" to (error.message ?: ""),
    )
