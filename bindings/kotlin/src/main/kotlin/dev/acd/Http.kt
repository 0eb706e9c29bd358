// Moving bytes: the request the core built, the response that came back,
// and the transport interface that carries one to the other. A transport
// never interprets anything: error statuses are responses, and a failure
// without a response is a TransportFailureException of one of three kinds,
// so the core decides whether to retry.
package dev.acd

/** One header: name and value, in the order sent or received. */
data class Header(
    /** The name. */ val name: String,
    /** The value. */ val value: String,
)

/** Header names whose values are credentials (shown redacted). */
private val SECRET_HEADERS = setOf("x-api-key", "authorization")

/** [headers] with every credential value replaced by `<redacted>`. */
fun redacted(headers: List<Header>): List<Header> =
    headers.map { if (it.name.lowercase() in SECRET_HEADERS) Header(it.name, "<redacted>") else it }

/**
 * One HTTP request the core built. [headers] holds the exact values to send,
 * credential included; [toString] shows the method, the URL path and the
 * redacted headers only.
 */
data class Request(
    /** The method, e.g. `GET`. */ val method: String,
    /** The absolute URL. */ val url: String,
    /** The headers to send, in order (credential included: never log them). */ val headers: List<Header>,
    /** The body, if any. */ val body: Body?,
    /**
     * The largest response body to read, in bytes (the client's
     * `maxBodyBytes`, from the core): stop reading once a body passes it,
     * and read none of one whose `Content-Length` is above it. `null`: no bound.
     */
    val maxBodyBytes: Long? = null,
    /**
     * The longest this exchange may take, in ms, headers and body included
     * (from the core's deadline for it: the exchange timeout, or what is
     * left of the call's timeout). A transport ends the exchange with
     * [FailureKind.TIMEOUT] once it passes. `null`: the transport's own bound.
     */
    val timeoutMs: Long? = null,
) {
    /** Method, path and redacted headers (never a credential or the query). */
    override fun toString(): String = "Request($method ${url.substringBefore('?')}, headers=${redacted(headers)})"
}

/** One HTTP response: status, headers in order, and the body. */
data class Response(
    /** The HTTP status. */ val status: Int,
    /** The headers, in order. */ val headers: List<Header>,
    /** The body. */ val body: Body,
)

/** How an attempt failed without a response. */
enum class FailureKind {
    /** The connection could not be made: the request was never sent. */
    CONNECT,

    /** No response in time: the server may have processed the request. */
    TIMEOUT,

    /** The connection broke after sending: the server may have processed it. */
    INTERRUPTED,

    /** The connection was refused: never sent. */
    REFUSED,

    /** The host name did not resolve: never sent. */
    DNS,

    /** Connecting timed out: never sent. */
    CONNECT_TIMEOUT,

    /** The HTTP client refused to open the connection: never sent. */
    BLOCKED,

    /** The connection was reset after sending: the server may have processed it. */
    RESET,

    /** Failed before any response, for no reason given: read as maybe sent. */
    UNKNOWN,

    /** The answer was not valid HTTP: the server may have processed the request. */
    PROTOCOL,
}

/** Thrown by a [Transport] when no response arrived; [kind] says how. */
class TransportFailureException(
    /** How the attempt failed. */ val kind: FailureKind,
    message: String = kind.name.lowercase(),
    cause: Throwable? = null,
) : Exception(message, cause)

/** What [AcdHttpClient] sends through: `java.net.http` by default, or a test's. */
interface Transport {
    /**
     * Sends [request] and returns the response, whatever its status.
     *
     * @throws TransportFailureException when no response arrived.
     */
    suspend fun send(request: Request): Response
}
