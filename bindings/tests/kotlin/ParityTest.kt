// The parity steps of docs/sdk.md in Kotlin, against a REAL acd-sandbox (the
// binary in ACD_SANDBOX_BIN, set by scripts/test-kotlin; started here with
// --faults and its own data): each row of the SDK table, each row of the
// error table, a 429 that is waited out (the "acd" log line and the event
// checked), a deprecation notice, and a run created and waited for. The
// same steps run in Python and JavaScript.
package acdtest

import dev.acd.AcdException
import dev.acd.AcdHttpClient
import dev.acd.AcdRecord
import dev.acd.AcdTimeoutException
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
import kotlinx.coroutines.async
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assumptions.assumeTrue
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows
import java.io.File
import java.net.ServerSocket
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.logging.Handler
import java.util.logging.Level
import java.util.logging.LogRecord
import java.util.logging.Logger
import kotlin.reflect.KClass
import kotlin.test.assertEquals
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

private val ORDERS: List<JsonObject> = (1..7).map { buildJsonObject { put("id", it); put("total", it * 10) } }
private val CONTACTS: List<JsonObject> = (1..3).map { buildJsonObject { put("id", "c$it") } }
private const val DEPRECATED_AT = 1_735_689_600L // 1 January 2025 (UTC)
private const val SUNSET_AT = 1_767_225_600L // 1 January 2026 (UTC)

private val CONFIG =
    """{"tables": [{"id": "orders", "owner": "ada", "records": $ORDERS}, {"id": "tight", "owner": "ada", "records": $ORDERS}],
        "connections": [{"id": "crm", "owner": "ada", "entities": {"contacts": $CONTACTS}}],
        "extra_limits": {"user_table_reads": {"requests": 3, "window_ms": 2000}},
        "runs": {"lifecycle": [{"status": "queued", "duration_ms": 200}, {"status": "running", "duration_ms": 300}, {"status": "succeeded"}]},
        "version_deprecation": {"deprecated_at": $DEPRECATED_AT, "sunset_at": $SUNSET_AT}}"""

