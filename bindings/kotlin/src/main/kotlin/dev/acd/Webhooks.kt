// Webhooks: verify the API's run lifecycle webhooks (Standard Webhooks:
// webhook-id, webhook-timestamp, webhook-signature; secrets whsec_...) in the
// Rust core, and sign payloads for a handler's tests. Every check, bound and
// default (the 5-minute tolerance) is the core's; this file converts the
// arguments and the core's JSON answer (docs/webhooks.md).
package dev.acd

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonObject
import java.security.SecureRandom
import java.time.Duration
import java.time.Instant

/**
 * A webhook delivery failed verification ([Webhooks.verify], [Webhooks.unwrap]).
 *
 * @property code the core's reason: `missing_header`, `bad_timestamp`,
 *   `timestamp_out_of_tolerance`, `no_matching_signature`, `bad_secret` or
 *   `bad_payload`. Answer such a delivery with a 400.
 */
class WebhookVerificationException(message: String, val code: String) : AcdException(message, "webhook") {
    /** The class name and code (never a secret). */
    override fun toString(): String = "WebhookVerificationException(code=$code, detail=$detail)"
}

/**
 * A verified webhook.
 *
 * @property id `webhook-id`: the same on every attempt of one event; dedupe on it.
 * @property webhookTimestamp `webhook-timestamp`: when this attempt was signed, Unix seconds.
 * @property type the event type, e.g. `run.succeeded`.
 * @property timestamp when the event happened (RFC 3339, UTC).
 * @property data the payload's `data` object.
 * @property run from [Webhooks.unwrap]: the run of a run lifecycle event, else `null`.
 */
data class WebhookEvent(
    val id: String,
    val webhookTimestamp: Long,
    val type: String,
    val timestamp: String,
    val data: JsonObject,
    val run: Run?,
)

/** A signed delivery from [Webhooks.sign]: POST [body] with [headers] to the handler under test. */
class SignedWebhook(val body: ByteArray, val headers: Map<String, String>) {
    /** The body as UTF-8 text. */
    fun bodyText(): String = body.decodeToString()

    /** The headers (the body is not shown). */
    override fun toString(): String = "SignedWebhook(headers=$headers)"
}

/**
 * Verification of the API's webhooks, in the core. From Java:
 * `Webhooks.verify(body, headers, List.of("whsec_..."))`.
 *
 * Pass the **raw body** exactly as received (bytes or text): a parsed and
 * re-serialised body does not verify. `headers` is every header of the
 * request; a value may be a string or a list of strings (as
 * `com.sun.net.httpserver.Headers` gives them). Several secrets verify a
 * rotation. `now` defaults to the wall clock, `tolerance` to the core's
 * default (5 minutes).
 */
object Webhooks {
    private val random = SecureRandom()

    /** Verifies a delivery: its event, or throws [WebhookVerificationException]. */
    @JvmStatic
    @JvmOverloads
    fun verify(body: ByteArray, headers: Map<String, *>, secrets: List<String>, tolerance: Duration? = null, now: Instant? = null): WebhookEvent =
        check(body, headers, secrets, tolerance, now, decodeRun = false)

    /** [verify] with one secret. */
    @JvmStatic
    @JvmOverloads
    fun verify(body: ByteArray, headers: Map<String, *>, secret: String, tolerance: Duration? = null, now: Instant? = null): WebhookEvent =
        check(body, headers, listOf(secret), tolerance, now, decodeRun = false)

    /** [verify] of a body received as text (its UTF-8 bytes are verified). */
    @JvmStatic
    @JvmOverloads
    fun verify(body: String, headers: Map<String, *>, secrets: List<String>, tolerance: Duration? = null, now: Instant? = null): WebhookEvent =
        check(body.encodeToByteArray(), headers, secrets, tolerance, now, decodeRun = false)

    /** [verify] of a body received as text, with one secret. */
    @JvmStatic
    @JvmOverloads
    fun verify(body: String, headers: Map<String, *>, secret: String, tolerance: Duration? = null, now: Instant? = null): WebhookEvent =
        check(body.encodeToByteArray(), headers, listOf(secret), tolerance, now, decodeRun = false)

