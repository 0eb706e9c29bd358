// A transport answered by the core's test server (acd_core::testing): the
// server's own rules (credentials, stacked rate limits, validation) over a
// dataset of tables, connections and runs, at the instant an injected clock
// gives. Tests of code built on AcdHttpClient run against it in virtual
// time, with no server and no sleeping. This file converts and forwards.
package dev.acd.testing

import dev.acd.Body
import dev.acd.ConfigException
import dev.acd.FailureKind
import dev.acd.Header
import dev.acd.Request
import dev.acd.Response
import dev.acd.Transport
import dev.acd.TransportFailureException
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.contentOrNull
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonObject

/** An API key the test server knows (user `ada`). */
const val DEMO_API_KEY: String = "acd_live_demo_ada"

/** A rate limit's quota: [requests] per [windowMs]. */
data class Quota(
    /** Requests allowed per window. */ val requests: Long,
    /** The window, in ms. */ val windowMs: Long,
)

/** What a [GateTransport]'s fault hook may do with a request: answer it ([Answer]), fail it ([Fail]) or let the server answer ([Pass]). */
sealed class Fault {
    /** Answer with [response] instead of the server. */
    data class Answer(
        /** The response to give. */ val response: Response,
    ) : Fault()

    /** Fail without a response. */
    data class Fail(
        /** The failure to throw. */ val failure: TransportFailureException,
    ) : Fault()

    /** Let the server answer. */
    data object Pass : Fault()
}

/**
 * A [Transport] answered by the core's test server.
 *
 * @param clock the time source the server reads, Unix ms.
 * @param tables table id to records.
 * @param connections connection id to entity id to records.
 * @param limits quotas by limit name (`credential`, `client_ip`, or an
 *   operation's limit such as `user_table_reads`).
 * @param options more members of the test server's JSON configuration
 *   (`runs`, `latency_ms`, `faults`, `seed`, ...).
 * @param fault called with each request before the server.
 * @throws ConfigException when the core refuses the configuration.
 */
class GateTransport
    @JvmOverloads
    constructor(
        private val clock: () -> Long,
        tables: Map<String, List<JsonObject>> = emptyMap(),
        connections: Map<String, Map<String, List<JsonObject>>> = emptyMap(),
        limits: Map<String, Quota> = emptyMap(),
        options: JsonObject = JsonObject(emptyMap()),
        private val fault: (Request) -> Fault = { Fault.Pass },
    ) : Transport {
        private val server: acd.TestServer
        private val seen = mutableListOf<Request>()
        private val answered = mutableListOf<Int>()

        init {
            val config =
                buildJsonObject {
                    put("tables", JsonObject(tables.mapValues { JsonArray(it.value) }))
                    put("connections", JsonObject(connections.mapValues { (_, entities) -> JsonObject(entities.mapValues { JsonArray(it.value) }) }))
                    putJsonObject("limits") {
                        limits.forEach { (name, quota) -> putJsonObject(name) { put("requests", quota.requests); put("window_ms", quota.windowMs) } }
                    }
                    options.forEach { (name, value) -> put(name, value) }
                }
            server =
                try {
                    acd.TestServer(config.toString().encodeToByteArray())
                } catch (error: acd.AcdException) {
                    throw ConfigException(error.message ?: error.toString(), error)
                }
        }

        /** Every request received, in order. */
        val requests: List<Request> get() = synchronized(seen) { seen.toList() }

        /** The status of every response given, in order (faults included). */
        val statuses: List<Int> get() = synchronized(seen) { answered.toList() }

        /** The number of requests received. */
        override fun toString(): String = "GateTransport(${requests.size} requests)"

        /** Answers [request] as the server decides at the clock's instant (or as the fault hook says). */
        override suspend fun send(request: Request): Response {
            synchronized(seen) { seen += request }
            when (val injected = fault(request)) {
                is Fault.Answer -> return record(injected.response)
                is Fault.Fail -> throw injected.failure
                Fault.Pass -> {}
            }
            val block = request.headers.joinToString("") { "${it.name}: ${it.value}\n" }
            val answer =
                try {
                    Json.parseToJsonElement(server.exchange(request.method, request.url, block, request.body?.toByteArray(), clock())) as JsonObject
                } catch (error: acd.AcdException) {
                    throw ConfigException(error.message ?: error.toString(), error)
                }
            val failure = (answer["failure"] as? JsonPrimitive)?.contentOrNull
            if (failure != null) throw TransportFailureException(FailureKind.valueOf(failure.uppercase()))
            val headers = (answer["headers"] as JsonArray).map { pair -> (pair as JsonArray).let { Header((it[0] as JsonPrimitive).content, (it[1] as JsonPrimitive).content) } }
            val status = (answer["status"] as JsonPrimitive).content.toInt()
            return record(Response(status, headers, Body.of((answer["body"] as JsonPrimitive).content)))
        }

        private fun record(response: Response): Response {
            synchronized(seen) { answered += response.status }
            return response
        }
    }
