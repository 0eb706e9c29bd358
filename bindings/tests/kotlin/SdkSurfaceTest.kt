// The SDK surface of docs/sdk.md through AcdHttpClient against FaultServer
// (real HTTP on loopback, virtual waits where the test says so): records and
// their decode, the error class of each category, strict event decoding,
// per-call headers, runs created, read and waited for, visible waits
// (onEvent and the "acd" logger), closing, and the Java names.
@file:OptIn(ExperimentalCoroutinesApi::class)

package acdtest

import dev.acd.AcdException
import dev.acd.AcdHttpClient
import dev.acd.AcdRecord
import dev.acd.AuthenticationException
import dev.acd.BadRequestException
import dev.acd.ConfigException
import dev.acd.ConnectionException
import dev.acd.Event
import dev.acd.NotFoundException
import dev.acd.PermissionException
import dev.acd.RateLimitException
import dev.acd.RequestException
import dev.acd.RetryPolicy
import dev.acd.ServerException
import dev.acd.decode
import dev.acd.eventOf
import dev.acd.testing.DEMO_API_KEY
import dev.acd.testing.GateTransport
import dev.acd.testing.Quota
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.test.advanceTimeBy
import kotlinx.coroutines.test.runCurrent
import kotlinx.coroutines.test.runTest
import kotlinx.serialization.Serializable
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.put
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.io.File
import java.net.ServerSocket
import java.net.http.HttpClient
import java.util.logging.Handler
import java.util.logging.Level
import java.util.logging.LogRecord
import java.util.logging.Logger
import kotlin.reflect.KClass
import kotlin.test.assertEquals
import kotlin.test.assertIs
import kotlin.test.assertNull
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.milliseconds

private const val KEY = "acd_live_demo_ada"
private const val T0 = 1_700_000_001_000L

@Serializable
private data class Order(val id: Long, val status: String)

private fun json(text: String): JsonObject = Json.parseToJsonElement(text).jsonObject

class SdkSurfaceTest {
    @Test
    fun `records read typed members and decode into a class of yours`() {
        val record = AcdRecord(json("""{"id": 7, "status": "paid", "paid": true, "extra": [1]}"""))
        assertEquals(7L, record.long("id"))
        assertEquals("paid", record.string("status"))
        assertEquals(true, record.boolean("paid"))
        assertNull(record.long("status"))
        assertNull(record.string("missing"))
        assertEquals(Order(7, "paid"), record.decode<Order>())
        val error = assertThrows<RequestException> { AcdRecord(json("""{"id": "x"}""")).decode<Order>() }
        assertEquals("invalid_request", error.category)
    }

    @Test
    fun `each error category becomes its class, with the status and the API's detail`() {
        val cases: List<Pair<Int, KClass<out AcdException>>> =
            listOf(
                400 to BadRequestException::class,
                401 to AuthenticationException::class,
                403 to PermissionException::class,
                404 to NotFoundException::class,
                429 to RateLimitException::class,
                503 to ServerException::class,
            )
        for ((status, expected) in cases) {
            FaultServer { Reply(status, body = errorBody(status, "said $status")) }.use { server ->
                AcdHttpClient(KEY, server.baseUrl, retry = RetryPolicy(maxAttempts = 1)).use { api ->
                    val error = assertThrows<AcdException> { runBlocking { api.tables.read("orders") } }
                    assertEquals(expected, error::class, "status $status: $error")
                    assertEquals(status, error.status)
                    assertEquals("said $status", error.detail)
                }
            }
        }
        val port = ServerSocket(0).use { it.localPort }
        AcdHttpClient(KEY, "http://127.0.0.1:$port", retry = RetryPolicy(maxAttempts = 1)).use { api ->
            val error = assertThrows<ConnectionException> { runBlocking { api.tables.read("orders") } }
            assertEquals("connection", error.category)
        }
        AcdHttpClient(KEY, "http://127.0.0.1:$port").use { api ->
            // Refused before sending: a request error, never an HTTP-status one.
            val error = assertThrows<RequestException> { runBlocking { api.tables.read("orders", pageSize = 0) } }
            assertNull(error.status)
        }
    }

