// What the driver tells its caller (docs/driver-protocol.md, "Batch JSON"):
// data events (Response, Page, RunStatus), the notices Waiting, Retrying and
// Deprecation (each with the core's sentence), then one Done or Failed per
// call. Decoded strictly from the batch's event objects: a type this package
// does not know is an Unknown event, never a failure.
package dev.acd

import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive

/** The limit a call waits for, as the client models it. */
data class Limit(
    /** The limit's name, e.g. `user_table_reads`. */ val name: String,
    /** Requests per window. */ val requests: Long,
    /** The window, in whole seconds (rounded up). */ val windowSeconds: Long,
)

/** Something that happened to call [call]. */
sealed class Event {
    /** The call this event belongs to. */
    abstract val call: Long

    /** A single request's answer: status, headers and the body as JSON. */
    data class Response(
        override val call: Long,
        /** The HTTP status. */ val status: Int,
        /** The response headers, in order. */ val headers: List<Header>,
        /** The body as JSON ([JsonNull] when empty). */ val body: JsonElement,
    ) : Event() {
        /** The body's records: its `data` array, or the body itself when it is an array. */
        val records: List<AcdRecord> get() = recordsOf(body)
    }

    /** One page of a pager; [last] when the pager is over after it. */
    data class Page(
        override val call: Long,
        /** The page's number: 1 for the first. */ val page: Long,
        /** Whether this was the final page. */ val last: Boolean,
        /** The records, as received. */ val records: List<AcdRecord>,
    ) : Event()

    /** A run poll answered (when the status changes, and for the terminal one). */
    data class RunStatus(
        override val call: Long,
        /** The run's status. */ val status: String,
        /** Whether it is terminal (the poller is over). */ val terminal: Boolean,
        /** The run. */ val run: Run,
    ) : Event()

    /** The call waits until [until] (Unix ms) for [reason] (`quota`, `retry_after`, `backoff`, `poll_interval`), because of [limit] if one. */
    data class Waiting(
        override val call: Long,
        /** The instant, Unix ms (the client's clock). */ val until: Long,
        /** Why, as the core names it. */ val reason: String,
        /** The limit that makes it wait, when one does. */ val limit: Limit?,
        /** The core's sentence, e.g. `waiting 1.0 s for limit user_table_reads (100 per 60 s)`. */ val message: String,
        /** How loudly it is logged, as the core says: `warning` (10 s or more), `info`, or `debug` (a retry's own wait). */ val level: String = "info",
    ) : Event()

    /** A failed attempt is retried: [attempt] is the next one's number, sent at [at] (Unix ms). */
    data class Retrying(
        override val call: Long,
        /** The number of the attempt that goes next. */ val attempt: Int?,
        /** When it goes, Unix ms. */ val at: Long?,
        /** The core's sentence: what failed, the attempt, when the next goes. */ val message: String,
        /** The event as received. */ val json: JsonObject,
    ) : Event()

    /** A `Deprecation`/`Sunset` notice about the call's operation. */
    data class Deprecation(
        override val call: Long,
        /** The core's sentence, dates written out. */ val message: String,
        /** The event as received (operation, dates, links). */ val json: JsonObject,
    ) : Event()

    /** The call ended successfully (its last event). */
    data class Done(override val call: Long) : Event()

    /** The call ended with [error] (its last event). */
    data class Failed(
        override val call: Long,
        /** The typed exception, carrying the core's sentence, category and status. */ val error: AcdException,
    ) : Event()

    /** An event of a type this version does not know (kept for forward compatibility). */
    data class Unknown(
        override val call: Long,
        /** Its `type`. */ val type: String,
        /** The event as received. */ val json: JsonObject,
    ) : Event()
}

private fun JsonObject.need(name: String): JsonElement = this[name] ?: throw AcdException("event without \"$name\": $this")

private fun JsonObject.needStr(name: String): String = str(name) ?: throw AcdException("event with no text \"$name\": $this")

private fun JsonObject.needLong(name: String): Long = long(name) ?: throw AcdException("event with no number \"$name\": $this")

private fun JsonObject.needBool(name: String): Boolean = bool(name) ?: throw AcdException("event with no boolean \"$name\": $this")

/** A wait's reason: its name, or the one member of an object such as `{"backoff": {"attempt": 2}}`. */
private fun reasonOf(reason: JsonElement): String =
    (reason as? JsonPrimitive)?.takeIf { it.isString }?.content
        ?: (reason as? JsonObject)?.keys?.singleOrNull()
        ?: throw AcdException("a wait reason that is neither a name nor an object of one member: $reason")

/** `[[name, value], ...]` as headers. */
internal fun headersOf(value: JsonElement?): List<Header> =
    (value as? JsonArray).orEmpty().map { pair ->
        val both = (pair as? JsonArray)?.map { (it as? JsonPrimitive)?.content }
        Header(both?.getOrNull(0) ?: "", both?.getOrNull(1) ?: "")
    }

/**
 * One event object of a batch (`{"call", "type", ...}`) as an [Event].
 *
 * @throws AcdException (category `protocol`) when a known type lacks a member it must have.
 */
internal fun eventOf(event: JsonObject): Event {
    val call = event.needLong("call")
    return when (val type = event.needStr("type")) {
        "response" -> Event.Response(call, event.needLong("status").toInt(), headersOf(event["headers"]), event["body"] ?: JsonNull)
        "page" ->
            Event.Page(
                call,
                event.needLong("page"),
                event.needBool("last"),
                (event.need("records") as? JsonArray ?: throw AcdException("page records are not an array: $event")).map {
                    AcdRecord(it as? JsonObject ?: throw AcdException("a record is not a JSON object: $it"))
                },
            )
        "run_status" -> Event.RunStatus(call, event.needStr("status"), event.needBool("terminal"), runOf(event.need("run")))
        "waiting" ->
            Event.Waiting(
                call,
                event.needLong("until"),
                reasonOf(event.need("reason")),
                (event["limit"] as? JsonObject)?.let { Limit(it.needStr("name"), it.needLong("requests"), it.needLong("window_seconds")) },
                event.needStr("message"),
                event.str("level") ?: "info",
            )
        "retrying" -> Event.Retrying(call, event.long("attempt")?.toInt(), event.long("at") ?: event.long("until"), event.needStr("message"), event)
        "deprecation" -> Event.Deprecation(call, event.needStr("message"), event)
        "done" -> Event.Done(call)
        "failed" -> Event.Failed(call, exceptionOf(event.need("error") as? JsonObject ?: throw AcdException("failed without an error: $event")))
        else -> Event.Unknown(call, type, event)
    }
}
