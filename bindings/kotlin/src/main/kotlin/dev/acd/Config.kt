// Settings in Kotlin form: RetryPolicy and CallOptions (durations are
// kotlin.time.Duration; Java builds them with builders of java.time.Duration
// and sees no mangled name), and their translation into the core's JSON. Only
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
import kotlin.time.toJavaDuration
import kotlin.time.toKotlinDuration

/**
 * How calls are retried (429, 5xx, transport failures); a `null` member keeps the core's default.
 *
 * From Java: `RetryPolicy.builder().maxAttempts(5).deadline(Duration.ofSeconds(30)).build()`
 * (`java.time.Duration`), and `getDeadline()` and the other getters answer `java.time.Duration`s.
 */
class RetryPolicy(
    /** Attempts per call, the first included. */ val maxAttempts: Int? = null,
    /** No attempt starts later than this after the first. */
    @get:JvmSynthetic @get:JvmName("deadlineKotlin") val deadline: Duration? = null,
    /** The longest `Retry-After` accepted. */
    @get:JvmSynthetic @get:JvmName("maxRetryAfterKotlin") val maxRetryAfter: Duration? = null,
    /** The first backoff ceiling (full jitter below it). */
    @get:JvmSynthetic @get:JvmName("backoffBaseKotlin") val backoffBase: Duration? = null,
    /** The largest backoff ceiling. */
    @get:JvmSynthetic @get:JvmName("backoffCapKotlin") val backoffCap: Duration? = null,
    /** 429s carrying `Retry-After` one call accepts before giving up. */ val maxThrottled: Int? = null,
) {
    /** [deadline] for Java. */
    @JvmName("getDeadline")
    fun javaDeadline(): java.time.Duration? = deadline?.toJavaDuration()

    /** [maxRetryAfter] for Java. */
    @JvmName("getMaxRetryAfter")
    fun javaMaxRetryAfter(): java.time.Duration? = maxRetryAfter?.toJavaDuration()

    /** [backoffBase] for Java. */
    @JvmName("getBackoffBase")
    fun javaBackoffBase(): java.time.Duration? = backoffBase?.toJavaDuration()

    /** [backoffCap] for Java. */
    @JvmName("getBackoffCap")
    fun javaBackoffCap(): java.time.Duration? = backoffCap?.toJavaDuration()

    /** A copy with the given members replaced. */
    @JvmSynthetic
    @JvmName("copy")
    fun copy(
        maxAttempts: Int? = this.maxAttempts, deadline: Duration? = this.deadline, maxRetryAfter: Duration? = this.maxRetryAfter,
        backoffBase: Duration? = this.backoffBase, backoffCap: Duration? = this.backoffCap, maxThrottled: Int? = this.maxThrottled,
    ): RetryPolicy = RetryPolicy(maxAttempts, deadline, maxRetryAfter, backoffBase, backoffCap, maxThrottled)

    /** [maxAttempts]. */ operator fun component1(): Int? = maxAttempts

    /** [deadline]. */ @JvmSynthetic @JvmName("component2") operator fun component2(): Duration? = deadline

    /** [maxRetryAfter]. */ @JvmSynthetic @JvmName("component3") operator fun component3(): Duration? = maxRetryAfter

    /** [backoffBase]. */ @JvmSynthetic @JvmName("component4") operator fun component4(): Duration? = backoffBase

    /** [backoffCap]. */ @JvmSynthetic @JvmName("component5") operator fun component5(): Duration? = backoffCap

    /** [maxThrottled]. */ operator fun component6(): Int? = maxThrottled

    private fun members(): List<Any?> = listOf(maxAttempts, deadline, maxRetryAfter, backoffBase, backoffCap, maxThrottled)

    /** Equal when every member is. */
    override fun equals(other: Any?): Boolean = other is RetryPolicy && members() == other.members()

    /** From every member. */
    override fun hashCode(): Int = members().hashCode()

    /** Every member, as a data class shows them. */
    override fun toString(): String =
        "RetryPolicy(maxAttempts=$maxAttempts, deadline=$deadline, maxRetryAfter=$maxRetryAfter, backoffBase=$backoffBase, " +
            "backoffCap=$backoffCap, maxThrottled=$maxThrottled)"

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

    /** A [RetryPolicy] built member by member (Java); an unset member keeps the core's default. */
    class Builder {
        private var maxAttempts: Int? = null
        private var deadline: Duration? = null
        private var maxRetryAfter: Duration? = null
        private var backoffBase: Duration? = null
        private var backoffCap: Duration? = null
        private var maxThrottled: Int? = null

        /** Attempts per call, the first included. */
        fun maxAttempts(value: Int?): Builder = apply { maxAttempts = value }

        /** No attempt starts later than this after the first. */
        fun deadline(value: java.time.Duration?): Builder = apply { deadline = value?.toKotlinDuration() }

        /** The longest `Retry-After` accepted. */
        fun maxRetryAfter(value: java.time.Duration?): Builder = apply { maxRetryAfter = value?.toKotlinDuration() }

        /** The first backoff ceiling. */
        fun backoffBase(value: java.time.Duration?): Builder = apply { backoffBase = value?.toKotlinDuration() }

        /** The largest backoff ceiling. */
        fun backoffCap(value: java.time.Duration?): Builder = apply { backoffCap = value?.toKotlinDuration() }

        /** 429s carrying `Retry-After` one call accepts. */
        fun maxThrottled(value: Int?): Builder = apply { maxThrottled = value }

        /** The policy (the core checks it when a client takes it). */
        fun build(): RetryPolicy = RetryPolicy(maxAttempts, deadline, maxRetryAfter, backoffBase, backoffCap, maxThrottled)
    }

    /** The Java entry point. */
    companion object {
        /** An empty [Builder]. */
        @JvmStatic
        fun builder(): Builder = Builder()
    }
}

