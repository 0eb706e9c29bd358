// The default transport: java.net.http.HttpClient, asynchronous, awaited
// from a coroutine. Failures are sorted for the core: a connection that
// could not be made was never sent (CONNECT); a timeout or a broken
// connection after sending may have been processed (TIMEOUT, INTERRUPTED).
package dev.acd

import kotlinx.coroutines.future.await
import java.io.IOException
import java.io.InterruptedIOException
import java.net.ConnectException
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpConnectTimeoutException
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.net.http.HttpTimeoutException
import java.nio.channels.UnresolvedAddressException
import java.time.Duration
import java.util.concurrent.CompletionException
import java.util.concurrent.ExecutionException

/** Headers `java.net.http` sets itself and refuses from callers. */
private val RESTRICTED = setOf("connection", "content-length", "expect", "host", "upgrade")

/**
 * Sends requests with a `java.net.http.HttpClient` ([http], by default one
 * made here with a 10 s connect timeout), each with [timeoutMs] to answer.
 */
class JavaHttpTransport
    @JvmOverloads
    constructor(
        /** The HTTP client requests go through. */
        val http: HttpClient = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build(),
        /** How long one request may take to answer, in ms. */
        val timeoutMs: Long = 30_000,
    ) : Transport {
        /** Sends [request]; a failure without a response is a [TransportFailureException]. */
        override suspend fun send(request: Request): Response {
            val publisher =
                request.body?.let { HttpRequest.BodyPublishers.ofByteArray(it.toByteArray()) }
                    ?: HttpRequest.BodyPublishers.noBody()
            val builder =
                try {
                    HttpRequest.newBuilder(URI.create(request.url))
                        .timeout(Duration.ofMillis(timeoutMs))
                        .method(request.method, publisher)
                } catch (error: IllegalArgumentException) {
                    throw TransportFailureException(FailureKind.CONNECT, "the URL ${request.url} cannot be sent: ${error.message}", error)
                }
            for (header in request.headers) {
                if (header.name.lowercase() !in RESTRICTED) builder.header(header.name, header.value)
            }
            val reply =
                try {
                    http.sendAsync(builder.build(), HttpResponse.BodyHandlers.ofByteArray()).await()
                } catch (error: Exception) {
                    throw transportFailureOf(unwrap(error)) ?: throw error
                }
            val headers = reply.headers().map().flatMap { (name, values) -> values.map { Header(name, it) } }
            return Response(reply.statusCode(), headers, Body(reply.body()))
        }
    }

private fun unwrap(error: Throwable): Throwable {
    var current = error
    while ((current is CompletionException || current is ExecutionException) && current.cause != null) {
        current = current.cause ?: break
    }
    return current
}

/**
 * The transport failure [error] (thrown by `java.net.http` or a socket) means
 * for the core, or `null` when it is not one (e.g. the coroutine was
 * cancelled). For transports of your own over the same exceptions.
 */
fun transportFailureOf(error: Throwable): TransportFailureException? {
    val message = error.message ?: error.javaClass.simpleName
    val kind =
        when {
            error is HttpConnectTimeoutException -> FailureKind.CONNECT
            error is ConnectException || error.cause is ConnectException -> FailureKind.CONNECT
            error is UnresolvedAddressException || error.cause is UnresolvedAddressException -> FailureKind.CONNECT
            error is HttpTimeoutException -> FailureKind.TIMEOUT
            error is InterruptedIOException -> FailureKind.TIMEOUT
            error is IOException -> FailureKind.INTERRUPTED
            else -> return null
        }
    return TransportFailureException(kind, message, error)
}
