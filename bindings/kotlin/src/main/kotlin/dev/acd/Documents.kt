// The documents the API returns: records stay JSON objects (AcdRecord, with
// typed readers and a generic decode), the API index and runs are typed data
// classes. Plus the small JSON readers the package shares.
package dev.acd

import kotlinx.serialization.KSerializer
import kotlinx.serialization.SerialName
import kotlinx.serialization.Serializable
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.booleanOrNull
import kotlinx.serialization.json.contentOrNull
import kotlinx.serialization.json.longOrNull
import kotlinx.serialization.serializer
import kotlin.time.Duration
import kotlin.time.toJavaDuration
import kotlin.time.Duration.Companion.seconds

/** The package's JSON reader: unknown members are kept in `json`, not refused. */
internal val JSON =
    Json {
        ignoreUnknownKeys = true
        coerceInputValues = true
    }

internal fun JsonObject.str(name: String): String? = (this[name] as? JsonPrimitive)?.takeIf { it.isString }?.contentOrNull

internal fun JsonObject.long(name: String): Long? = (this[name] as? JsonPrimitive)?.takeIf { !it.isString && it !is JsonNull }?.longOrNull

internal fun JsonObject.bool(name: String): Boolean? = (this[name] as? JsonPrimitive)?.takeIf { !it.isString }?.booleanOrNull

/**
 * One record of a table or a connection entity: the JSON object as the API
 * sent it, compared by content. `record["id"]` is the raw member; [string],
 * [long] and [boolean] read one of that type (`null` when absent or of
 * another type); [decode] turns the record into a class of yours.
 */
data class AcdRecord(
    /** The record as received. */ val json: JsonObject,
) {
    /** The member [name], as received (`null` when absent). */
    operator fun get(name: String): JsonElement? = json[name]

    /** The member [name] when it is a JSON string (`getString` from Java). */
    @JvmName("getString")
    fun string(name: String): String? = json.str(name)

    /** The member [name] when it is a JSON integer that fits a `Long` (`getLong` from Java). */
    @JvmName("getLong")
    fun long(name: String): Long? = json.long(name)

    /** The member [name] when it is a JSON boolean (`getBoolean` from Java). */
    @JvmName("getBoolean")
    fun boolean(name: String): Boolean? = json.bool(name)

    /**
     * The record decoded with [deserializer] (members it does not name are
     * ignored).
     *
     * @throws RequestException when the record does not fit.
     */
    fun <T> decode(deserializer: KSerializer<T>): T =
        try {
            JSON.decodeFromJsonElement(deserializer, json)
        } catch (error: IllegalArgumentException) {
            throw RequestException("the record ${json["id"] ?: ""} does not decode as ${deserializer.descriptor.serialName}: ${error.message}")
        }

    /** The record as compact JSON text. */
    override fun toString(): String = json.toString()
}

/** The record decoded as a `@Serializable` class [T]; see [AcdRecord.decode]. */
inline fun <reified T> AcdRecord.decode(): T = decode(serializer<T>())

/** An agent run: its `id` and `status`, the sandbox's other members when sent, and the object as received. */
data class Run(
    /** The run's id. */ val id: String,
    /** Its status, e.g. `queued`, `running`, `succeeded`, `failed`. */ val status: String,
    /** The agent it runs, when sent. */ val agentId: String?,
    /** When it was created, Unix ms, when sent. */ val createdAtMs: Long?,
    /** When its current status began, Unix ms, when sent. */ val updatedAtMs: Long?,
    /** The run object as received. */ val json: JsonObject,
)

/** A run from its JSON object (bare, or inside a `data` envelope). */
internal fun runOf(value: JsonElement?): Run {
    val obj = ((value as? JsonObject)?.get("data") as? JsonObject) ?: (value as? JsonObject)
    val id = obj?.str("id")
    val status = obj?.str("status")
    if (obj == null || id == null || status == null) throw AcdException("the API sent no run with an id and a status: $value")
    return Run(id, status, obj.str("agent_id"), obj.long("created_at_ms"), obj.long("updated_at_ms"), obj)
}

