// The easy path (AcdHttpClient over java.net.http) against misbehaving
// servers on loopback, in real time: a redirect to another address is never
// followed (the second server never sees a request, so never a credential),
// a body that trickles in ends with the timeout, and a body above
// maxBodyBytes ends the call with a typed error without being read. Plus one
// idempotency-key stream for `build` and started calls, and every field of
// the core's retry policy.
package acdtest

import acd.Client
import acd.ClientConfig
import acd.CredentialKind
import acd.EgressMode
import acd.PathParam
import acd.RequestSpec
import com.sun.net.httpserver.HttpExchange
import com.sun.net.httpserver.HttpServer
import dev.acd.AcdClient
import dev.acd.AcdHttpClient
import dev.acd.ApiException
import dev.acd.JavaHttpTransport
import dev.acd.RetryPolicy
import dev.acd.TimeoutException
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.jsonObject
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.io.IOException
import java.net.InetSocketAddress
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicLong
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNotEquals
import kotlin.test.assertTrue

private const val SECRET = "acd_live_demo_ada"

/** A loopback server running [handle] for every request; [hits] counts them. */
private class Loopback(private val handle: (HttpExchange) -> Unit) : AutoCloseable {
    private val server = HttpServer.create(InetSocketAddress("127.0.0.1", 0), 0)
    private val executor = Executors.newFixedThreadPool(4)
    val hits = AtomicInteger()
    val url: String get() = "http://127.0.0.1:${server.address.port}"

    init {
        server.createContext("/") { exchange ->
            hits.incrementAndGet()
            try {
                handle(exchange)
            } catch (_: IOException) {
                // The client hung up: what these servers are for.
            } finally {
                exchange.close()
            }
        }
        server.executor = executor
        server.start()
    }

    override fun close() {
        server.stop(0)
        executor.shutdownNow()
    }
}

private fun page(exchange: HttpExchange) {
    val body = """{"data": [{"id": 1}]}""".toByteArray()
    exchange.sendResponseHeaders(200, body.size.toLong())
    exchange.responseBody.write(body)
}

class MisbehavingServerTest {
    @Test
    fun `a 302 is not followed - the call fails naming 302 and the Location, the second server sees nothing`() =
        runBlocking {
            Loopback(::page).use { second ->
                val target = "${second.url}/api/v1/tables/orders?api_key=$SECRET"
                Loopback { exchange ->
                    exchange.responseHeaders.add("Location", target)
                    exchange.sendResponseHeaders(302, -1)
                }.use { first ->
                    val api = AcdHttpClient(SECRET, first.url)
                    val error = assertThrows<ApiException> { runBlocking { api.tables.read("orders") } }
                    assertEquals(302, error.status)
                    val message = error.message ?: ""
                    assertTrue(message.contains("302 (a redirect to ${second.url}/api/v1/tables/orders)"), message)
                    assertFalse(message.contains(SECRET) || message.contains("api_key"), message)
                    assertEquals(1, first.hits.get())
                    assertEquals(0, second.hits.get())
                }
            }
        }

    @Test
    fun `a body trickling one byte every 250 ms fails with the 1 s timeout after one attempt`() =
        runBlocking {
            Loopback { exchange ->
                exchange.sendResponseHeaders(200, 60)
                repeat(60) {
                    exchange.responseBody.write(' '.code)
                    exchange.responseBody.flush()
                    Thread.sleep(250)
                }
            }.use { server ->
                val api =
                    AcdHttpClient(
                        SECRET, server.url, retry = RetryPolicy(maxAttempts = 1),
                        transport = JavaHttpTransport(timeoutMs = 1_000),
                    )
                val started = System.nanoTime()
                assertThrows<TimeoutException> { runBlocking { api.tables.read("orders") } }
                val elapsedMs = (System.nanoTime() - started) / 1_000_000
                assertEquals(1, server.hits.get())
                assertTrue(elapsedMs < 4_000, "the 1 s timeout took $elapsedMs ms")
            }
        }

    private fun hugeBody(
        sent: AtomicLong,
        announce: Boolean,
    ): (HttpExchange) -> Unit =
        { exchange ->
            val piece = ByteArray(65_536) { ' '.code.toByte() }
            exchange.sendResponseHeaders(200, if (announce) 1024L * piece.size else 0)
            repeat(1024) {
                exchange.responseBody.write(piece)
                sent.addAndGet(piece.size.toLong())
            }
        }

    private fun bodyAboveTheBound(announce: Boolean) =
        runBlocking {
            val sent = AtomicLong()
            Loopback(hugeBody(sent, announce)).use { server ->
                val api = AcdHttpClient(SECRET, server.url, retry = RetryPolicy(maxAttempts = 1), maxBodyBytes = 1_000)
                assertEquals(1_000L, api.client.maxBodyBytes)
                val error = assertThrows<ApiException> { runBlocking { api.tables.read("orders") } }
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
    fun `the bound is the core's and reaches the transport`() {
        assertEquals(32L * 1024 * 1024, AcdClient().maxBodyBytes)
        val client = AcdClient(SECRET, maxBodyBytes = 1234)
        client.start("listTableRecords", path = mapOf("id" to "orders"))
        assertEquals(1234L, client.pollTransmit(1_700_000_000_000)?.request?.maxBodyBytes)
    }

    @Test
    fun `every field of the core's retry policy can be set`() {
        val policy =
            RetryPolicy(
                maxAttempts = 3, deadlineMs = 5_000, maxRetryAfterMs = 1_000, backoffBaseMs = 50,
                backoffCapMs = 400, maxThrottled = 2,
            )
        assertEquals(
            Json.parseToJsonElement(
                """{"max_attempts":3,"max_throttled":2,"deadline_ms":5000,"max_retry_after_ms":1000,
                   "backoff":{"base_ms":50,"cap_ms":400}}""",
            ).jsonObject,
            policy.toCore(),
        )
        AcdClient(SECRET, retry = policy)
    }

    @Test
    fun `built requests and started calls never share an idempotency key`() {
        val config =
            ClientConfig.fromJson("""{"idempotency_keys": true, "seed": 5}""")
                .withCredential("main", CredentialKind.API_KEY, SECRET, "ada")
                .withCreateAgentRun()
                .withIdempotencyKeysHonoured("createAgentRun")
        val client = Client(config)
        val spec =
            RequestSpec(
                "createAgentRun", listOf(PathParam("agent_id", "a1")), emptyList(), emptyList(), null,
                EgressMode.DEFAULT, "{}".toByteArray(), null,
            )
        fun key(request: acd.ClientRequest) = request.wireHeaders().first { it.name.lowercase() == "idempotency-key" }.value
        val built = key(client.build(spec))
        client.start(spec)
        val started = key(client.pollTransmit(1_700_000_000_000)!!.request)
        assertNotEquals(built, started)
        val more = (1..10).map { key(client.build(spec)) }.toSet()
        assertEquals(10, more.size)
        assertFalse(built in more || started in more)
    }
}
