// AcdClient: the sans-IO client in idiomatic Kotlin. It builds requests,
// says when to send them and interprets what came back; the caller moves
// the bytes and keeps the time. Every decision is the core's driver's; this
// class converts types (signed numbers, Body, Event) and forwards.
package dev.acd

import acd.EgressMode
import acd.HttpResponse
import acd.Outcome
import acd.PathParam
import acd.QueryParam
import acd.RequestSpec
import acd.ResponseHeader
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.contentOrNull
import kotlinx.serialization.json.intOrNull
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put

private fun JsonElement?.text(): String = (this as? JsonPrimitive)?.contentOrNull ?: ""

/** A request from the core's wire JSON (`method`, `url`, `headers` as pairs, `body` as bytes or null). */
private fun requestOf(
    wire: JsonObject,
    maxBodyBytes: Long,
): Request {
    val headers =
        (wire["headers"] as? JsonArray).orEmpty().mapNotNull { pair ->
            (pair as? JsonArray)?.takeIf { it.size == 2 }?.let { Header(it[0].text(), it[1].text()) }
        }
    val body =
        (wire["body"] as? JsonArray)?.let { bytes ->
            Body(ByteArray(bytes.size) { i -> ((bytes[i] as? JsonPrimitive)?.intOrNull ?: 0).toByte() })
        }
    return Request(wire["method"].text(), wire["url"].text(), headers, body, maxBodyBytes)
}

/** One request to send now, and the call it belongs to. */
data class Transmit(
    /** The call's id; hand the outcome back with it. */
    val call: Long,
    /** The request. */
    val request: Request,
)

/**
 * The sans-IO client of the API (one per credential set).
 *
 * ```
 * val client = AcdClient(apiKey = key, baseUrl = url)
 * client.startTablePager("orders", pageSize = 100)
 * while (!client.isIdle) {
 *     client.pollTransmit(now())?.let { client.handle(it.call, send(it.request), now()) }
 *     for (event in client.pollEvents()) { ... }
 *     client.pollTimeout()?.let { sleepUntil(it) }
 * }
 * ```
 *
 * @param apiKey the API key; `ACD_API_KEY` when `null` (public operations
 *   such as the index need none).
 * @param baseUrl the API's base URL; `ACD_BASE_URL` when `null`, else the
 *   core's default.
 * @param user the user the key belongs to.
 * @param retry the retry policy; the core's defaults when `null`.
 * @param seed a fixed seed for jitter and idempotency keys (tests); by
 *   default each client draws its own from the operating system.
 * @param maxBodyBytes the largest response body accepted, in bytes (the
 *   core's default, 32 MiB, when `null`); a longer one fails the call and is
 *   not read past the bound.
 * @throws ConfigException when the core refuses the configuration.
 */
