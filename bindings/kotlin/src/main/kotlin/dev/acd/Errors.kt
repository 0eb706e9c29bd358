// The exceptions of dev.acd: one class per error category of the core
// (docs/sdk.md, "Errors, from the core's categories"), all under
// AcdException; AcdTimeoutException is a ConnectionException. Every sentence
// and category comes from the core; the one table below picks the class.
package dev.acd

import kotlinx.serialization.json.JsonObject

/**
 * Base of every exception dev.acd throws.
 *
 * @property category the core's error category (`config`,
 *   `invalid_request`, `bad_request`, `rate_limit`, ...).
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

/** A call refused before anything was sent (a parameter, header or operation): `invalid_request`. */
class RequestException(message: String) : AcdException(message, "invalid_request")

/**
 * Base of the errors of a call that started: the API answered an error,
 * broke its contract, or the transport failed (as Python's `APIError`);
 * config and request errors are not under it.
 */
open class AcdApiException(
    message: String,
    category: String,
    status: Int? = null,
    detail: String? = null,
    body: JsonObject? = null,
) : AcdException(message, category, status, detail, body)

/** 400 and any other 4xx the API answered (409, 418, 422...): `bad_request`. */
class BadRequestException(message: String, status: Int?, detail: String?, body: JsonObject?) :
    AcdApiException(message, "bad_request", status, detail, body)

/** 401: the credential is missing, unknown, expired or not accepted. */
class AuthenticationException(message: String, status: Int?, detail: String?, body: JsonObject?) :
    AcdApiException(message, "authentication", status, detail, body)

/** 403: the credential may not do this. */
class PermissionException(message: String, status: Int?, detail: String?, body: JsonObject?) :
    AcdApiException(message, "permission", status, detail, body)

/** 404: the table, connection, run or path does not exist. */
class NotFoundException(message: String, status: Int?, detail: String?, body: JsonObject?) :
    AcdApiException(message, "not_found", status, detail, body)

/**
 * A 429 that outlasted the retry policy (the client throttles itself first).
 *
 * @property retryAt when the server said to come back, Unix ms, if it did.
 */
class RateLimitException(message: String, status: Int?, detail: String?, body: JsonObject?, val retryAt: Long?) :
    AcdApiException(message, "rate_limit", status, detail, body)

/** A 5xx that outlasted the retry policy. */
class ServerException(message: String, status: Int?, detail: String?, body: JsonObject?) :
    AcdApiException(message, "server", status, detail, body)

/** The response broke the API's contract (a redirect, a malformed or over-large body). */
class AcdProtocolException(message: String, status: Int?, detail: String?, body: JsonObject?) :
    AcdApiException(message, "protocol", status, detail, body)

/** No HTTP response: the connection failed or broke. */
open class ConnectionException(message: String, category: String = "connection") : AcdApiException(message, category)

/** No response in time (the transport's or the call's `timeout`, or a run wait's). */
class AcdTimeoutException(message: String) : ConnectionException(message, "timeout")

/** The connection broke after the request was sent (the server may have processed it). */
class AcdInterruptedException(message: String) : ConnectionException(message, "interrupted")

/** The call was cancelled. */
class AcdCancelledException(message: String) : AcdException(message, "cancelled")

/**
 * The one table (core's list, `ErrorCategory::classes`; a test checks it
 * against `errorCategoriesJson()`): the exception for the driver
 * protocol's flat error object (`category`, `message`, `status`, `detail`,
 * `body`, `retry_at_ms`, `sent`). Every member is the core's.
 */
internal fun exceptionOf(error: JsonObject): AcdException {
    val message = error.str("message") ?: error.toString()
    val status = error.long("status")?.toInt()
    val detail = error.str("detail")
    val body = error["body"] as? JsonObject
    return when (val category = error.str("category") ?: "protocol") {
        "config" -> ConfigException(message)
        "invalid_request", "request" -> RequestException(message)
        "bad_request" -> BadRequestException(message, status, detail, body)
        "authentication" -> AuthenticationException(message, status, detail, body)
        "permission" -> PermissionException(message, status, detail, body)
        "not_found" -> NotFoundException(message, status, detail, body)
        "rate_limit" -> RateLimitException(message, status, detail, body, error.long("retry_at_ms"))
        "server" -> ServerException(message, status, detail, body)
        "protocol" -> AcdProtocolException(message, status, detail, body)
        "connection" -> ConnectionException(message)
        "timeout" -> AcdTimeoutException(message)
        "interrupted" -> AcdInterruptedException(message)
        "cancelled" -> AcdCancelledException(message)
        else -> AcdApiException(message, category, status, detail, body)
    }
}