    @Test
    fun `events decode strictly and an unknown type is Unknown, never Failed`() {
        assertEquals(Event.Done(3), eventOf(json("""{"call": 3, "type": "done"}""")))
        val unknown = eventOf(json("""{"call": 3, "type": "checkpoint", "n": 1}"""))
        assertEquals(Event.Unknown(3, "checkpoint", json("""{"call": 3, "type": "checkpoint", "n": 1}""")), unknown)
        val waiting =
            eventOf(
                json(
                    """{"call": 1, "type": "waiting", "until": 1700000001000, "reason": "quota",
                        "limit": {"name": "user_table_reads", "requests": 100, "window_seconds": 60},
                        "message": "waiting 1.0 s for limit user_table_reads (100 per 60 s)"}""",
                ),
            )
        assertEquals("waiting 1.0 s for limit user_table_reads (100 per 60 s)", assertIs<Event.Waiting>(waiting).message)
        assertEquals("user_table_reads", waiting.limit?.name)
        val failed =
            eventOf(
                json(
                    """{"call": 1, "type": "failed", "error": {"type": "rate_limited", "category": "rate_limit",
                        "status": 429, "message": "gave up", "retry_at_ms": 1700000060000}}""",
                ),
            )
        val error = assertIs<RateLimitException>(assertIs<Event.Failed>(failed).error)
        assertEquals(1_700_000_060_000L, error.retryAt)
        assertEquals("gave up", error.message)
        assertThrows<AcdException> { eventOf(json("""{"call": 1, "type": "page", "page": 1}""")) }
    }

    @Test
    fun `per-call headers reach the server on every attempt`() {
        FaultServer { n -> if (n == 0) Reply(503, body = errorBody(503, "busy")) else Reply(200, body = pageBody(1)) }.use { server ->
            AcdHttpClient(KEY, server.baseUrl, retry = RetryPolicy(backoffBase = 1.milliseconds, backoffCap = 1.milliseconds)).use { api ->
                runBlocking { api.tables.read("orders", headers = mapOf("Prefer" to "code=429")) }
            }
            assertEquals(listOf("code=429", "code=429"), server.seen.map { it["prefer"] })
        }
    }

    @Test
    fun `a run is created, read and waited for until it succeeds`() =
        runTest {
            val statuses = listOf("queued", "running", "running", "succeeded")
            FaultServer { n -> Reply(if (n == 0) 201 else 200, body = """{"data": {"id": "run_1", "agent_id": "a1", "status": "${statuses[minOf(n, 3)]}"}}""") }.use { server ->
                AcdHttpClient(KEY, server.baseUrl, clock = { T0 + testScheduler.currentTime }).use { api ->
                    val created = api.runs.create("a1", JsonPrimitive("hello"))
                    assertEquals(Triple("run_1", "queued", "a1"), Triple(created.id, created.status, created.agentId))
                    assertEquals("running", api.runs.get("run_1").status)
                    assertEquals("succeeded", api.runs.wait("run_1", interval = 1_000.milliseconds).status)
                    assertEquals(4, server.hits)
                }
            }
        }

