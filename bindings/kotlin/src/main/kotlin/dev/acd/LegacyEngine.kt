// The Engine over the ffi crate's per-object client (acd.Client): call specs
// become its start_* calls, and its drained events are rewritten into the
// driver protocol's flat event objects.
package dev.acd

import acd.EgressMode
import acd.HttpResponse
import acd.Outcome
import acd.PathParam
import acd.QueryParam
import acd.RequestSpec
import acd.ResponseHeader
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.addJsonObject
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.intOrNull
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonArray
import java.time.Instant

private fun <T> ffi(block: () -> T): T =
    try {
        block()
    } catch (error: acd.AcdException) {
        val message = error.message ?: error.toString()
        throw if (error is acd.AcdException.Request) RequestException(message) else ConfigException(message, error)
    }

private fun JsonElement?.pairs(): List<Pair<String, String>> =
    (this as? JsonArray).orEmpty().map { pair -> (pair as JsonArray).let { (it[0] as JsonPrimitive).content to (it[1] as JsonPrimitive).content } }

internal class LegacyEngine(settings: Settings) : Engine {
    private val driver: acd.Client
    override val baseUrl: String
    override val maxBodyBytes: Long
    private val headers = HashMap<Long, List<Header>>()
    private val timeouts = HashMap<Long, Long>()
    private val deadlines = HashMap<Long, Long>()

    init {
        val key = settings.apiKey ?: settings.env["ACD_API_KEY"]
        val url = settings.baseUrl ?: settings.env["ACD_BASE_URL"]
        val json =
            buildJsonObject {
                url?.let { put("base_url", it.removeSuffix("/")) }
                if (key != null) {
                    putJsonArray("credentials") {
                        addJsonObject {
                            put("id", "default")
                            put("kind", "api_key")
                            put("secret", key)
                            put("user", "default")
                        }
                    }
                }
                settings.retry?.let { put("retry", it.toCore()) }
                settings.seed?.let { put("seed", it) }
                settings.maxBodyBytes?.let { put("max_body_bytes", it) }
            }.toString()
        driver = ffi { acd.ClientConfig.fromJson(json).use { acd.Client(it) } }
        baseUrl = ffi { acd.ClientConfig.fromJson(json).use { it.baseUrl() } }
        maxBodyBytes = driver.maxBodyBytes().toLong()
    }

    override fun start(spec: JsonObject): Long {
        val options = spec["options"] as? JsonObject ?: JsonObject(emptyMap())
        val call =
            ffi {
                when (spec.str("type")) {
                    "request" ->
                        driver.start(
                            RequestSpec(
                                spec.str("operation") ?: "",
                                ((spec["path"] as? JsonObject) ?: JsonObject(emptyMap())).map { (n, v) -> PathParam(n, (v as JsonPrimitive).content) },
                                spec["query"].pairs().map { (n, v) -> QueryParam(n, v) },
                                emptyList(),
                                null,
                                EgressMode.DEFAULT,
                                spec["body"]?.takeIf { it != JsonNull }?.toString()?.encodeToByteArray(),
                                options.str("idempotency_key"),
                            ),
                        )
                    "table_pages" -> driver.startTablePager(spec.str("table") ?: "", JsonObject(spec - "type" - "table" - "options").toString())
                    "connection_pages" ->
                        driver.startConnectionPager(spec.str("connection") ?: "", spec.str("entity") ?: "", JsonObject(spec - "type" - "connection" - "entity" - "options").toString())
                    else -> driver.startRunPoller(spec.str("run_id") ?: "", JsonObject(spec - "type" - "run_id" - "options").toString())
                }
            }.toLong()
        headers[call] = options["headers"].pairs().map { Header(it.first, it.second) }
        options.long("timeout_ms")?.let { timeouts[call] = it }
        return call
    }

