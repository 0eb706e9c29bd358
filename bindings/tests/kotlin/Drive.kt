// Drives one client (the core's driver) in virtual time: every request due
// is answered by a function, the clock jumps to `pollTimeout()` when nothing
// is due, and every event is recorded with the instant it was drained at.
package acdtest

import acd.Client
import acd.ClientRequest
import acd.HttpResponse
import acd.Outcome

/** One event of call `call`: the core's Event JSON, parsed, at virtual time `at`. */
data class Seen(val at: Long, val call: Long, val event: Map<String, Any?>, val message: String?) {
    /** The event's `type` (`page`, `run_status`, `waiting`, `done`, `failed`, ...). */
    val type: String get() = event["type"].str()
}

/** Every pending event of `client`, in order, stamped with `at`. */
fun drain(client: Client, at: Long): List<Seen> =
    Json.parse(client.pollEventsJson()).arr().map {
        val entry = it.obj()
        Seen(at, entry["call"].long(), entry["event"].obj(), entry["message"] as String?)
    }

/**
 * Runs every started call of `client` to its end, from `start`: each request
 * due is answered by `serve` and handed back `latencyMs` later. Returns the
 * events and the final virtual time.
 */
fun driveVirtual(
    client: Client,
    start: Long,
    latencyMs: Long = 0,
    serve: (ClientRequest, Long) -> HttpResponse,
): Pair<List<Seen>, Long> {
    var now = start
    val seen = mutableListOf<Seen>()
    repeat(10_000) {
        val transmit = client.pollTransmit(now)
        if (transmit != null) {
            val response = serve(transmit.request, now)
            now += latencyMs
            client.handle(transmit.id, Outcome.Response(response), now)
            seen += drain(client, now)
            return@repeat
        }
        seen += drain(client, now)
        if (client.isIdle()) return seen to now
        val next = client.pollTimeout() ?: error("a live call waits for nothing")
        check(next > now) { "pollTimeout $next is not after $now, yet nothing is due" }
        now = next
    }
    error("the calls did not end within 10000 steps")
}
