// The SDK conformance kit's helpers for SdkScenariosTest: the scripted
// server as a dev.acd.Transport (answers by route in arrival order, delays
// and connection failures on the replay's clock), plain JSON values of the
// SDK's results, and the checks of the expected requests and outcomes.
package acdtest

import dev.acd.AcdException
import dev.acd.AcdRecord
import dev.acd.Body
import dev.acd.FailureKind
import dev.acd.Header
import dev.acd.Request
import dev.acd.Response
import dev.acd.Run
import dev.acd.Transport
import dev.acd.TransportFailureException
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.booleanOrNull
import kotlinx.serialization.json.longOrNull

/** How one kit call ended. */
class SdkOutcome {
    var value: Any? = null
    var error: AcdException? = null
    var endsAt: Long? = null
}

/** A kit result as plain JSON values (Map, List, Long, Double, String, Boolean, null). */
fun plain(value: Any?): Any? =
    when (value) {
        null, JsonNull -> null
        is AcdRecord -> plain(value.json)
        is Run -> plain(value.json)
        is JsonObject -> value.mapValuesTo(LinkedHashMap()) { plain(it.value) }
        is JsonArray -> value.map(::plain)
        is JsonPrimitive -> if (value.isString) value.content else value.booleanOrNull ?: value.longOrNull ?: value.content.toDouble()
        is List<*> -> value.map(::plain)
        else -> value
    }

/** Plain JSON values as compact JSON text. */
fun toJsonText(value: Any?): String =
    when (value) {
        null -> "null"
        is String -> JsonPrimitive(value).toString()
        is Map<*, *> -> value.entries.joinToString(",", "{", "}") { "${toJsonText(it.key as String)}:${toJsonText(it.value)}" }
        is List<*> -> value.joinToString(",", "[", "]") { toJsonText(it) }
        else -> value.toString()
    }

/** The scenario's server: records each request and plays its scripted answer on the replay's clock. */
class SdkScript(
    scenario: Map<String, Any?>,
    private val base: String,
    private val exchangeMs: Long,
    private val now: () -> Long,
    private val sleep: suspend (Long) -> Unit,
) : Transport {
    /** One request received. */
    data class Sent(val at: Long, val method: String, val url: String, val headers: List<Header>, val body: Any?)

    @Suppress("UNCHECKED_CAST")
    private val routes: Map<String, ArrayDeque<Map<String, Any?>>> =
        (scenario["server"] as Map<String, List<Map<String, Any?>>>).mapValues { ArrayDeque(it.value) }

    /** Every request, in arrival order. */
    val sent: MutableList<Sent> = mutableListOf()

    override suspend fun send(request: Request): Response {
        val relative = request.url.removePrefix(base)
        val text = request.body?.text().orEmpty()
        synchronized(sent) { sent += Sent(now(), request.method, relative, request.headers, if (text.isEmpty()) null else Json.parse(text)) }
        val answer = synchronized(routes) { routes["${request.method} $relative"]?.removeFirstOrNull() } ?: mapOf("status" to 599L, "headers" to emptyList<Any?>(), "body" to null)
        val delay = (answer["delay_ms"] as Long?) ?: 0L
        // The exchange's bound, as a real transport applies it: the script's own, or the core's deadline when sooner.
        val exchangeMs = minOf(exchangeMs, request.timeoutMs ?: exchangeMs)
        when (answer["fail"]) {
            "refuse" -> throw TransportFailureException(FailureKind.CONNECT, "connection refused")
            "connect_timeout" -> {
                sleep(minOf(delay, exchangeMs))
                throw TransportFailureException(FailureKind.CONNECT, "connect timed out")
            }
            "timeout" -> {
                sleep(exchangeMs)
                throw TransportFailureException(FailureKind.TIMEOUT, "read timed out")
            }
        }
        if (delay > exchangeMs) {
            sleep(exchangeMs)
            throw TransportFailureException(FailureKind.TIMEOUT, "read timed out")
        }
        sleep(delay)
        if (answer["fail"] == "reset") throw TransportFailureException(FailureKind.INTERRUPTED, "connection reset")
        @Suppress("UNCHECKED_CAST")
        val headers = (answer["headers"] as List<List<String>>).map { Header(it[0], it[1]) }
        val body = answer["body"]?.let { toJsonText(it).encodeToByteArray() } ?: ByteArray(0)
        return Response((answer["status"] as Long).toInt(), headers, Body(body))
    }
}