    override fun poll(nowMs: Long): Batch {
        val transmits = mutableListOf<Transmit>()
        while (true) {
            val transmit = ffi { driver.pollTransmit(nowMs) } ?: break
            val wire = JSON.parseToJsonElement(transmit.request.use { it.toWireJson() }) as JsonObject
            val call = transmit.id.toLong()
            timeouts.remove(call)?.let { deadlines[call] = nowMs + it }
            val body = (wire["body"] as? JsonArray)?.let { bytes -> Body(ByteArray(bytes.size) { ((bytes[it] as JsonPrimitive).intOrNull ?: 0).toByte() }) }
            val sent = wire["headers"].pairs().map { Header(it.first, it.second) } + headers[call].orEmpty()
            transmits += Transmit(call, Request(wire.str("method") ?: "GET", wire.str("url") ?: "", sent, body, maxBodyBytes), deadlines[call])
        }
        val events = (JSON.parseToJsonElement(driver.pollEventsJson()) as JsonArray).map { eventOf(flat(it as JsonObject, nowMs)) }.toMutableList()
        events.filter { it is Event.Done || it is Event.Failed }.forEach { deadlines.remove(it.call) }
        for ((call, deadline) in deadlines.filterValues { it <= nowMs }) {
            cancel(call)
            events += Event.Failed(call, AcdTimeoutException("the call did not end within its timeout"))
        }
        val timeout = listOfNotNull(driver.pollTimeout(), deadlines.values.minOrNull()).minOrNull()
        return Batch(transmits, events, timeout)
    }

    override fun respond(call: Long, response: Response, nowMs: Long) {
        val outcome = HttpResponse(response.status.toUShort(), response.headers.map { ResponseHeader(it.name, it.value) }, response.body.toByteArray())
        ffi { driver.handle(call.toULong(), Outcome.Response(outcome), nowMs) }
    }

    override fun fail(call: Long, kind: FailureKind, nowMs: Long) {
        val failure = acd.TransportFailure.valueOf(kind.name)
        ffi { driver.handle(call.toULong(), Outcome.Transport(failure), nowMs) }
    }

    override fun cancel(call: Long) {
        headers.remove(call)
        timeouts.remove(call)
        deadlines.remove(call)
        driver.cancel(call.toULong())
    }

    override fun limits(): List<LimitState> = (JSON.parseToJsonElement(driver.limitsJson()) as JsonArray).map { limitOf(it as JsonObject) }
}

/** An entry of the per-object client's drain as a flat event of the driver protocol. */
private fun flat(entry: JsonObject, nowMs: Long): JsonObject {
    val event = entry["event"] as JsonObject
    val members = event.toMutableMap()
    members["call"] = entry["call"]!!
    when (event.str("type")) {
        "response" -> {
            members["body"] =
                when (event.str("kind")) {
                    "records" -> event["records"]!!
                    "index" -> event["index"]!!
                    else -> JsonObject(mapOf("data" to (event["value"] ?: JsonNull)))
                }
        }
        "waiting" -> {
            val reason = event["reason"]
            members["reason"] = JsonPrimitive(if (reason is JsonObject) "backoff" else (reason as JsonPrimitive).content)
            val seconds = "%.1f".format((event.long("until")!! - nowMs) / 1000.0)
            val limit = event["limit"] as? JsonObject
            members["message"] =
                JsonPrimitive(
                    if (limit != null) {
                        "waiting $seconds s for limit ${limit.str("name")} (${limit.long("requests")} per ${limit.long("window_seconds")} s)"
                    } else {
                        "waiting $seconds s (${members["reason"]!!.let { (it as JsonPrimitive).content }})"
                    },
                )
        }
        "deprecation" -> {
            val since = (event["deprecated"] as? JsonObject)?.long("unix_seconds")?.let { " since ${Instant.ofEpochSecond(it)}" } ?: ""
            val sunset = event.long("sunset_at")?.let { "; sunset on ${Instant.ofEpochSecond(it)}" } ?: ""
            members["message"] = JsonPrimitive("operation ${event.str("operation_id")} is deprecated$since$sunset")
        }
        "failed" -> {
            var last = event
            while (last.str("kind") == "gave_up" && last["last"] is JsonObject) last = last["last"] as JsonObject
            members["error"] =
                buildJsonObject {
                    put("type", event.str("kind"))
                    put("category", entry.str("category"))
                    put("message", entry.str("message"))
                    last.long("status")?.let { put("status", it) }
                    if (last.str("kind") == "api") {
                        put("detail", last.str("detail") ?: "")
                        put("body", JsonObject(mapOf("detail" to JsonPrimitive(last.str("detail")), "status" to JsonPrimitive(last.long("status"))) + ((last["extra"] as? JsonObject) ?: emptyMap())))
                    }
                }
        }
    }
    return JsonObject(members)
}
