// The default transport: java.net.http.HttpClient, awaited from a coroutine.
// Failures are sorted for the core (never sent: CONNECT; maybe processed:
// TIMEOUT, INTERRUPTED); no redirect is followed; the timeout bounds the
// whole exchange; a body past maxBodyBytes is not read further.
package dev.acd

import kotlinx.coroutines.future.await
import kotlin.time.Duration.Companion.seconds
import kotlin.time.toJavaDuration
import kotlin.time.toKotlinDuration
import java.io.ByteArrayOutputStream
import java.io.Closeable
import java.io.IOException
import java.io.InterruptedIOException
import java.net.ConnectException
import java.net.ProtocolException
import java.net.UnknownHostException
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpConnectTimeoutException
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.net.http.HttpTimeoutException
import java.nio.ByteBuffer
import java.nio.channels.UnresolvedAddressException
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionException
import java.util.concurrent.CompletionStage
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.ExecutionException
import java.util.concurrent.Flow
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException as JavaTimeoutException

/** Headers `java.net.http` sets itself and refuses from callers. */
private val RESTRICTED = setOf("connection", "content-length", "expect", "host", "upgrade")

/**
 * Sends requests with a `java.net.http.HttpClient`: [http] when given (it
 * stays the caller's), else one made here with a 10 s connect timeout that
 * follows no redirect, on daemon threads that [close] ends. Each exchange,
 * from sending to the last byte of the body, takes at most [timeout].
 * A client of your own should not follow redirects either
 * (`HttpClient.Redirect.NEVER`, the JDK's default).
 */
class JavaHttpTransport(
    http: HttpClient? = null,
    /** How long one exchange may take, from sending to the last byte of the body. */
    @get:JvmSynthetic @get:JvmName("timeoutKotlin") val timeout: kotlin.time.Duration = 30.seconds,
) : Transport, Closeable {
    /** For Java: [http] (`null`: one made here) and the [timeout] of one exchange. */
    constructor(http: HttpClient?, timeout: Duration) : this(http, timeout.toKotlinDuration())

    /** For Java: one made here, exchanges of at most 30 s. */
    constructor() : this(null, 30.seconds)

    /** [timeout] for Java. */
    @JvmName("getTimeout")
    fun javaTimeout(): Duration = timeout.toJavaDuration()

    /** A transport built setting by setting (Java). */
    class Builder {
        private var http: HttpClient? = null
        private var timeout: kotlin.time.Duration = 30.seconds

        /** A `java.net.http.HttpClient` of yours (it stays yours). */
        fun http(value: HttpClient?): Builder = apply { http = value }

        /** How long one exchange may take. */
        fun timeout(value: Duration): Builder = apply { timeout = value.toKotlinDuration() }

        /** The transport. */
        fun build(): JavaHttpTransport = JavaHttpTransport(http, timeout)
    }

    /** The Java entry point. */
    companion object {
        /** An empty [Builder]: a client made here, 30 s per exchange. */
        @JvmStatic
        fun builder(): Builder = Builder()
    }

    private val executor: ExecutorService? =
        if (http == null) Executors.newCachedThreadPool { Thread(it, "acd-http").apply { isDaemon = true } } else null

    /** The HTTP client requests go through. */
    val http: HttpClient =
        http ?: HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(10))
            .followRedirects(HttpClient.Redirect.NEVER)
            .executor(executor)
            .build()

    private val timeoutMs: Long = timeout.inWholeMilliseconds

    /** Ends the threads of the HTTP client made here (one passed in is left alone). */
    override fun close() {
        executor?.shutdownNow()
    }

    /** Sends [request]; a failure without a response is a [TransportFailureException]. */
    override suspend fun send(request: Request): Response {
        val timeoutMs = minOf(timeoutMs, request.timeoutMs ?: timeoutMs).coerceAtLeast(1)
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
        val bodies = BoundedBodies(request.maxBodyBytes)
        val exchange = http.sendAsync(builder.build(), bodies)
        val reply =
            try {
                exchange.orTimeout(timeoutMs, TimeUnit.MILLISECONDS).await()
            } catch (error: Exception) {
                exchange.cancel(true)
                bodies.cancel()
                val cause = unwrap(error)
                if (cause is JavaTimeoutException) {
                    throw TransportFailureException(
                        FailureKind.TIMEOUT,
                        "the response did not arrive in full within $timeoutMs ms",
                        cause,
                    )
                }
                throw transportFailureOf(cause) ?: throw error
            }
        val headers = reply.headers().map().flatMap { (name, values) -> values.map { Header(name, it) } }
        return Response(reply.statusCode(), headers, Body(reply.body()))
    }
}

