// Client settings in Kotlin form: RetryPolicy, and the translation of the
// client's arguments into the core's configuration JSON. Only the members a
// caller sets are sent; every default (attempts, backoff, quotas, URLs) is
// the core's, and every invalid value is refused by the core.
package dev.acd

import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.addJsonObject
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonArray
import kotlinx.serialization.json.putJsonObject

/**
 * How calls are retried (429, 5xx, transport failures). A `null` member
 * keeps the core's default.
 */
data class RetryPolicy
    @JvmOverloads
    constructor(
        /** Attempts per call, the first included. */
        val maxAttempts: Int? = null,
        /** No attempt starts later than this many ms after the first. */
        val deadlineMs: Long? = null,
        /** The longest `Retry-After` accepted, in ms. */
        val maxRetryAfterMs: Long? = null,
        /** The first backoff ceiling in ms (full jitter below it). */
        val backoffBaseMs: Long? = null,
        /** The largest backoff ceiling in ms. */
        val backoffCapMs: Long? = null,
        /** 429s carrying `Retry-After` one call accepts before giving up (the core's `max_throttled`). */
        val maxThrottled: Int? = null,
    ) {
        /** The core's `RetryPolicy` JSON object with the members set here. */
        fun toCore(): JsonObject =
            buildJsonObject {
                maxAttempts?.let { put("max_attempts", it) }
                maxThrottled?.let { put("max_throttled", it) }
                deadlineMs?.let { put("deadline_ms", it) }
                maxRetryAfterMs?.let { put("max_retry_after_ms", it) }
                if (backoffBaseMs != null || backoffCapMs != null) {
                    putJsonObject("backoff") {
                        backoffBaseMs?.let { put("base_ms", it) }
                        backoffCapMs?.let { put("cap_ms", it) }
                    }
                }
            }
    }

/**
 * The core configuration for a client's arguments; [apiKey] and [baseUrl]
 * fall back to the `ACD_API_KEY` and `ACD_BASE_URL` environment variables.
 */
internal fun clientConfigJson(
    apiKey: String?,
    baseUrl: String?,
    user: String?,
    retry: RetryPolicy?,
    seed: Long?,
    maxBodyBytes: Long? = null,
): String {
    val key = apiKey ?: System.getenv("ACD_API_KEY")
    val url = baseUrl ?: System.getenv("ACD_BASE_URL")
    return buildJsonObject {
        url?.let { put("base_url", it.trimEnd('/')) }
        if (key != null) {
            putJsonArray("credentials") {
                addJsonObject {
                    put("id", "main")
                    put("kind", "api_key")
                    put("secret", key)
                    put("user", user ?: "main")
                }
            }
        }
        retry?.let { put("retry", it.toCore()) }
        seed?.let { put("seed", it) }
        maxBodyBytes?.let { put("max_body_bytes", it) }
    }.toString()
}