class AcdClient
    @JvmOverloads
    constructor(
        apiKey: String? = null,
        baseUrl: String? = null,
        user: String? = null,
        retry: RetryPolicy? = null,
        seed: Long? = null,
        maxBodyBytes: Long? = null,
    ) {
        /** The generated driver this client forwards to. */
        internal val driver: acd.Client

        /** The base URL requests go to. */
        val baseUrl: String

        /** The largest response body accepted, in bytes (the core's setting). */
        val maxBodyBytes: Long

        init {
            val json = clientConfigJson(apiKey, baseUrl, user, retry, seed, maxBodyBytes)
            driver = ffi { acd.ClientConfig.fromJson(json).withGetRun().use { acd.Client(it) } }
            this.baseUrl = ffi { acd.ClientConfig.fromJson(json).use { it.baseUrl() } }
            this.maxBodyBytes = driver.maxBodyBytes().toLong()
        }

        /** The base URL only (never a credential). */
        override fun toString(): String = "AcdClient(baseUrl=$baseUrl)"

        /**
         * Starts one call of [operation] (an operation id, e.g. `getApiIndex`),
         * checked now with the validators the server uses; returns its id.
         *
         * @throws BadRequestException a parameter was refused (`status` is `null`).
         * @throws ConfigException unknown operation, or no usable credential.
         */
        @JvmOverloads
        fun start(
            operation: String,
            path: Map<String, String> = emptyMap(),
            query: Map<String, String> = emptyMap(),
            body: Body? = null,
        ): Long =
            startSpec(
                RequestSpec(
                    operation,
                    path.map { (name, value) -> PathParam(name, value) },
                    query.map { (name, value) -> QueryParam(name, value) },
                    emptyList(),
                    null,
                    EgressMode.DEFAULT,
                    body?.toByteArray(),
                    null,
                ),
            )

        /** Starts one call from a request spec of the generated layer; see [start]. */
        internal fun startSpec(spec: RequestSpec): Long = ffi { driver.start(spec) }.toLong()

        /**
         * Starts paging through every record of [table] (one [Event.Page] per
         * page; the throttle spaces the requests). Pages go by offset unless
         * [uniqueOrder] declares the [orderBy] column unique.
         */
        @JvmOverloads
        fun startTablePager(
            table: String,
            pageSize: Long? = null,
            orderBy: String? = null,
            descending: Boolean = false,
            uniqueOrder: Boolean = false,
        ): Long {
            val options =
                buildJsonObject {
                    pageSize?.let { put("page_size", it) }
                    orderBy?.let { put("order_by", it) }
                    put("descending", descending)
                    put("unique_order", uniqueOrder)
                }
            return ffi { driver.startTablePager(table, options.toString()) }.toLong()
        }

        /** Starts paging through the records of [entityId] in [connection]; [filter] is JSON text. */
        @JvmOverloads
        fun startConnectionPager(
            connection: String,
            entityId: String,
            pageSize: Long? = null,
            filter: String? = null,
        ): Long {
            val options =
                buildJsonObject {
                    pageSize?.let { put("page_size", it) }
                    filter?.let { put("filter", it) }
                }
            return ffi { driver.startConnectionPager(connection, entityId, options.toString()) }.toLong()
        }

        /** Starts polling run [runId] until a terminal status (an [Event.RunStatus] per change). */
        @JvmOverloads
        fun startRunPoller(
            runId: String,
            intervalMs: Long? = null,
            deadlineMs: Long? = null,
        ): Long {
            val options =
                buildJsonObject {
                    intervalMs?.let { put("interval_ms", it) }
                    deadlineMs?.let { put("deadline_ms", it) }
                }
            return ffi { driver.startRunPoller(runId, options.toString()) }.toLong()
        }

        /** Drops [call]: nothing more is sent or emitted for it. */
        fun cancel(call: Long) = driver.cancel(call.toULong())

        /**
         * The next request to send now, if any (its send is recorded at
         * [nowMs]). The request crosses once, as the core's wire JSON.
         */
        fun pollTransmit(nowMs: Long): Transmit? {
            val transmit = ffi { driver.pollTransmit(nowMs) } ?: return null
            val wire = transmit.request.use { it.toWireJson() }
            val parsed = Json.parseToJsonElement(wire) as? JsonObject ?: JsonObject(emptyMap())
            return Transmit(transmit.id.toLong(), requestOf(parsed, maxBodyBytes))
        }

        /**
         * Hands over the [response] to the attempt sent for [call].
         *
         * @throws ConfigException when the status is not 0 to 65535, or [call]
         *   has no request in flight.
         */
        fun handle(
            call: Long,
            response: Response,
            nowMs: Long,
        ) {
            if (response.status !in 0..UShort.MAX_VALUE.toInt()) {
                throw ConfigException("a response status must be from 0 to 65535; got ${response.status}")
            }
            val headers = response.headers.map { ResponseHeader(it.name, it.value) }
            val status = response.status.toUShort()
            val outcome = Outcome.Response(HttpResponse(status, headers, response.body.toByteArray()))
            ffi { driver.handle(call.toULong(), outcome, nowMs) }
        }

        /** Hands over that the attempt sent for [call] got no response ([failure]). */
        fun handleFailure(
            call: Long,
            failure: FailureKind,
            nowMs: Long,
        ) {
            val kind =
                when (failure) {
                    FailureKind.CONNECT -> acd.TransportFailure.CONNECT
                    FailureKind.TIMEOUT -> acd.TransportFailure.TIMEOUT
                    FailureKind.INTERRUPTED -> acd.TransportFailure.INTERRUPTED
                }
            ffi { driver.handle(call.toULong(), Outcome.Transport(kind), nowMs) }
        }

        /** Drains the pending events, in order (one crossing, parsed once). */
        fun pollEvents(): List<Event> =
            (Json.parseToJsonElement(driver.pollEventsJson()) as? JsonArray).orEmpty().mapNotNull {
                (it as? JsonObject)?.let(::eventOf)
            }

        /** The Unix ms at which [pollTransmit] may have something new, or `null` when nothing waits. */
        fun pollTimeout(): Long? = driver.pollTimeout()

        /** Whether every call has ended. */
        val isIdle: Boolean get() = driver.isIdle()
    }