    @Test
    fun `every wait reaches onEvent and the acd logger with the same sentence`() =
        runTest {
            val records = mutableListOf<LogRecord>()
            val handler =
                object : Handler() {
                    override fun publish(record: LogRecord) {
                        records += record
                    }

                    override fun flush() {}

                    override fun close() {}
                }
            Logger.getLogger("acd").addHandler(handler)
            try {
                val clock = { T0 + testScheduler.currentTime }
                val rows = (1..6).map { buildJsonObject { put("id", it) } }
                val gate = GateTransport(clock, tables = mapOf("orders" to rows), limits = mapOf("user_table_reads" to Quota(2, 3_000)))
                val events = mutableListOf<Event>()
                val api = AcdHttpClient(DEMO_API_KEY, seed = 7, transport = gate, clock = clock, onEvent = { events += it })

                assertEquals(6, api.tables.iter("orders", pageSize = 2).toList().size)

                val waits = events.filterIsInstance<Event.Waiting>()
                assertTrue(waits.isNotEmpty(), "$events")
                assertTrue(waits.any { it.limit?.name == "user_table_reads" && "user_table_reads" in it.message }, "$waits")
                val shown = events.mapNotNull { (it as? Event.Waiting)?.message ?: (it as? Event.Retrying)?.message }
                assertEquals(shown, records.filter { it.level == Level.INFO }.map { it.message })
                assertEquals(List(gate.requests.size) { 200 }, gate.statuses)
            } finally {
                Logger.getLogger("acd").removeHandler(handler)
            }
        }

    @Test
    fun `cancelling the coroutine stops the pager - nothing more is sent`() =
        runTest {
            val clock = { T0 + testScheduler.currentTime }
            val rows = (1..20).map { buildJsonObject { put("id", it) } }
            val gate = GateTransport(clock, tables = mapOf("orders" to rows), limits = mapOf("user_table_reads" to Quota(2, 60_000)))
            val api = AcdHttpClient(DEMO_API_KEY, seed = 7, transport = gate, clock = clock)
            val job = launch { api.tables.iter("orders", pageSize = 1).toList() }
            advanceTimeBy(1_000)
            runCurrent()
            val sent = gate.requests.size
            assertTrue(sent in 2..3, "$sent requests before the window's wait")
            job.cancel()
            advanceTimeBy(300_000)
            assertEquals(sent, gate.requests.size)
        }

    @Test
    fun `a closed client refuses calls at once and leaves a passed-in HttpClient alone`() {
        FaultServer { Reply(200, body = pageBody(1)) }.use { server ->
            val http = HttpClient.newHttpClient()
            val api = AcdHttpClient(KEY, server.baseUrl, http = http)
            assertEquals(1, runBlocking { api.tables.read("orders") }.size)
            api.close()
            val error = assertThrows<ConfigException> { runBlocking { api.tables.read("orders") } }
            assertEquals("this AcdHttpClient is closed; make a new one to send more calls", error.message)
            assertThrows<ConfigException> { api.java().index() }
            assertEquals(1, server.hits)
            // The caller's HttpClient still sends.
            val request = java.net.http.HttpRequest.newBuilder(java.net.URI.create(server.baseUrl)).build()
            assertEquals(200, http.send(request, java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode())
        }
    }

    @Test
    fun `nothing printed shows the key`() {
        AcdHttpClient(KEY, "https://api.example.test").use { api ->
            assertTrue(KEY !in api.toString() && KEY !in api.java().toString(), api.toString())
        }
        val request = dev.acd.Request("GET", "https://api.example.test/api/v1?x=1", listOf(dev.acd.Header("X-API-Key", KEY)), null)
        assertEquals("Request(GET https://api.example.test/api/v1, headers=[Header(name=X-API-Key, value=<redacted>)])", request.toString())
    }

    @Test
    fun `no public type is named like a java_lang or java_util_concurrent type`() {
        val dir = File(AcdHttpClient::class.java.protectionDomain.codeSource.location.toURI()).resolve("dev/acd")
        val names = dir.walk().filter { it.isFile && it.name.endsWith(".class") && '$' !in it.name }.map { it.name.removeSuffix(".class") }.toList()
        assertTrue("AcdRecord" in names && "AcdTimeoutException" in names, "$names")
        val clashes =
            names.filter { name ->
                listOf("java.lang.", "java.util.concurrent.").any { runCatching { Class.forName(it + name) }.isSuccess }
            }
        assertEquals(emptyList(), clashes)
    }
}
