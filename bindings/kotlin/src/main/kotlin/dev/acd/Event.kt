// What the driver tells its caller, one sealed class for every kind of call:
// data events (Response, Page, RunStatus), Waiting and Deprecation notices,
// then exactly one Done or Failed per call. Parsed once from the core's
// event JSON (one array per drain).
package dev.acd

import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.contentOrNull
import kotlinx.serialization.json.longOrNull

/** The limit a call waits for, as the client models it. */
data class Limit(
    /** The limit's name, e.g. `user_table_reads`. */
    val name: String,
    /** Requests per window. */
    val requests: Long,
    /** The window, in whole seconds (rounded up). */
    val windowSeconds: Long,
)

/** Why a call waits. */
sealed class WaitReason {
    /** The limit's window is used up. */
    data object Quota : WaitReason()

    /** The server said when to come back (`Retry-After`). */
    data object RetryAfter : WaitReason()

    /** A failed attempt is retried after a backoff; [attempt] is the one that waits (2 for the first retry). */
    data class Backoff(
        /** The number of the attempt that waits. */
        val attempt: Int,
    ) : WaitReason()

    /** A run poller waits for its next poll. */
    data object PollInterval : WaitReason()
}

/** Something that happened to call [call]. */
sealed class Event {
    /** The call this event belongs to. */
    abstract val call: Long

    /**
     * A single call's result: [records] for a list, [value] for the index or
     * a single object (the other is `null`).
     */
    data class Response(
        override val call: Long,
        /** The HTTP status. */
        val status: Int,
        /** The records of a list response, else `null`. */
        val records: List<Record>?,
        /** The index or the single `data` object, else `null`. */
        val value: JsonObject?,
    ) : Event()

    /** One page of a pager; [last] when the pager is over after it. */
    data class Page(
        override val call: Long,
        /** The records, as received. */
        val records: List<Record>,
        /** The page's number: 1 for the first page. */
        val page: Long,
        /** Whether this was the final page. */
        val last: Boolean,
    ) : Event()

    /** A run poll answered (when the status changes, and for the terminal one). */
    data class RunStatus(
        override val call: Long,
        /** The run's status. */
        val status: String,
        /** Whether it is terminal (the poller is over). */
        val terminal: Boolean,
        /** The run object as received. */
        val run: Record,
    ) : Event()

    /** The call waits until [until] (Unix ms) because of [limit], if one, for [reason]. */
    data class Waiting(
        override val call: Long,
        /** The instant, Unix ms (the caller's clock). */
        val until: Long,
        /** The limit that makes it wait, when one does. */
        val limit: Limit?,
        /** Why. */
        val reason: WaitReason,
    ) : Event()

    /** A `Deprecation`/`Sunset` notice about [operationId]. */
    data class Deprecation(
        override val call: Long,
        /** The operation. */
        val operationId: String,
        /** Whether the `Deprecation` header said the operation is deprecated. */
        val deprecated: Boolean,
        /** When it is (or was) deprecated, Unix seconds, if the header gave a date. */
        val deprecatedAt: Long?,
        /** The `Sunset` instant, Unix seconds, if readable. */
        val sunsetAt: Long?,
        /** The `Link` target with `rel="deprecation"`. */
        val deprecationLink: String?,
        /** The `Link` target with `rel="sunset"`. */
        val sunsetLink: String?,
        /** One sentence per malformed or contradictory header value. */
        val malformed: List<String>,
    ) : Event()

    /** The call ended successfully (its last event). */
    data class Done(override val call: Long) : Event()

    /** The call ended with [error] (its last event). */
    data class Failed(
        override val call: Long,
        /** The typed exception, carrying the core's sentence, status, detail and body. */
        val error: AcdException,
    ) : Event()
}

private fun JsonElement?.text(): String? = (this as? JsonPrimitive)?.takeIf { it.isString }?.contentOrNull

private fun JsonElement?.number(): Long? = (this as? JsonPrimitive)?.takeIf { !it.isString }?.longOrNull

private fun JsonElement?.records(): List<Record> = (this as? JsonArray).orEmpty().map { Record(it as? JsonObject ?: JsonObject(emptyMap())) }

private fun reasonOf(reason: JsonElement?): WaitReason =
    when {
        reason is JsonObject && reason["backoff"] is JsonObject ->
            WaitReason.Backoff(((reason["backoff"] as JsonObject)["attempt"].number() ?: 0L).toInt())
        reason.text() == "retry_after" -> WaitReason.RetryAfter
        reason.text() == "poll_interval" -> WaitReason.PollInterval
        else -> WaitReason.Quota
    }

/** One entry of the core's drain (`{"call", "event", "message"?}`) as an [Event]. */
internal fun eventOf(entry: JsonObject): Event {
    val call = entry["call"].number() ?: -1L
    val event = entry["event"] as? JsonObject ?: JsonObject(emptyMap())
    return when (event["type"].text()) {
        "response" -> {
            val status = (event["status"].number() ?: 0L).toInt()
            when (event["kind"].text()) {
                "records" -> Event.Response(call, status, event["records"].records(), null)
                "index" -> Event.Response(call, status, null, event["index"] as? JsonObject)
                else -> Event.Response(call, status, null, event["value"] as? JsonObject)
            }
        }
        "page" ->
            Event.Page(call, event["records"].records(), event["page"].number() ?: 0L, (event["last"] as? JsonPrimitive)?.content == "true")
        "run_status" ->
            Event.RunStatus(
                call,
                event["status"].text() ?: "",
                (event["terminal"] as? JsonPrimitive)?.content == "true",
                Record(event["run"] as? JsonObject ?: JsonObject(emptyMap())),
            )
        "waiting" -> {
            val limit =
                (event["limit"] as? JsonObject)?.let {
                    Limit(it["name"].text() ?: "", it["requests"].number() ?: 0L, it["window_seconds"].number() ?: 0L)
                }
            Event.Waiting(call, event["until"].number() ?: 0L, limit, reasonOf(event["reason"]))
        }
        "deprecation" -> {
            val deprecated = event["deprecated"] as? JsonObject
            Event.Deprecation(
                call,
                event["operation_id"].text() ?: "",
                deprecated != null,
                deprecated?.get("unix_seconds").number(),
                event["sunset_at"].number(),
                event["deprecation_link"].text(),
                event["sunset_link"].text(),
                (event["malformed"] as? JsonArray).orEmpty().mapNotNull { it.text() },
            )
        }
        "done" -> Event.Done(call)
        else -> {
            // A failed event is the core's error itself (`kind`, `status`, ...); the
            // entry adds its category and sentence.
            val message = entry["message"].text() ?: event.toString()
            Event.Failed(call, exceptionFromCore(event, entry["category"].text(), message))
        }
    }
}