private fun rows(records: List<AcdRecord>): List<JsonObject> = records.map { it.json }

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ParityTest {
    private val bin: String = System.getenv("ACD_SANDBOX_BIN").orEmpty()
    private var process: Process? = null
    private var url: String = ""

    @BeforeAll
    fun start() {
        if (bin.isEmpty()) return
        val config = File.createTempFile("acd-parity", ".json").apply { writeText(CONFIG); deleteOnExit() }
        val started =
            ProcessBuilder(bin, "--listen", "127.0.0.1:0", "--faults", "--log", "off", "--config", config.path)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start()
        process = started
        val line = started.inputStream.bufferedReader().readLine().orEmpty()
        assertTrue(line.startsWith("acd-sandbox listening on "), line)
        url = line.substringAfterLast(' ')
    }

    @AfterAll
    fun stop() {
        process?.destroy()
        process?.waitFor()
    }

    private fun api(
        retry: RetryPolicy? = null,
        onEvent: ((Event) -> Unit)? = null,
    ): AcdHttpClient {
        assumeTrue(bin.isNotEmpty(), "needs the acd-sandbox binary (ACD_SANDBOX_BIN): run through scripts/test-kotlin")
        return AcdHttpClient(ADA, url, retry = retry, onEvent = onEvent)
    }

    @Test
    fun `the index`() =
        runBlocking {
            api().use { api ->
                val index = api.index()
                assertEquals("v1", index.version)
                assertEquals(100L to 60L, index.rateLimits.requests to index.rateLimits.windowSeconds)
            }
        }

    @Test
    fun `tables read, iter and pages`() =
        runBlocking {
            api().use { api ->
                assertEquals(ORDERS.subList(1, 3), rows(api.tables.read("orders", pageSize = 2, offset = 1)))
                assertEquals(ORDERS.takeLast(1), rows(api.tables.read("orders", pageSize = 1, orderBy = "id", descending = true)))
                assertEquals(ORDERS, rows(api.tables.iter("orders", pageSize = 3).toList()))
                assertEquals(listOf(3, 3, 1), api.tables.pages("orders", pageSize = 3).toList().map { it.records.size })
            }
        }

    @Test
    fun `connections read, iter and pages`() =
        runBlocking {
            api().use { api ->
                assertEquals(CONTACTS.take(2), rows(api.connections.read("crm", "contacts", pageSize = 2)))
                assertEquals(CONTACTS, rows(api.connections.iter("crm", "contacts", pageSize = 2).toList()))
                assertEquals(listOf(2, 1), api.connections.pages("crm", "contacts", pageSize = 2).toList().map { it.records.size })
            }
        }

    @Test
    fun `a run is created, got and waited for`() =
        runBlocking {
            api().use { api ->
                val run = api.runs.create("agent-1", buildJsonObject { put("question", "parity") })
                assertEquals("queued", run.status)
                assertEquals(run.id, api.runs.get(run.id).id)
                assertEquals("succeeded", api.runs.wait(run.id, interval = 200.milliseconds, timeout = 30.seconds).status)
            }
        }

    @Test
    fun `any catalogue operation`() =
        runBlocking {
            api().use { api ->
                val response = api.request("listTableRecords", path = mapOf("id" to "orders"), query = mapOf("limit" to "2"))
                assertEquals(200, response.status)
                assertEquals(ORDERS.take(2), rows(response.records))
            }
        }

    @Test
    fun `the throttle's view of each limit`() =
        runBlocking {
            api().use { api ->
                api.connections.read("crm", "contacts", pageSize = 1)
                val limits = api.limits()
                assertTrue(limits.isNotEmpty() && limits.all { it.requests > 0 && it.window.isPositive() }, "$limits")
                assertTrue(limits.all { it.remaining < it.requests }, "$limits")
            }
        }

    @Test
    fun `per-call options - headers, timeout and max attempts`() =
        runBlocking {
            api(retry = RetryPolicy(maxAttempts = 1)).use { api ->
                assertThrows<NotFoundException> { runBlocking { api.tables.read("orders", headers = mapOf("Prefer" to "code=404")) } }
                assertThrows<AcdTimeoutException> {
                    runBlocking { api.tables.read("orders", headers = mapOf("Prefer" to "latency=3000"), timeout = 500.milliseconds) }
                }
                assertEquals(ORDERS.take(1), rows(api.tables.read("orders", pageSize = 1, maxAttempts = 2)))
            }
        }

    @Test
    fun `a 429 is waited out and shown on onEvent and the acd logger`() {
        assumeTrue(bin.isNotEmpty(), "needs the acd-sandbox binary")
        // Plain requests use up the per-user window (until the server answers
        // 429 with most of the window ahead), so the next client, which knows
        // nothing of them, draws a 429.
        val http = HttpClient.newHttpClient()
        for (attempt in 1..20) {
            val request = HttpRequest.newBuilder(URI.create("$url/api/v1/tables/tight?limit=1")).header("X-API-Key", ADA).build()
            val response = http.send(request, HttpResponse.BodyHandlers.discarding())
            if (response.statusCode() == 429) {
                val retryAfter = response.headers().firstValue("Retry-After").orElse("0").toLong()
                if (retryAfter >= 2) break
                Thread.sleep(retryAfter * 1_000)
            }
        }
        val logged = mutableListOf<LogRecord>()
        val handler =
            object : Handler() {
                override fun publish(record: LogRecord) {
                    synchronized(logged) { logged += record }
                }

                override fun flush() {}

                override fun close() {}
            }
        Logger.getLogger("acd").addHandler(handler)
        val events = mutableListOf<Event>()
        try {
            api(onEvent = { synchronized(events) { events += it } }).use { api ->
                assertEquals(ORDERS.take(1), rows(runBlocking { api.tables.read("tight", pageSize = 1) }))
            }
        } finally {
            Logger.getLogger("acd").removeHandler(handler)
        }
        val shown = events.filter { it is Event.Waiting || it is Event.Retrying }
        assertTrue(shown.isNotEmpty(), "$events")
        // Each wait or retry is said once at the core's level: the retry at
        // INFO, and its own wait (the same wait) at DEBUG, below the logger's
        // default threshold.
        val level = { it: Event -> if (it is Event.Waiting) it.level else ((it as Event.Retrying).json["level"] as? kotlinx.serialization.json.JsonPrimitive)?.content }
        val message = { it: Event -> if (it is Event.Waiting) it.message else (it as Event.Retrying).message }
        assertEquals(shown.filter { level(it) != "debug" }.map(message), logged.filter { it.level == Level.INFO }.map { it.message })
        assertTrue(shown.any { it is Event.Retrying && level(it) == "info" }, "$shown")
    }

    @Test
    fun `a deprecation notice is shown with its dates`() =
        runBlocking {
            val events = mutableListOf<Event>()
            api(onEvent = { events += it }).use { api -> api.index() }
            val notices = events.filterIsInstance<Event.Deprecation>()
            assertEquals(1, notices.size, "$events")
            val text = notices.single().message
            assertTrue("2025" in text && "2026" in text && "$DEPRECATED_AT" !in text, text)
        }

    @Test
    fun `closing, and a call after it`() =
        runBlocking {
            val api = api()
            api.use { it.index() }
            assertThrows<ConfigException> { runBlocking { api.index() } }
            Unit
        }

    @Test
    fun `cancelling the coroutine cancels the call`() =
        runBlocking {
            api().use { api ->
                val call = async { api.tables.read("orders", headers = mapOf("Prefer" to "latency=5000")) }
                delay(300)
                val started = System.nanoTime()
                call.cancel()
                runCatching { call.await() }
                assertTrue((System.nanoTime() - started) / 1_000_000 < 2_000, "the cancelled call kept running")
                assertEquals(ORDERS.take(1), rows(api.tables.read("orders", pageSize = 1)))
            }
        }

    @Test
    fun `each error row`() {
        val cases: List<Triple<String, KClass<out AcdException>, Int>> =
            listOf(
                Triple("code=400", BadRequestException::class, 400),
                Triple("code=403", PermissionException::class, 403),
                Triple("code=404", NotFoundException::class, 404),
                Triple("code=429;retry-after=1", RateLimitException::class, 429),
                Triple("code=500", ServerException::class, 500),
            )
        api(retry = RetryPolicy(maxAttempts = 1)).use { api ->
            for ((prefer, expected, status) in cases) {
                val error = assertThrows<AcdException> { runBlocking { api.connections.read("crm", "contacts", headers = mapOf("Prefer" to prefer)) } }
                assertEquals(expected, error::class, prefer)
                assertEquals(status, error.status, prefer)
            }
        }
        AcdHttpClient("acd_live_nobody", url).use { api ->
            assertEquals(401, assertThrows<AuthenticationException> { runBlocking { api.tables.read("orders") } }.status)
        }
        api().use { api ->
            assertEquals(null, assertThrows<RequestException> { runBlocking { api.tables.read("orders", pageSize = 0) } }.status)
            assertThrows<AcdException> { runBlocking { api.request("noSuchOperation") } }
        }
        val port = ServerSocket(0).use { it.localPort }
        AcdHttpClient(ADA, "http://127.0.0.1:$port", retry = RetryPolicy(maxAttempts = 1)).use { api ->
            assertEquals(ConnectionException::class, assertThrows<ConnectionException> { runBlocking { api.index() } }::class)
        }
    }

    @Test
    fun `the Java face`() {
        api().use { api ->
            assertEquals("v1", api.java().index().join().version)
            assertEquals(ORDERS, api.java().tables.iter("orders", 3).map { it.json })
        }
    }
}
