// Settings in Kotlin form: RetryPolicy and CallOptions (durations are
// kotlin.time.Duration), and their translation into the core's JSON. Only
// the members a caller sets are sent: every default (attempts, backoff,
// quotas, URLs, the credential behind a bare key) is the core's, and every
// invalid value is refused by the core.
package dev.acd

import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.add
import kotlinx.serialization.json.addJsonArray
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonArray
import kotlinx.serialization.json.putJsonObject
import kotlin.time.Duration
import kotlin.time.toKotlinDuration

/** How calls are retried (429, 5xx, transport failures); a `null` member keeps the core's default. */
data class RetryPolicy(
    /** Attempts per call, the first included. */ val maxAttempts: Int? = null,
    /** No attempt starts later than this after the first. */ val deadline: Duration? = null,
    /** The longest `Retry-After` accepted. */ val maxRetryAfter: Duration? = null,
    /** The first backoff ceiling (full jitter below it). */ val backoffBase: Duration? = null,
    /** The largest backoff ceiling. */ val backoffCap: Duration? = null,
    /** 429s carrying `Retry-After` one call accepts before giving up. */ val maxThrottled: Int? = null,
) {
    /** The core's `RetryPolicy` JSON object with the members set here. */
    internal fun toCore(): JsonObject =
        buildJsonObject {
            maxAttempts?.let { put("max_attempts", it) }
            maxThrottled?.let { put("max_throttled", it) }
            deadline?.let { put("deadline_ms", it.inWholeMilliseconds) }
            maxRetryAfter?.let { put("max_retry_after_ms", it.inWholeMilliseconds) }
            if (backoffBase != null || backoffCap != null) {
                putJsonObject("backoff") {
                    backoffBase?.let { put("base_ms", it.inWholeMilliseconds) }
                    backoffCap?.let { put("cap_ms", it.inWholeMilliseconds) }
                }
            }
        }
}

/**
 * Options of one call (every method takes them): [timeout] bounds the whole
 * call, waits and retries included; [headers] are added to each attempt
 * (e.g. `Prefer`); [maxAttempts] replaces the retry policy's for this call.
 */
data class CallOptions(
    /** The bound of the whole call (`null`: none). */ val timeout: Duration? = null,
    /** Extra headers for each attempt. */ val headers: Map<String, String> = emptyMap(),
    /** Attempts for this call, the first included (`null`: the policy's). */ val maxAttempts: Int? = null,
) {
    /** The driver protocol's `options` object. */
    internal fun toJson(): JsonObject =
        buildJsonObject {
            if (headers.isNotEmpty()) {
                putJsonArray("headers") { headers.forEach { (name, value) -> addJsonArray { add(name); add(value) } } }
            }
            maxAttempts?.let { put("max_attempts", it) }
            timeout?.let { put("timeout_ms", it.inWholeMilliseconds) }
        }

    /** Constructors for Java. */
    companion object {
        /** No option set. */
        @JvmField
        val NONE: CallOptions = CallOptions()

        /** Options from Java types (`java.time.Duration`; `null` keeps a default). */
        @JvmStatic
        @JvmOverloads
        fun of(
            timeout: java.time.Duration? = null, headers: Map<String, String> = emptyMap(), maxAttempts: Int? = null,
        ): CallOptions = CallOptions(timeout?.toKotlinDuration(), headers, maxAttempts)
    }
}

/**
 * The driver protocol's config JSON for a client's arguments, with `env`:
 * `ACD_API_KEY` and `ACD_BASE_URL` as this process sees them (the core uses
 * them where the caller set nothing).
 */
internal fun configJson(apiKey: String?, baseUrl: String?, retry: RetryPolicy?, seed: Long?, maxBodyBytes: Long?, token: String? = null): JsonObject =
    buildJsonObject {
        apiKey?.let { put("api_key", it) }
        token?.let { put("token", it) }
        baseUrl?.let { put("base_url", it) }
        retry?.let { put("retry", it.toCore()) }
        seed?.let { put("seed", it) }
        maxBodyBytes?.let { put("max_body_bytes", it) }
        putJsonObject("env") { listOf("ACD_API_KEY", "ACD_BASE_URL").forEach { name -> System.getenv(name)?.let { put(name, it) } } }
    }
