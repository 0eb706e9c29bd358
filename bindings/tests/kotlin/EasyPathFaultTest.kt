// The easy path (AcdHttpClient over java.net.http) against faults from an
// in-test HTTP server, in virtual time (kotlinx-coroutines-test): a 429 with
// Retry-After, a 503 storm, timeouts, a refused connection, an Error body.
@file:OptIn(ExperimentalCoroutinesApi::class)

package acdtest

import dev.acd.AcdHttpClient
import dev.acd.ConnectionException
import dev.acd.JavaHttpTransport
import dev.acd.NotFoundException
import dev.acd.RetryPolicy
import dev.acd.ServerException
import dev.acd.AcdTimeoutException
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.test.runTest
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.net.ServerSocket
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertIs
import kotlin.test.assertNull

private const val KEY = "acd_live_demo_ada"
private const val START = 1_700_000_000_000L

class EasyPathFaultTest {
    @Test
    fun `a 429 with Retry-After 2 is retried exactly 2000 virtual ms later and then succeeds`() =
        runTest {
            FaultServer { n ->
                if (n == 0) Reply(429, mapOf("Retry-After" to "2"), errorBody(429, "slow down")) else Reply(200, body = pageBody(1, 2))
            }.use { server ->
                val clock = { START + testScheduler.currentTime }
                val transport = RecordingTransport(JavaHttpTransport(), clock)
                // No backoff on top of the server's wait: the retry is at exactly Retry-After.
                val policy = RetryPolicy(backoffBase = Duration.ZERO, backoffCap = Duration.ZERO)
                val api = AcdHttpClient(KEY, server.baseUrl, retry = policy, seed = 7, transport = transport, clock = clock)

                val records = api.tables.read("orders")

                assertEquals(listOf(1L, 2L), records.map { it.long("id") })
                assertEquals(listOf(429, 200), transport.statuses)
                assertEquals(2, server.hits)
                assertEquals(2_000L, transport.sentAt[1] - transport.sentAt[0])
            }
        }

    @Test
    fun `a 503 storm gives up after the policy's 3 attempts with a ServerException of status 503`() =
        runTest {
            FaultServer { Reply(503, body = errorBody(503, "the store is down")) }.use { server ->
                val api = AcdHttpClient(KEY, server.baseUrl, retry = RetryPolicy(maxAttempts = 3), seed = 1, clock = { START + testScheduler.currentTime })

                val error = assertThrows<ServerException> { api.tables.read("orders") }

                assertEquals(503, error.status)
                assertEquals("the store is down", error.detail)
                assertEquals(buildJsonObject { put("detail", "the store is down"); put("status", 503) }, error.body)
                assertEquals(3, server.hits)
            }
        }

    @Test
    fun `a server slower than the transport's timeout gives a TimeoutException after 2 attempts`() =
        runTest {
            FaultServer { Reply(200, body = pageBody(1), delayMs = 1_500) }.use { server ->
                val transport = JavaHttpTransport(timeout = 200.milliseconds)
                val api =
                    AcdHttpClient(KEY, server.baseUrl, retry = RetryPolicy(maxAttempts = 2), seed = 1, transport = transport, clock = { START + testScheduler.currentTime })

                val error = assertThrows<AcdTimeoutException> { api.tables.read("orders") }

                assertNull(error.status)
                assertEquals(2, server.hits)
            }
        }

    @Test
    fun `a refused connection is a ConnectionException, not a timeout, after every attempt`() =
        runTest {
            val port = ServerSocket(0).use { it.localPort } // free, then closed: nothing listens
            val api =
                AcdHttpClient(KEY, "http://127.0.0.1:$port", retry = RetryPolicy(maxAttempts = 2), seed = 1, clock = { START + testScheduler.currentTime })

            val error = assertThrows<ConnectionException> { api.tables.read("orders") }

            assertFalse(error is AcdTimeoutException, "a refused connection was never sent: $error")
            assertNull(error.status)
        }

    @Test
    fun `a 404 Error body becomes a NotFoundException carrying status, detail and body, without retrying`() =
        runTest {
            FaultServer { Reply(404, body = """{"detail": "no table named nope", "status": 404, "table": "nope"}""") }.use { server ->
                val api = AcdHttpClient(KEY, server.baseUrl, seed = 1, clock = { START + testScheduler.currentTime })

                val error = assertThrows<NotFoundException> { api.tables.read("nope") }

                assertEquals(404, error.status)
                assertEquals("no table named nope", error.detail)
                assertEquals(JsonPrimitive("nope"), error.body?.get("table"))
                assertEquals(1, server.hits)
                assertEquals(0L, testScheduler.currentTime)
            }
        }

    @Test
    fun `the Java face reads the same page as a future`() {
        FaultServer { Reply(200, body = pageBody(5, 6, 7)) }.use { server ->
            AcdHttpClient(KEY, server.baseUrl).use { api ->
                val records = api.java().tables.read("orders", 3).join()
                assertEquals(listOf(5L, 6L, 7L), records.map { it.long("id") })
            }
        }
    }
}
