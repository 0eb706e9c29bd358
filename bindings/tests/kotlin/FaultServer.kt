// The one in-test HTTP server (com.sun.net.httpserver): it answers every
// request with the next scripted reply or runs a raw handler (redirects,
// trickling and huge bodies), and a transport wrapper that records the
// (virtual) instant each request was sent at.
package acdtest

import com.sun.net.httpserver.HttpExchange
import com.sun.net.httpserver.HttpServer
import dev.acd.Request
import dev.acd.Response
import dev.acd.Transport
import java.net.InetSocketAddress
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger

/** One scripted reply: status, headers and body, after [delayMs] of real time. */
data class Reply(val status: Int, val headers: Map<String, String> = emptyMap(), val body: String = "", val delayMs: Long = 0)

/** A JSON Error body as the API sends it. */
fun errorBody(status: Int, detail: String): String = """{"detail": "$detail", "status": $status}"""

/** A table page as the API sends it. */
fun pageBody(vararg ids: Int): String = """{"data": [${ids.joinToString(",") { """{"id": $it}""" }}]}"""

/**
 * A server on a free local port that runs [handle] for request n (n from
 * 0); [hits] counts the requests received and [seen] keeps each one's
 * request headers (lower-case names). Close it when done.
 */
class FaultServer private constructor(private val handle: (Int, HttpExchange) -> Unit, @Suppress("UNUSED_PARAMETER") raw: Unit) : AutoCloseable {
    /** A server answering request n with `script(n)`. */
    constructor(script: (Int) -> Reply) : this({ n, exchange -> answer(exchange, script(n)) }, Unit)

    companion object {
        /** A server running [handle] for request n. */
        fun raw(handle: (Int, HttpExchange) -> Unit): FaultServer = FaultServer(handle, Unit)
    }

    private val server: HttpServer = HttpServer.create(InetSocketAddress("127.0.0.1", 0), 0)
    private val executor = Executors.newFixedThreadPool(4)
    private val counter = AtomicInteger()

    /** Each request's headers, in order (names in lower case). */
    val seen: MutableList<Map<String, String>> = java.util.Collections.synchronizedList(mutableListOf())

    /** Requests received so far. */
    val hits: Int get() = counter.get()

    /** The base URL (`http://127.0.0.1:PORT`). */
    val baseUrl: String get() = "http://127.0.0.1:${server.address.port}"

    init {
        server.createContext("/") { exchange ->
            seen += exchange.requestHeaders.entries.associate { (name, values) -> name.lowercase() to values.joinToString(", ") }
            try {
                handle(counter.getAndIncrement(), exchange)
            } catch (_: java.io.IOException) {
                // The client gave up (timeout) or hung up: what these servers are for.
            } finally {
                exchange.close()
            }
        }
        server.executor = executor
        server.start()
    }

    /** Stops the server at once. */
    override fun close() {
        server.stop(0)
        executor.shutdownNow()
    }
}

/** Answers [exchange] with [reply], after its delay. */
private fun answer(exchange: HttpExchange, reply: Reply) {
    if (reply.delayMs > 0) {
        try {
            Thread.sleep(reply.delayMs)
        } catch (_: InterruptedException) {
            Thread.currentThread().interrupt()
        }
    }
    val bytes = reply.body.encodeToByteArray()
    exchange.responseHeaders.add("Content-Type", "application/json")
    reply.headers.forEach { (name, value) -> exchange.responseHeaders.add(name, value) }
    exchange.sendResponseHeaders(reply.status, if (bytes.isEmpty()) -1 else bytes.size.toLong())
    if (bytes.isNotEmpty()) exchange.responseBody.use { it.write(bytes) }
}

/** A transport that records the [clock]'s instant at each send, then forwards to [inner]. */
class RecordingTransport(private val inner: Transport, private val clock: () -> Long) : Transport {
    /** The instant of every send, in order. */
    val sentAt = mutableListOf<Long>()

    /** The status of every response, in order. */
    val statuses = mutableListOf<Int>()

    override suspend fun send(request: Request): Response {
        val at = clock()
        synchronized(this) { sentAt += at }
        return inner.send(request).also { synchronized(this) { statuses += it.status } }
    }
}