    /**
     * [verify], then the typed decode of a run lifecycle event (`run.queued`,
     * `run.running`, `run.succeeded`, `run.failed`, `run.cancelled`):
     * [WebhookEvent.run] is its run (`bad_payload` when `data.run` is not a
     * run); other event types get `run = null`.
     */
    @JvmStatic
    @JvmOverloads
    fun unwrap(body: ByteArray, headers: Map<String, *>, secrets: List<String>, tolerance: Duration? = null, now: Instant? = null): WebhookEvent =
        check(body, headers, secrets, tolerance, now, decodeRun = true)

    /** [unwrap] with one secret. */
    @JvmStatic
    @JvmOverloads
    fun unwrap(body: ByteArray, headers: Map<String, *>, secret: String, tolerance: Duration? = null, now: Instant? = null): WebhookEvent =
        check(body, headers, listOf(secret), tolerance, now, decodeRun = true)

    /** [unwrap] of a body received as text. */
    @JvmStatic
    @JvmOverloads
    fun unwrap(body: String, headers: Map<String, *>, secrets: List<String>, tolerance: Duration? = null, now: Instant? = null): WebhookEvent =
        check(body.encodeToByteArray(), headers, secrets, tolerance, now, decodeRun = true)

    /** [unwrap] of a body received as text, with one secret. */
    @JvmStatic
    @JvmOverloads
    fun unwrap(body: String, headers: Map<String, *>, secret: String, tolerance: Duration? = null, now: Instant? = null): WebhookEvent =
        check(body.encodeToByteArray(), headers, listOf(secret), tolerance, now, decodeRun = true)

    /**
     * Signs [body] as the API signs a delivery, for a handler's tests, with
     * every secret in [secrets] (one signature each): `id` defaults to `msg_`
     * and a random hex, `timestamp` to the wall clock (whole seconds).
     */
    @JvmStatic
    @JvmOverloads
    fun sign(body: ByteArray, secrets: List<String>, id: String? = null, timestamp: Instant? = null): SignedWebhook {
        val messageId = id ?: "msg_" + ByteArray(12).also(random::nextBytes).joinToString("") { "%02x".format(it) }
        val seconds = (timestamp ?: Instant.now()).epochSecond
        val answer = answer(
            native { acd.webhookSignJson(secrets, messageId, seconds, body) },
        )
        val headers = answer.getValue("headers").jsonObject.mapValues { (it.value as JsonPrimitive).content }
        return SignedWebhook(body, headers)
    }

    /** [sign] of a text body with one secret. */
    @JvmStatic
    @JvmOverloads
    fun sign(body: String, secret: String, id: String? = null, timestamp: Instant? = null): SignedWebhook =
        sign(body.encodeToByteArray(), listOf(secret), id, timestamp)

    private fun headerList(headers: Map<String, *>): List<acd.Header> =
        headers.mapNotNull { (name, value) ->
            val text = when (value) {
                null -> return@mapNotNull null
                is String -> value
                is Iterable<*> -> value.joinToString(", ")
                is Array<*> -> value.joinToString(", ")
                else -> value.toString()
            }
            acd.Header(name, text.toByteArray(Charsets.ISO_8859_1))
        }

    private fun check(body: ByteArray, headers: Map<String, *>, secrets: List<String>, tolerance: Duration?, now: Instant?, decodeRun: Boolean): WebhookEvent {
        val nowMs = (now ?: Instant.now()).toEpochMilli()
        val answer = answer(
            native { acd.webhookVerifyJson(body, headerList(headers), secrets, nowMs, tolerance?.toMillis(), decodeRun) },
        )
        val event = answer.getValue("event").jsonObject
        val run = event["run"]?.takeIf { it !is JsonNull }?.let(::runOf)
        return WebhookEvent(
            id = event.str("id") ?: "",
            webhookTimestamp = event.long("webhook_timestamp") ?: 0,
            type = event.str("type") ?: "",
            timestamp = event.str("timestamp") ?: "",
            data = event["data"] as? JsonObject ?: JsonObject(emptyMap()),
            run = run,
        )
    }

    private inline fun native(call: () -> String): String =
        try {
            call()
        } catch (error: acd.AcdException) {
            throw IllegalArgumentException(error.message, error)
        }

    private fun answer(json: String): JsonObject {
        val parsed = Json.parseToJsonElement(json).jsonObject
        val error = parsed["error"] as? JsonObject
        if (error != null) throw WebhookVerificationException(error.str("message") ?: "", error.str("code") ?: "")
        return parsed
    }
}