/** The API index (`GET /api/v1`), as the spec describes it. */
@Serializable
data class ApiIndex(
    /** Human-readable API name. */ val name: String,
    /** What the API does. */ val description: String? = null,
    /** The current major version, e.g. `v1`. */ val version: String,
    /** The absolute base URL of every operation. */ @SerialName("base_url") val baseUrl: String,
    /** Documentation. */ @SerialName("documentation_url") val documentationUrl: String,
    /** The machine-readable specification. */ @SerialName("openapi_url") val openapiUrl: String,
    /** The developers' page. */ @SerialName("developers_url") val developersUrl: String,
    /** The `llms.txt`, if any. */ @SerialName("llms_txt_url") val llmsTxtUrl: String? = null,
    /** The accepted credential types. */ val authentication: Authentication,
    /** How to get access. */ val onboarding: JsonObject,
    /** The advertised rate limit. */ @SerialName("rate_limits") val rateLimits: RateLimits,
    /** How versions and deprecations are signalled. */ val versioning: Versioning,
    /** Top-level resource name to URL (templates included). */ val resources: Map<String, String>,
    /** The official clients, if listed. */ val clients: JsonObject? = null,
    /** Webhook documentation, if any. */ @SerialName("webhooks_documentation_url") val webhooksDocumentationUrl: String? = null,
) {
    /** The credential types the API accepts. */
    @Serializable
    data class Authentication(
        /** Each accepted type (`type`, `documentation_url`, ...), as sent. */ val methods: List<JsonObject>,
    )

    /** The advertised rate limit. */
    @Serializable
    data class RateLimits(
        /** Requests per window. */ val requests: Long,
        /** The window, in seconds. */ @SerialName("window_seconds") val windowSeconds: Long,
        /** What the limit is counted against. */ val scope: String? = null,
        /** The rate-limit response headers. */ @SerialName("response_headers") val responseHeaders: List<String>,
    )

    /** Versioning. */
    @Serializable
    data class Versioning(
        /** Always `url_path`. */ val strategy: String,
        /** The current version. */ @SerialName("current_version") val currentVersion: String,
        /** The deprecation header names. */ @SerialName("deprecation_headers") val deprecationHeaders: List<String> = emptyList(),
        /** Days between a `Deprecation` header and its `Sunset` date. */
        @SerialName("minimum_sunset_notice_days") val minimumSunsetNoticeDays: Long? = null,
    )
}

/** The index from its JSON object. */
internal fun indexOf(value: JsonElement): ApiIndex =
    try {
        JSON.decodeFromJsonElement(ApiIndex.serializer(), value)
    } catch (error: IllegalArgumentException) {
        throw AcdException("the API index does not match the spec: ${error.message}", cause = error)
    }

/** The throttle's current view of one limit ([AcdHttpClient.limits]); Java reads [window] as a `java.time.Duration` (`getWindow()`). */
class LimitState(
    /** The limit's name, e.g. `user_table_reads`. */ val name: String,
    /** Requests per window. */ val requests: Long,
    /** The window. */ @get:JvmSynthetic @get:JvmName("windowKotlin") val window: Duration,
    /** Requests left in the current window. */ val remaining: Long,
    /** When the current window ends, Unix ms; `null` until a send opens one. */ val resetAt: Long?,
) {
    /** [window] for Java. */
    @JvmName("getWindow")
    fun javaWindow(): java.time.Duration = window.toJavaDuration()

    /** A copy with the given members replaced. */
    @JvmSynthetic
    @JvmName("copy")
    fun copy(
        name: String = this.name, requests: Long = this.requests, window: Duration = this.window, remaining: Long = this.remaining,
        resetAt: Long? = this.resetAt,
    ): LimitState = LimitState(name, requests, window, remaining, resetAt)

    /** [name]. */ operator fun component1(): String = name

    /** [requests]. */ operator fun component2(): Long = requests

    /** [window]. */ @JvmSynthetic @JvmName("component3") operator fun component3(): Duration = window

    /** [remaining]. */ operator fun component4(): Long = remaining

    /** [resetAt]. */ operator fun component5(): Long? = resetAt

    private fun members(): List<Any?> = listOf(name, requests, window, remaining, resetAt)

    /** Equal when every member is. */
    override fun equals(other: Any?): Boolean = other is LimitState && members() == other.members()

    /** From every member. */
    override fun hashCode(): Int = members().hashCode()

    /** Every member, as a data class shows them. */
    override fun toString(): String = "LimitState(name=$name, requests=$requests, window=$window, remaining=$remaining, resetAt=$resetAt)"
}

/** A limit view from the core's JSON object. */
internal fun limitOf(value: JsonObject): LimitState =
    LimitState(value.str("name") ?: "", value.long("requests") ?: 0, (value.long("window_seconds") ?: 0).seconds, value.long("remaining") ?: 0, value.long("reset_at"))