/**
 * Options of one call (every method takes them): [timeout] bounds the whole
 * call, waits and retries included; [headers] are added to each attempt
 * (e.g. `Prefer`); [maxAttempts] replaces the retry policy's for this call.
 * From Java: `CallOptions.of(Duration.ofSeconds(5))` or `CallOptions.builder()`.
 */
class CallOptions(
    /** The bound of the whole call (`null`: none). */
    @get:JvmSynthetic @get:JvmName("timeoutKotlin") val timeout: Duration? = null,
    /** Extra headers for each attempt. */ val headers: Map<String, String> = emptyMap(),
    /** Attempts for this call, the first included (`null`: the policy's). */ val maxAttempts: Int? = null,
) {
    /** [timeout] for Java. */
    @JvmName("getTimeout")
    fun javaTimeout(): java.time.Duration? = timeout?.toJavaDuration()

    /** A copy with the given members replaced. */
    @JvmSynthetic
    @JvmName("copy")
    fun copy(
        timeout: Duration? = this.timeout, headers: Map<String, String> = this.headers, maxAttempts: Int? = this.maxAttempts,
    ): CallOptions = CallOptions(timeout, headers, maxAttempts)

    /** [timeout]. */ @JvmSynthetic @JvmName("component1") operator fun component1(): Duration? = timeout

    /** [headers]. */ operator fun component2(): Map<String, String> = headers

    /** [maxAttempts]. */ operator fun component3(): Int? = maxAttempts

    /** Equal when every member is. */
    override fun equals(other: Any?): Boolean =
        other is CallOptions && timeout == other.timeout && headers == other.headers && maxAttempts == other.maxAttempts

    /** From every member. */
    override fun hashCode(): Int = listOf(timeout, headers, maxAttempts).hashCode()

    /** Every member (header values included: put no secret in them). */
    override fun toString(): String = "CallOptions(timeout=$timeout, headers=$headers, maxAttempts=$maxAttempts)"

    /** The driver protocol's `options` object. */
    internal fun toJson(): JsonObject =
        buildJsonObject {
            if (headers.isNotEmpty()) {
                putJsonArray("headers") { headers.forEach { (name, value) -> addJsonArray { add(name); add(value) } } }
            }
            maxAttempts?.let { put("max_attempts", it) }
            timeout?.let { put("timeout_ms", it.inWholeMilliseconds) }
        }

    /** [CallOptions] built member by member (Java). */
    class Builder {
        private var timeout: Duration? = null
        private val headers = LinkedHashMap<String, String>()
        private var maxAttempts: Int? = null

        /** The bound of the whole call. */
        fun timeout(value: java.time.Duration?): Builder = apply { timeout = value?.toKotlinDuration() }

        /** One more header for each attempt. */
        fun header(name: String, value: String): Builder = apply { headers[name] = value }

        /** Attempts for this call, the first included. */
        fun maxAttempts(value: Int?): Builder = apply { maxAttempts = value }

        /** The options. */
        fun build(): CallOptions = CallOptions(timeout, headers.toMap(), maxAttempts)
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

        /** An empty [Builder]. */
        @JvmStatic
        fun builder(): Builder = Builder()
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
