// The exceptions of dev.acd: one class per error category of the core
// (docs/sdk.md, "Errors, from the core's categories"), all under
// AcdException; AcdTimeoutException is a ConnectionException. Every sentence
// and category comes from the core; the one table below picks the class.
package dev.acd

import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive

/**
 * Base of every exception dev.acd throws.
 *
 * @property category the core's error category (`config`, `request`,
 *   `rate_limit`, ...).
 * @property status the HTTP status when a response caused it, else `null`.
 * @property detail the API's own `detail` when it sent an Error body, else
 *   the core's sentence.
 * @property body the API's Error body when it sent one, else `null`.
 */
open class AcdException(
    message: String,
    val category: String = "protocol",
    val status: Int? = null,
    detail: String? = null,
    val body: JsonObject? = null,
    cause: Throwable? = null,
) : RuntimeException(message, cause) {
    /** The sentence to act on (the message when the API sent no detail). */
    val detail: String = detail ?: message

    /** The class name, status and detail (never a credential). */
    override fun toString(): String = "${this::class.simpleName}(status=$status, detail=$detail)"
}

/** A setting was refused, or the client was used after [AcdHttpClient.close]. */
class ConfigException(message: String, cause: Throwable? = null) : AcdException(message, "config", cause = cause)

/** A call refused before anything was sent (a parameter, header or operation). */
class RequestException(message: String) : AcdException(message, "request")

/** 400: the API refused the request. */
class BadRequestException(message: String, status: Int?, detail: String?, body: JsonObject?) :
    AcdException(message, "request", status, detail, body)

/** 401: the credential is missing, unknown, expired or not accepted. */
class AuthenticationException(message: String, status: Int?, detail: String?, body: JsonObject?) :
    AcdException(message, "authentication", status, detail, body)

/** 403: the credential may not do this. */
class PermissionException(message: String, status: Int?, detail: String?, body: JsonObject?) :
    AcdException(message, "permission", status, detail, body)

/** 404: the table, connection, run or path does not exist. */
class NotFoundException(message: String, status: Int?, detail: String?, body: JsonObject?) :
    AcdException(message, "not_found", status, detail, body)

/**
 * A 429 that outlasted the retry policy (the client throttles itself first).
 *
 * @property retryAt when the server said to come back, Unix ms, if it did.
 */
class RateLimitException(message: String, status: Int?, detail: String?, body: JsonObject?, val retryAt: Long?) :
    AcdException(message, "rate_limit", status, detail, body)

/** A 5xx that outlasted the retry policy. */
class ServerException(message: String, status: Int?, detail: String?, body: JsonObject?) :
    AcdException(message, "server", status, detail, body)

/** No HTTP response: the connection failed or broke. */
open class ConnectionException(message: String, category: String = "connection") : AcdException(message, category)

/** No response in time (the transport's or the call's `timeout`). */
class AcdTimeoutException(message: String) : ConnectionException(message, "timeout")

/**
 * The one table: the exception for an error of the driver protocol
 * (`type`, `category`, `message`, and `status`, `detail`, `body`,
 * `retry_at` when present).
 */
internal fun exceptionOf(error: JsonObject): AcdException {
    val message = error.str("message") ?: error.toString()
    val status = error.long("status")?.toInt()
    // A gave-up error names the last attempt's error in `last`: the API's
    // `detail` and other members are there.
    var last = error
    while (last["last"] is JsonObject) last = last["last"] as JsonObject
    val detail = error.str("detail") ?: last.str("detail")
    val body =
        error["body"] as? JsonObject ?: detail?.let {
            JsonObject(mapOf("detail" to JsonPrimitive(it), "status" to JsonPrimitive(status)) + ((last["extra"] as? JsonObject) ?: emptyMap()))
        }
    return when (val category = error.str("category") ?: "protocol") {
        "config" -> ConfigException(message)
        "request" -> if (status == null) RequestException(message) else BadRequestException(message, status, detail, body)
        "authentication" -> AuthenticationException(message, status, detail, body)
        "permission" -> PermissionException(message, status, detail, body)
        "not_found" -> NotFoundException(message, status, detail, body)
        "rate_limit" -> RateLimitException(message, status, detail, body, error.long("retry_at") ?: last.long("retry_at"))
        "server" -> ServerException(message, status, detail, body)
        "connection", "interrupted" -> ConnectionException(message, category)
        "timeout" -> AcdTimeoutException(message)
        else -> AcdException(message, category, status, detail, body)
    }
}
