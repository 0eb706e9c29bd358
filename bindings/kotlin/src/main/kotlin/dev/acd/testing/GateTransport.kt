// A transport answered by an in-process gate: the server's own rules from
// the core (credentials, stacked rate limits, validation) and the
// simulation's record server, at the instant an injected clock gives. Tests
// of code built on AcdHttpClient run against it in virtual time, with no
// server and no sleeping.
package dev.acd.testing

import acd.Decision
import acd.Header as GateHeader
import dev.acd.Body
import dev.acd.ConfigException
import dev.acd.Header
import dev.acd.Request
import dev.acd.Response
import dev.acd.Transport
import dev.acd.TransportFailureException
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import java.net.URI

/** An API key the demo gate knows (user `ada`). */
const val DEMO_API_KEY: String = "acd_live_demo_ada"

/** A rate limit's quota: [requests] per [windowMs]. */
data class Quota(
    /** Requests allowed per window. */
    val requests: Long,
    /** The window, in ms. */
    val windowMs: Long,
)

/**
 * What a [GateTransport]'s fault hook may do with a request: answer it
 * ([Answer]), fail it ([Fail]) or let the gate answer ([Pass]).
 */
sealed class Fault {
    /** Answer with [response] instead of the gate. */
    data class Answer(
        /** The response to give. */
        val response: Response,
    ) : Fault()

    /** Fail without a response. */
    data class Fail(
        /** The failure to throw. */
        val failure: TransportFailureException,
    ) : Fault()

    /** Let the gate answer. */
    data object Pass : Fault()
}

/**
 * A [Transport] answered by an in-process gate (the demo credentials:
 * [DEMO_API_KEY] and the others of the core's demo gate).
 *
 * @param clock the time source the gate reads, Unix ms.
 * @param tables table id to records.
 * @param connections connection id to entity id to records.
 * @param limits quotas by limit name (`credential`, `client_ip`, or an
 *   operation's extra limit such as `user_table_reads`).
 * @param gateConfig the core's `GateConfig` JSON (members left out take
 *   its defaults).
 * @param fault called with each request before the gate.
 * @param clientIp the address the gate sees.
 * @throws ConfigException when the core refuses the configuration or dataset,
 *   or a limit named in [limits] does not exist.
 */
class GateTransport
    @JvmOverloads
    constructor(
        private val clock: () -> Long,
        tables: Map<String, List<JsonObject>> = emptyMap(),
        connections: Map<String, Map<String, List<JsonObject>>> = emptyMap(),
        limits: Map<String, Quota> = emptyMap(),
        gateConfig: JsonObject = JsonObject(emptyMap()),
        private val fault: (Request) -> Fault = { Fault.Pass },
        private val clientIp: String = "192.0.2.10",
    ) : Transport {
        private val gate: acd.Gate
        private val dataset: acd.Dataset
        private val startMs: Long = clock()
        private val seenRequests = mutableListOf<Request>()
        private val seenStatuses = mutableListOf<Int>()

        init {
            try {
                val full = acd.GateConfig.fromJson(gateConfig.toString()).use { it.toJson() }
                val quoted = withQuotas(Json.parseToJsonElement(full) as JsonObject, limits)
                gate = acd.GateConfig.fromJson(quoted.toString()).use { acd.Gate.demo(it) }
                val data =
                    buildJsonObject {
                        put("tables", JsonObject(tables.mapValues { JsonArray(it.value) }))
                        put("connections", JsonObject(connections.mapValues { (_, entities) -> JsonObject(entities.mapValues { JsonArray(it.value) }) }))
                        put("runs", JsonObject(emptyMap()))
                    }
                dataset = acd.Dataset.fromJson(data.toString().encodeToByteArray())
            } catch (error: acd.AcdException) {
                throw ConfigException(error.message ?: error.toString(), error)
            }
        }

        /** Every request received, in order. */
        val requests: List<Request> get() = synchronized(seenRequests) { seenRequests.toList() }

        /** The status of every response given, in order (faults included). */
        val statuses: List<Int> get() = synchronized(seenRequests) { seenStatuses.toList() }

        /** The number of requests received. */
        override fun toString(): String = "GateTransport(${requests.size} requests)"

        /**
         * Answers [request] as the gate decides at the clock's instant (or as
         * the fault hook says).
         *
         * @throws ConfigException when the clock gives a negative instant.
         */
        override suspend fun send(request: Request): Response {
            synchronized(seenRequests) { seenRequests += request }
            when (val injected = fault(request)) {
                is Fault.Answer -> return record(injected.response)
                is Fault.Fail -> throw injected.failure
                Fault.Pass -> {}
            }
            val url = URI.create(request.url)
            val target = url.rawPath + (url.rawQuery?.let { "?$it" } ?: "")
            val headers = request.headers.map { GateHeader(it.name, it.value.encodeToByteArray()) }
            val now = clock()
            val answer =
                try {
                    acd.GateRequest(request.method, target.encodeToByteArray(), headers, clientIp).use { gateRequest ->
                        when (val decision = gate.decide(gateRequest, now)) {
                            is Decision.Respond -> decision.response
                            is Decision.Resolve -> decision.admitted.use { dataset.respond(it, startMs, now) }
                        }
                    }
                } catch (error: acd.AcdException) {
                    throw ConfigException(error.message ?: error.toString(), error)
                }
            return record(Response(answer.status.toInt(), answer.headers.map { Header(it.name, it.value) }, Body(answer.body)))
        }

        private fun record(response: Response): Response {
            synchronized(seenRequests) { seenStatuses += response.status }
            return response
        }
    }

/** [config] (the gate's full JSON) with each named limit's quota replaced, wherever it is defined. */
private fun withQuotas(
    config: JsonObject,
    quotas: Map<String, Quota>,
): JsonObject {
    val unknown = quotas.keys.toMutableSet()

    fun quoted(
        name: String,
        quota: JsonElement?,
    ): JsonElement? {
        val replacement = quotas[name] ?: return quota
        unknown.remove(name)
        val base = quota as? JsonObject ?: JsonObject(emptyMap())
        return JsonObject(base + mapOf("requests" to JsonPrimitive(replacement.requests), "window_ms" to JsonPrimitive(replacement.windowMs)))
    }
    val limits = (config["limits"] as? JsonObject)?.let { JsonObject(it.mapValues { (name, quota) -> quoted(name, quota) ?: quota }) }
    val catalogue =
        (config["catalogue"] as? JsonArray)?.let { operations ->
            JsonArray(
                operations.map { operation ->
                    val op = operation as? JsonObject ?: return@map operation
                    val extras = op["extra_limits"] as? JsonArray ?: return@map op
                    val replaced =
                        extras.map { extra ->
                            val limit = extra as? JsonObject ?: return@map extra
                            val name = (limit["name"] as? JsonPrimitive)?.content ?: return@map limit
                            JsonObject(limit + ("quota" to (quoted(name, limit["quota"]) ?: JsonObject(emptyMap()))))
                        }
                    JsonObject(op + ("extra_limits" to JsonArray(replaced)))
                },
            )
        }
    if (unknown.isNotEmpty()) throw ConfigException("no limit named ${unknown.sorted()} in the gate configuration")
    var result: Map<String, JsonElement> = config
    limits?.let { result = result + ("limits" to it) }
    catalogue?.let { result = result + ("catalogue" to it) }
    return JsonObject(result)
}