/** Bodies of at most `limit + 1` bytes (none when Content-Length is above it); `null`: no bound. */
private class BoundedBodies(private val limit: Long?) : HttpResponse.BodyHandler<ByteArray> {
    @Volatile private var current: BoundedBody? = null

    override fun apply(info: HttpResponse.ResponseInfo): HttpResponse.BodySubscriber<ByteArray> {
        val declared = info.headers().firstValueAsLong("content-length")
        val skip = limit != null && declared.isPresent && declared.asLong > limit
        return BoundedBody(limit, skip).also { current = it }
    }

    /** Stops reading the body under way, if any. */
    fun cancel() {
        current?.cancel()
    }
}

private class BoundedBody(private val limit: Long?, private val skip: Boolean) : HttpResponse.BodySubscriber<ByteArray> {
    private val result = CompletableFuture<ByteArray>()
    private val bytes = ByteArrayOutputStream()

    @Volatile private var subscription: Flow.Subscription? = null

    override fun getBody(): CompletionStage<ByteArray> = result

    override fun onSubscribe(subscription: Flow.Subscription) {
        this.subscription = subscription
        if (skip) {
            subscription.cancel()
            result.complete(ByteArray(0))
        } else {
            subscription.request(Long.MAX_VALUE)
        }
    }

    override fun onNext(item: List<ByteBuffer>) {
        for (buffer in item) {
            val room = if (limit == null) buffer.remaining().toLong() else limit + 1 - bytes.size()
            val take = minOf(buffer.remaining().toLong(), maxOf(room, 0L)).toInt()
            val chunk = ByteArray(take)
            buffer.get(chunk)
            bytes.write(chunk)
        }
        if (limit != null && bytes.size() > limit) {
            subscription?.cancel()
            result.complete(bytes.toByteArray())
        }
    }

    override fun onError(throwable: Throwable) {
        result.completeExceptionally(throwable)
    }

    override fun onComplete() {
        result.complete(bytes.toByteArray())
    }

    fun cancel() {
        subscription?.cancel()
    }
}

private fun unwrap(error: Throwable): Throwable {
    var current = error
    while ((current is CompletionException || current is ExecutionException) && current.cause != null) {
        current = current.cause ?: break
    }
    return current
}

/** What [error] (from `java.net.http` or a socket) means for the core (the facts of docs/driver-protocol.md), or `null` when no transport failure (e.g. a cancellation). */
fun transportFailureOf(error: Throwable): TransportFailureException? {
    val message = error.message ?: error.javaClass.simpleName
    val causes = generateSequence(error) { it.cause }.take(6).toList()
    val text = causes.mapNotNull { it.message?.lowercase() }
    val kind =
        when {
            error is HttpConnectTimeoutException -> FailureKind.CONNECT_TIMEOUT
            causes.any { it is UnresolvedAddressException || it is UnknownHostException } -> FailureKind.DNS
            causes.any { it is ConnectException } ->
                if (text.any { "refused" in it }) FailureKind.REFUSED else FailureKind.CONNECT
            error is HttpTimeoutException -> FailureKind.TIMEOUT
            error is JavaTimeoutException -> FailureKind.TIMEOUT
            error is InterruptedIOException -> FailureKind.TIMEOUT
            error is ProtocolException || causes.any { it is ProtocolException } -> FailureKind.PROTOCOL
            error is IOException && text.any { "reset" in it || "broken pipe" in it } -> FailureKind.RESET
            error is IOException -> FailureKind.INTERRUPTED
            else -> return null
        }
    return TransportFailureException(kind, message, error)
}
