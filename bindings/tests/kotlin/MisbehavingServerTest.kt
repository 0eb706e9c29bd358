// The easy path (AcdHttpClient over java.net.http) against misbehaving
// servers on loopback (FaultServer's raw handlers), in real time: a redirect
// to another address is never followed (the second server never sees a
// request, so never a credential), a body that trickles in ends with the
// timeout, and a body above maxBodyBytes ends the call with a typed error
// without being read. Plus every field of the retry policy.
package acdtest

import com.sun.net.httpserver.HttpExchange
import dev.acd.AcdException
import dev.acd.AcdHttpClient
import dev.acd.AcdTimeoutException
import dev.acd.ConnectionException
import dev.acd.JavaHttpTransport
import dev.acd.RetryPolicy
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.net.ServerSocket
import java.util.concurrent.atomic.AtomicLong
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

private const val SECRET = "acd_live_demo_ada"

private fun page(exchange: HttpExchange) {
    val body = """{"data": [{"id": 1}]}""".toByteArray()
    exchange.sendResponseHeaders(200, body.size.toLong())
    exchange.responseBody.write(body)
}

class MisbehavingServerTest {
    @Test
    fun `a refused connection names the origin and the reason, and a never-sent POST is retried`() {
        val port = ServerSocket(0).use { it.localPort }
        val url = "http://127.0.0.1:$port"
        val retry = RetryPolicy(maxAttempts = 2, backoffBase = 1.milliseconds, backoffCap = 2.milliseconds)
        AcdHttpClient(SECRET, url, retry = retry).use { api ->
            val error = assertThrows<ConnectionException> {
                runBlocking { api.runs.create("agent-1", buildJsonObject { put("x", 1) }) }
            }
            assertFalse(error is AcdTimeoutException)
            val message = error.message ?: ""
            assertTrue(message.contains("gave up after 2 attempt(s)"), message)
            assertTrue(
                message.contains("the request to $url failed in transport: could not connect (connection refused)"),
                message,
            )
        }
    }

    @Test
    fun `a 302 is not followed - the call fails naming 302 and the Location, the second server sees nothing`() {
        FaultServer.raw { _, exchange -> page(exchange) }.use { second ->
            val target = "${second.baseUrl}/api/v1/tables/orders?api_key=$SECRET"
            FaultServer.raw { _, exchange ->
                exchange.responseHeaders.add("Location", target)
                exchange.sendResponseHeaders(302, -1)
            }.use { first ->
                AcdHttpClient(SECRET, first.baseUrl).use { api ->
                    val error = assertThrows<AcdException> { runBlocking { api.tables.read("orders") } }
                    assertEquals(302, error.status)
                    val message = error.message ?: ""
                    assertTrue(message.contains("302 (a redirect to ${second.baseUrl}/api/v1/tables/orders)"), message)
                    assertFalse(message.contains(SECRET) || message.contains("api_key"), message)
                    assertEquals(1, first.hits)
                    assertEquals(0, second.hits)
                }
            }
        }
    }

    @Test
    fun `a body trickling one byte every 250 ms fails with the 1 s timeout after one attempt`() {
        FaultServer.raw { _, exchange ->
            exchange.sendResponseHeaders(200, 60)
            repeat(60) {
                exchange.responseBody.write(' '.code)
                exchange.responseBody.flush()
                Thread.sleep(250)
            }
        }.use { server ->
            val transport = JavaHttpTransport(timeout = 1.seconds)
            val api = AcdHttpClient(SECRET, server.baseUrl, retry = RetryPolicy(maxAttempts = 1), transport = transport)
            val started = System.nanoTime()
            assertThrows<AcdTimeoutException> { runBlocking { api.tables.read("orders") } }
            val elapsedMs = (System.nanoTime() - started) / 1_000_000
            assertEquals(1, server.hits)
            assertTrue(elapsedMs < 4_000, "the 1 s timeout took $elapsedMs ms")
        }
    }

    private fun bodyAboveTheBound(announce: Boolean) {
        val sent = AtomicLong()
        FaultServer.raw { _, exchange ->
            val piece = ByteArray(65_536) { ' '.code.toByte() }
            exchange.sendResponseHeaders(200, if (announce) 1024L * piece.size else 0)
            repeat(1024) {
                exchange.responseBody.write(piece)
                sent.addAndGet(piece.size.toLong())
            }
        }.use { server ->
            val api = AcdHttpClient(SECRET, server.baseUrl, retry = RetryPolicy(maxAttempts = 1), maxBodyBytes = 1_000)
            val error = assertThrows<AcdException> { runBlocking { api.tables.read("orders") } }
            assertEquals(200, error.status)
            val message = error.message ?: ""
            assertTrue(message.contains("larger than the 1000 bytes the client's max body size allows"), message)
            Thread.sleep(300)
            assertTrue(sent.get() < 16L * 1024 * 1024, "the server wrote ${sent.get()} bytes")
        }
    }

    @Test
    fun `a body above maxBodyBytes without a Content-Length is a typed error and is not read`() = bodyAboveTheBound(false)

    @Test
    fun `a body whose Content-Length is above maxBodyBytes is a typed error and is not read`() = bodyAboveTheBound(true)

    @Test
    fun `a per-call timeout ends a slow call with an AcdTimeoutException`() {
        FaultServer { Reply(200, body = pageBody(1), delayMs = 2_000) }.use { server ->
            AcdHttpClient(SECRET, server.baseUrl, retry = RetryPolicy(maxAttempts = 1)).use { api ->
                val started = System.nanoTime()
                val error = assertThrows<AcdTimeoutException> { runBlocking { api.tables.read("orders", timeout = 300.milliseconds) } }
                val elapsedMs = (System.nanoTime() - started) / 1_000_000
                assertEquals("timeout", error.category)
                assertTrue(elapsedMs < 1_900, "the 300 ms timeout took $elapsedMs ms")
            }
        }
    }

    @Test
    fun `every field of the core's retry policy can be set`() {
        val policy = RetryPolicy(3, 5.seconds, 1.seconds, 50.milliseconds, 400.milliseconds, 2)
        FaultServer { Reply(200, body = pageBody(1)) }.use { server ->
            AcdHttpClient(SECRET, server.baseUrl, retry = policy).use { api ->
                assertEquals(listOf(1L), runBlocking { api.tables.read("orders") }.map { it.long("id") })
            }
        }
    }
}