private fun within(expected: Any?, actual: Long?): Boolean {
    if (actual == null) return false
    @Suppress("UNCHECKED_CAST")
    return if (expected is Map<*, *>) actual in (expected["min"] as Long)..(expected["max"] as Long) else expected == actual
}

/** Every difference between the requests [sent] and the scenario's expected ones. */
@Suppress("UNCHECKED_CAST")
fun sdkRequestProblems(kit: Map<String, Any?>, scenario: Map<String, Any?>, sent: List<SdkScript.Sent>): List<String> {
    val problems = mutableListOf<String>()
    val expected = scenario["expect_requests"] as List<Map<String, Any?>>
    val seen = sent.map { "${it.at} ${it.method} ${it.url}" }
    if (expected.size != sent.size) problems += "${expected.size} requests expected, ${sent.size} sent: $seen"
    val used = BooleanArray(sent.size)
    for (want in expected) {
        val index = sent.indices.firstOrNull { !used[it] && sent[it].method == want["method"] && sent[it].url == want["url"] && within(want["at"], sent[it].at) }
        if (index == null) {
            problems += "no request matches ${want["at"]} ${want["method"]} ${want["url"]}; sent $seen"
            continue
        }
        used[index] = true
        val request = sent[index]
        fun header(name: String) = request.headers.firstOrNull { it.name.equals(name, ignoreCase = true) }?.value
        val named = (kit["every_request_headers"] as Map<String, String>) + ((want["headers"] as Map<String, String>?) ?: emptyMap())
        for ((name, value) in named) if (header(name) != value) problems += "${want["url"]}: header $name is ${header(name)}"
        for (name in (want["absent_headers"] as List<String>?) ?: emptyList()) if (header(name) != null) problems += "${want["url"]}: header $name should be absent"
        if (want.containsKey("body") && request.body != want["body"]) problems += "${want["url"]}: body ${request.body}"
    }
    return problems
}

/** Every difference between how the calls ended and the scenario's expected outcomes. */
@Suppress("UNCHECKED_CAST")
fun sdkOutcomeProblems(scenario: Map<String, Any?>, outcomes: Map<String, SdkOutcome>): List<String> {
    val problems = mutableListOf<String>()
    for ((id, want) in scenario["expect"] as Map<String, Map<String, Any?>>) {
        val got = outcomes.getValue(id)
        if (want.containsKey("value") && (got.error != null || got.value != want["value"])) problems += "$id: got ${got.value} / ${got.error}, expected ${want["value"]}"
        val error = want["error"] as Map<String, Any?>?
        if (error != null) {
            val actual = got.error
            if (actual == null) {
                problems += "$id: no error"
            } else {
                val facts = sdkErrorFacts(actual)
                val expectedClass = (error["class"] as Map<String, String>)["kotlin"]
                if (facts["class"] != expectedClass) problems += "$id: ${facts["class"]} (${facts["message"]}), expected $expectedClass"
                for (name in listOf("category", "status")) if (facts[name] != error[name]) problems += "$id: $name ${facts[name]}, expected ${error[name]}"
                if (error.containsKey("retry_at") && facts["retry_at"] != error["retry_at"]) problems += "$id: retry_at ${facts["retry_at"]}, expected ${error["retry_at"]}"
                for (part in (error["message_contains"] as List<String>?) ?: emptyList()) {
                    if (!(facts["message"] as String).contains(part)) problems += "$id: message ${facts["message"]} lacks $part"
                }
            }
        }
        if (want.containsKey("ends_at") && !within(want["ends_at"], got.endsAt)) problems += "$id: ended at ${got.endsAt}, expected ${want["ends_at"]}"
    }
    val multiset = (scenario["expect_ends_at"] as Map<String, Any?>?)?.get("multiset") as List<Long>?
    if (multiset != null) {
        val ends = outcomes.values.map { it.endsAt ?: 0L }.sorted()
        if (ends != multiset.sorted()) problems += "calls ended at $ends, expected ${multiset.sorted()}"
    }
    return problems
}
