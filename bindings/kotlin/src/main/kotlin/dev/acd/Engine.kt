// The driver loop's one seam: an Engine starts calls from call specs (the
// driver protocol's CallSpec JSON), and per poll gives one Batch of
// transmits, events and the next wake-up; the host hands back each outcome.
package dev.acd

import kotlinx.serialization.json.JsonObject

/** One request to send now, for [call]; abandon it at [timeoutAt] (Unix ms) if set. */
internal class Transmit(val call: Long, val request: Request, val timeoutAt: Long?)

/** What one poll gives: requests to send, events to deliver, and when to poll again (Unix ms). */
internal class Batch(val transmits: List<Transmit>, val events: List<Event>, val timeout: Long?)

/** A client's settings as the host read them ([env]: `ACD_API_KEY`, `ACD_BASE_URL` when set). */
internal class Settings(
    val apiKey: String?,
    val baseUrl: String?,
    val retry: RetryPolicy?,
    val seed: Long?,
    val maxBodyBytes: Long?,
    val env: Map<String, String>,
)

/** The core's client driver, reached through the driver protocol. */
internal interface Engine {
    /** The base URL requests go to. */
    val baseUrl: String

    /** The largest response body accepted, in bytes. */
    val maxBodyBytes: Long

    /** Starts the call [spec] describes; its id. Throws the typed exception when refused before any I/O. */
    fun start(spec: JsonObject): Long

    /** Every transmit that may go at [nowMs] (their sends recorded), then every event, and the next wake-up. */
    fun poll(nowMs: Long): Batch

    /** The response to [call]'s transmit. */
    fun respond(call: Long, response: Response, nowMs: Long)

    /** [call]'s transmit got no response. */
    fun fail(call: Long, kind: FailureKind, nowMs: Long)

    /** Drops [call]. */
    fun cancel(call: Long)

    /** The throttle's view of each limit. */
    fun limits(): List<LimitState>
}
