// The exceptions of dev.acd, the same hierarchy as the Python package:
//
//   AcdException
//   ├── ConfigException              a configuration was refused
//   └── ApiException                 a call failed (status, detail, body)
//       ├── BadRequestException      400, or a request refused before sending
//       ├── AuthenticationException  401
//       ├── PermissionException      403
//       ├── NotFoundException        404
//       ├── RateLimitException       429 after the retry policy gave up
//       ├── ServerException          5xx after the retry policy gave up
//       └── ConnectionException      no HTTP response
//           └── TimeoutException     no response in time
//
// Every sentence comes from the Rust core unchanged, and so does each error's
// category (`ClientError::category`); one table maps a category to its class.
package dev.acd

import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.contentOrNull
import kotlinx.serialization.json.intOrNull
import kotlinx.serialization.json.put

/**
 * Base of every exception dev.acd throws.
 *
 * @property status the HTTP status when a response was received, else `null`.
 * @property detail the sentence to act on: the API's own `detail` when it sent
 *   an Error body, else the core's sentence.
 * @property body the Error body (`detail`, `status` and any other member)
 *   when the API sent one, else `null`.
 */
open class AcdException(
    message: String,
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

/** A configuration (client, gate, retry policy, test dataset) was refused. */
class ConfigException(message: String, cause: Throwable? = null) : AcdException(message, cause = cause)

/**
 * A call failed: the API answered an error, broke its contract, or the
 * transport failed and the retry policy gave up.
 */
open class ApiException(message: String, status: Int? = null, detail: String? = null, body: JsonObject? = null) :
    AcdException(message, status, detail, body)

/**
 * 400, or parameters the core refused before anything was sent (the
 * validators the server uses; [status] is then `null`).
 */
class BadRequestException(message: String, status: Int? = null, detail: String? = null, body: JsonObject? = null) :
    ApiException(message, status, detail, body)

/** 401: the credential is missing, unknown, expired or not accepted. */
class AuthenticationException(message: String, status: Int? = null, detail: String? = null, body: JsonObject? = null) :
    ApiException(message, status, detail, body)

/** 403: the credential may not do this (e.g. an OAuth scope is missing). */
class PermissionException(message: String, status: Int? = null, detail: String? = null, body: JsonObject? = null) :
    ApiException(message, status, detail, body)

/** 404: the table, connection, run or path does not exist. */
class NotFoundException(message: String, status: Int? = null, detail: String? = null, body: JsonObject? = null) :
    ApiException(message, status, detail, body)

/** A 429 that outlasted the retry policy (the client throttles itself first). */
class RateLimitException(message: String, status: Int? = null, detail: String? = null, body: JsonObject? = null) :
    ApiException(message, status, detail, body)

/** A 5xx that outlasted the retry policy. */
class ServerException(message: String, status: Int? = null, detail: String? = null, body: JsonObject? = null) :
    ApiException(message, status, detail, body)

/** No HTTP response: the connection failed or broke. */
open class ConnectionException(message: String, status: Int? = null, detail: String? = null, body: JsonObject? = null) :
    ApiException(message, status, detail, body)

/** No response arrived before the transport's timeout. */
class TimeoutException(message: String, status: Int? = null, detail: String? = null, body: JsonObject? = null) :
    ConnectionException(message, status, detail, body)

/** A constructor of an [ApiException] subclass: (message, status, detail, body). */
private typealias ApiExceptionOf = (String, Int?, String?, JsonObject?) -> ApiException

/**
 * The one table: the core's error category (`ClientError::category`) to its
 * class. `config` is not here: it is always a [ConfigException].
 */
private fun classOf(category: String?): ApiExceptionOf = when (category) {
    "request" -> ::BadRequestException
    "authentication" -> ::AuthenticationException
    "permission" -> ::PermissionException
    "not_found" -> ::NotFoundException
    "rate_limit" -> ::RateLimitException
    "server" -> ::ServerException
    "connection", "interrupted" -> ::ConnectionException
    "timeout" -> ::TimeoutException
    else -> ::ApiException // protocol, cancelled
}

private fun JsonObject.text(name: String): String? = (this[name] as? JsonPrimitive)?.takeIf { it.isString }?.contentOrNull

private fun JsonObject.int(name: String): Int? = (this[name] as? JsonPrimitive)?.takeIf { !it.isString }?.intOrNull

/** The final attempt's error of a `gave_up` error, else the error itself. */
private fun lastOf(error: JsonObject): JsonObject {
    val last = error["last"]
    return if (error.text("kind") == "gave_up" && last is JsonObject) lastOf(last) else error
}

/**
 * The exception for one core `ClientError` ([error], its serde JSON), its
 * [category] (as the core gives it) and its sentence [message]. The class
 * comes from the category alone, except that, as in the Python package,
 * [BadRequestException] is a 400 or a request refused before sending: another
 * 4xx the API answered stays a plain [ApiException].
 */
internal fun exceptionFromCore(error: JsonObject, category: String?, message: String): AcdException {
    if (category == "config") return ConfigException(message)
    val last = lastOf(error)
    val status = last.int("status")
    var detail: String? = null
    var body: JsonObject? = null
    if (last.text("kind") == "api") {
        detail = last.text("detail") ?: ""
        body = buildJsonObject {
            put("detail", detail)
            put("status", status)
            (last["extra"] as? JsonObject)?.forEach { (name, value) -> put(name, value) }
        }
    }
    if (category == "request" && status != null && status != 400) return ApiException(message, status, detail, body)
    return classOf(category)(message, status, detail, body)
}

/** The exception for an error of the generated layer (its sentence kept). */
internal fun exceptionFromFfi(error: acd.AcdException): AcdException {
    val message = error.message ?: error.toString()
    return when (error) {
        is acd.AcdException.Request -> BadRequestException(message)
        else -> ConfigException(message, error)
    }
}

/** Runs [block], turning errors of the generated layer into typed exceptions. */
internal inline fun <T> ffi(block: () -> T): T =
    try {
        block()
    } catch (error: acd.AcdException) {
        throw exceptionFromFfi(error)
    }
