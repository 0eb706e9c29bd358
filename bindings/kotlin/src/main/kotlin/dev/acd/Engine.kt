// The driver loop's one seam, over the ffi crate's Driver: one crossing per
// step. The config and each call spec cross as JSON bytes, an outcome as
// status, header block and body, and each poll's batch comes back as one
// JSON text, parsed once here with kotlinx.serialization (records stay the
// JsonObjects it made). Nothing is decided here.
package dev.acd

import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonObject

/** One request to send now, for [call]; abandon it at [timeoutAt] (Unix ms) if set. */
internal class Transmit(val call: Long, val request: Request, val timeoutAt: Long?)

/** What one poll gives: requests to send, events to deliver, and when to poll again (Unix ms). */
internal class Batch(val transmits: List<Transmit>, val events: List<Event>, val timeout: Long?)

/** Runs [block], turning the core's refusal (its error object) into the typed exception. */
private inline fun <T> core(block: () -> T): T =
    try {
        block()
    } catch (refused: acd.DriverException.Call) {
        throw exceptionOf(JSON.parseToJsonElement(refused.json) as? JsonObject ?: JsonObject(emptyMap()))
    }

/**
 * The core's client driver, reached through the driver protocol
 * (docs/driver-protocol.md), from its [config] JSON; the transport reads no
 * body past [maxBodyBytes] (the core's default when the caller set none).
 */
internal class Engine(config: JsonObject, maxBodyBytes: Long?) {
    private val driver: acd.Driver = core { acd.Driver(config.toString().encodeToByteArray()) }
    private val maxBodyBytes: Long = maxBodyBytes ?: acd.defaultMaxBodyBytes().toLong()

    /** Starts the call [spec] describes; its id. Throws the typed exception when refused before any I/O. */
    fun start(spec: JsonObject): Long = core { driver.start(spec.toString().encodeToByteArray()) }.toLong()

    /** Every transmit that may go at [nowMs] (their sends recorded), then every event, and the next wake-up. */
    fun poll(nowMs: Long): Batch {
        val batch = JSON.parseToJsonElement(core { driver.poll(nowMs) }) as JsonObject
        val transmits =
            (batch["transmits"] as JsonArray).map {
                val t = it as JsonObject
                val request = Request(t.str("method") ?: "GET", t.str("url") ?: "", headersOf(t["headers"]), t.str("body")?.let(Body::of), maxBodyBytes)
                Transmit(t.long("call") ?: -1, request, t.long("timeout_at"))
            }
        return Batch(transmits, (batch["events"] as JsonArray).map { eventOf(it as JsonObject) }, batch.long("timeout"))
    }

    /** The response to [call]'s transmit. */
    fun respond(call: Long, response: Response, nowMs: Long) {
        if (response.status !in 0..65535) throw AcdException("a response status must be from 0 to 65535; got ${response.status}")
        val block = response.headers.joinToString("") { "${it.name}: ${it.value}\n" }
        core { driver.respond(call.toULong(), response.status.toUShort(), block, response.body.toByteArray(), nowMs) }
    }

    /** [call]'s transmit got no response. */
    fun fail(call: Long, kind: FailureKind, nowMs: Long) = core { driver.fail(call.toULong(), kind.name.lowercase(), nowMs) }

    /** Drops [call]. */
    fun cancel(call: Long) = driver.cancel(call.toULong())

    /** The throttle's view of each limit. */
    fun limits(): List<LimitState> = (JSON.parseToJsonElement(driver.limits()) as JsonArray).map { limitOf(it as JsonObject) }
}
