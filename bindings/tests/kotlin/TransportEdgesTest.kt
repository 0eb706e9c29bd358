// The easy path (AcdHttpClient over java.net.http) against a scripted raw
// TCP server on loopback (issue 43, items 2 and 5). java.net.http asks for
// no encoding and decodes none, so a small gzip body that would inflate past
// the body bound is bounded as the bytes that came: within the core's
// default bound it is no JSON (protocol), past a small bound it is refused
// as too large, and either way the transport keeps at most the bound. A
// 100 Continue or 103 Early Hints before the 200 is skipped; a response
// nobody asked for, left on a kept-alive connection, is never the answer to
// the next request.
package acdtest

import dev.acd.AcdException
import dev.acd.AcdHttpClient
import dev.acd.RetryPolicy
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.io.ByteArrayOutputStream
import java.net.ServerSocket
import java.net.Socket
import java.util.Collections
import java.util.zip.GZIPOutputStream
import kotlin.concurrent.thread
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue

private const val KEY = "acd_live_demo_ada"
private const val MIB = 1024 * 1024

/** 256 MiB of zeros in about 250 KB of gzip. */
private const val BOMB_SIZE = 256L * MIB
private val BOMB: ByteArray by lazy {
    val out = ByteArrayOutputStream()
    GZIPOutputStream(out).use { gzip -> val zeros = ByteArray(MIB); repeat((BOMB_SIZE / MIB).toInt()) { gzip.write(zeros) } }
    out.toByteArray()
}

/**
 * A loopback server keeping each connection open for as many requests as
 * come; `answer(n)` gives the bytes written for the n-th request (counted
 * over all connections); [requests] holds the header blocks read.
 */
private class RawServer(private val answer: (Int) -> ByteArray) : AutoCloseable {
    private val listener = ServerSocket(0, 16, java.net.InetAddress.getLoopbackAddress())
    val baseUrl = "http://127.0.0.1:${listener.localPort}"
    val requests: MutableList<String> = Collections.synchronizedList(mutableListOf())
    val connections = java.util.concurrent.atomic.AtomicInteger()

    init {
        thread(isDaemon = true) {
            while (!listener.isClosed) {
                val socket = runCatching { listener.accept() }.getOrNull() ?: break
                connections.incrementAndGet()
                thread(isDaemon = true) { runCatching { serve(socket) }; runCatching { socket.close() } }
            }
        }
    }

    private fun serve(socket: Socket) {
        val input = socket.getInputStream()
        val output = socket.getOutputStream()
        val pending = StringBuilder()
        val buffer = ByteArray(4096)
        while (true) {
            var end = pending.indexOf("\r\n\r\n")
            while (end >= 0) {
                val index = synchronized(requests) { requests.add(pending.substring(0, end)); requests.size - 1 }
                pending.delete(0, end + 4)
                output.write(answer(index))
                output.flush()
                end = pending.indexOf("\r\n\r\n")
            }
            val read = input.read(buffer)
            if (read < 0) return
            pending.append(String(buffer, 0, read, Charsets.ISO_8859_1))
        }
    }

    override fun close() = listener.close()
}

private fun ok(body: String, extra: String = ""): ByteArray =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n$extra\r\n$body".toByteArray()

/** A 200 of [body] said to be gzip; without [announce], no Content-Length (it ends with the connection). */
private fun gzipped(body: ByteArray, announce: Boolean): ByteArray {
    val length = if (announce) "Content-Length: ${body.size}" else "Connection: close"
    return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n$length\r\n\r\n".toByteArray() + body
}

class TransportEdgesTest {
    @Test
    fun `a small gzip body inflating past the core default bound is bounded as bytes - no JSON, a protocol error`() {
        val bound = acd.defaultMaxBodyBytes().toLong() // the core's: none set here
        assertTrue(BOMB.size < 300 * 1024, "${BOMB.size}")
        assertTrue(BOMB_SIZE > 4 * bound)
        RawServer { gzipped(BOMB, announce = true) }.use { server ->
            AcdHttpClient(KEY, server.baseUrl, retry = RetryPolicy(maxAttempts = 1)).use { api ->
                val error = assertThrows<AcdException> { runBlocking { api.tables.read("orders") } }
                assertEquals("protocol", error.category, error.toString())
                assertEquals(200, error.status)
                // The 250 KB that came are within the bound, and are no JSON.
                assertFalse((error.message ?: "").contains("larger than"), error.message)
                val request = server.requests[0].lowercase()
                assertFalse("accept-encoding: gzip" in request, request)
            }
        }
    }

    @Test
    fun `a gzip body past a small bound is refused as too large, whether its length is announced or not`() {
        for (announce in listOf(true, false)) {
            RawServer { gzipped(BOMB, announce) }.use { server ->
                AcdHttpClient(KEY, server.baseUrl, retry = RetryPolicy(maxAttempts = 1), maxBodyBytes = 1_000).use { api ->
                    val error = assertThrows<AcdException> { runBlocking { api.tables.read("orders") } }
                    assertEquals("protocol", error.category, error.toString())
                    assertEquals(200, error.status)
                    val message = error.message ?: ""
                    assertTrue(message.contains("larger than the 1000 bytes the client's max body size allows"), message)
                }
            }
        }
    }

    @Test
    fun `a 100 Continue or 103 Early Hints before the 200 is skipped and the 200 is the answer`() {
        for ((informational, lines) in listOf("100 Continue" to "", "103 Early Hints" to "Link: </style.css>; rel=preload\r\n")) {
            RawServer { "HTTP/1.1 $informational\r\n$lines\r\n".toByteArray() + ok(pageBody(1)) }.use { server ->
                AcdHttpClient(KEY, server.baseUrl, retry = RetryPolicy(maxAttempts = 1)).use { api ->
                    val records = runBlocking { api.tables.read("orders") }
                    assertEquals(listOf("1"), records.map { it["id"].toString() }, informational)
                    assertEquals(1, server.requests.size, informational)
                }
            }
        }
    }

    @Test
    fun `a response nobody asked for, left on a kept-alive connection, is never the next answer`() {
        RawServer { index ->
            if (index == 0) ok(pageBody(1)) + ok(pageBody(666)) else ok(pageBody(index + 1))
        }.use { server ->
            AcdHttpClient(KEY, server.baseUrl).use { api ->
                val first = runBlocking { api.tables.read("orders") }
                val second = runBlocking { api.tables.read("orders") }
                assertEquals(listOf("1", "2"), (first + second).map { it["id"].toString() })
                assertEquals(2, server.requests.size)
            }
        }
    }
}
