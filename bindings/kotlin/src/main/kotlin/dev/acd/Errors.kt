// The exceptions of dev.acd, the same hierarchy as the Python package:
//
//   AcdException
//   ├── ConfigException              a configuration was refused
//   └── ApiException                 a call failed (status, detail, body)
//       ├── BadRequestException      400, or parameters refused before sending
//       ├── AuthenticationException  401
//       ├── PermissionException      403
//       ├── NotFoundException        404
//       ├── RateLimitException       429 after the retry policy gave up
//       ├── ServerException          5xx after the retry policy gave up
//       └── ConnectionException      no HTTP response
//           └── TimeoutException     no response in time
//
// Every sentence comes from the Rust core unchanged; the classes only sort
// the core's error (one JSON object) by its kind and status.
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

/** Core error kinds raised before any I/O because the call itself is malformed. */
private val REQUEST_KINDS = setOf("invalid_params", "missing_path_param", "bad_path_param", "stable_egress_unavailable")

/** Core error kinds that mean the client's configuration cannot serve the call. */
private val CONFIG_KINDS =
    setOf("invalid_config", "unknown_operation", "no_credential", "unknown_credential", "credential_not_accepted")

private fun JsonObject.text(name: String): String? = (this[name] as? JsonPrimitive)?.takeIf { it.isString }?.contentOrNull

private fun JsonObject.int(name: String): Int? = (this[name] as? JsonPrimitive)?.takeIf { !it.isString }?.intOrNull

/** The final attempt's error of a `gave_up` error, else the error itself. */
private fun lastOf(error: JsonObject): JsonObject {
    val last = error["last"]
    return if (error.text("kind") == "gave_up" && last is JsonObject) lastOf(last) else error
}

/**
 * The exception for one core `ClientError` ([error], its serde JSON) and its
 * sentence [message].
 */
internal fun exceptionFromCore(error: JsonObject, message: String): AcdException {
    val last = lastOf(error)
    val kind = last.text("kind")
    val status = last.int("status")
    if (kind in CONFIG_KINDS) return ConfigException(message)
    var detail: String? = null
    var body: JsonObject? = null
    if (kind == "api") {
        detail = last.text("detail") ?: ""
        body = buildJsonObject {
            put("detail", detail)
            put("status", status)
            (last["extra"] as? JsonObject)?.forEach { (name, value) -> put(name, value) }
        }
    }
    return when {
        kind == "transport" && last.text("failure") == "timeout" -> TimeoutException(message, status, detail, body)
        kind == "transport" -> ConnectionException(message, status, detail, body)
        kind in REQUEST_KINDS -> BadRequestException(message, status, detail, body)
        status == null -> ApiException(message, status, detail, body)
        status >= 500 -> ServerException(message, status, detail, body)
        status == 400 -> BadRequestException(message, status, detail, body)
        status == 401 -> AuthenticationException(message, status, detail, body)
        status == 403 -> PermissionException(message, status, detail, body)
        status == 404 -> NotFoundException(message, status, detail, body)
        status == 429 -> RateLimitException(message, status, detail, body)
        else -> ApiException(message, status, detail, body)
    }
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
