// An in-test HTTP server (com.sun.net.httpserver) that answers every request
// with the next scripted reply, and a transport wrapper that records the
// (virtual) instant each request was sent at.
package acdtest

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
 * A server on a free local port answering request n with `script(n)`
 * (n from 0); [hits] counts the requests received. Close it when done.
 */
class FaultServer(private val script: (Int) -> Reply) : AutoCloseable {
    private val server: HttpServer = HttpServer.create(InetSocketAddress("127.0.0.1", 0), 0)
    private val executor = Executors.newFixedThreadPool(4)
    private val counter = AtomicInteger()

    /** Requests received so far. */
    val hits: Int get() = counter.get()

    /** The base URL (`http://127.0.0.1:PORT`). */
    val baseUrl: String get() = "http://127.0.0.1:${server.address.port}"

    init {
        server.createContext("/") { exchange ->
            val reply = script(counter.getAndIncrement())
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
            try {
                exchange.sendResponseHeaders(reply.status, if (bytes.isEmpty()) -1 else bytes.size.toLong())
                if (bytes.isNotEmpty()) exchange.responseBody.use { it.write(bytes) }
            } catch (_: java.io.IOException) {
                // The client gave up (timeout); nothing to answer.
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

/** A transport that records the [clock]'s instant at each send, then forwards to [inner]. */
class RecordingTransport(private val inner: Transport, private val clock: () -> Long) : Transport {
    /** The instant of every send, in order. */
    val sentAt = mutableListOf<Long>()

    /** The status of every response, in order. */
    val statuses = mutableListOf<Int>()

    override suspend fun send(request: Request): Response {
        sentAt += clock()
        return inner.send(request).also { statuses += it.status }
    }
}
