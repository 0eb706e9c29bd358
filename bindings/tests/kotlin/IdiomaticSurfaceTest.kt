// The idiomatic surface of dev.acd: value types with content equality,
// signed numbers, the sealed Event, typed exceptions and redaction, driven
// through the sans-IO AcdClient with hand-written responses.
package acdtest

import dev.acd.AcdClient
import dev.acd.BadRequestException
import dev.acd.Body
import dev.acd.ConfigException
import dev.acd.Event
import dev.acd.FailureKind
import dev.acd.Header
import dev.acd.Record
import dev.acd.Request
import dev.acd.Response
import dev.acd.ServerException
import dev.acd.WaitReason
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertIs
import kotlin.test.assertNotEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue

private const val SURFACE_NOW = 1_700_000_000_000L
private const val SECRET = "acd_live_demo_ada"

private fun reply(status: Int, body: String) = Response(status, listOf(Header("Content-Type", "application/json")), Body.of(body))

class IdiomaticSurfaceTest {
    @Test
    fun `bodies, requests and responses compare by content`() {
        val bytes = byteArrayOf(1, 2, 3)
        val body = Body(bytes)
        bytes[0] = 9 // the body kept its own copy
        assertEquals(Body(byteArrayOf(1, 2, 3)), body)
        assertEquals(Body(byteArrayOf(1, 2, 3)).hashCode(), body.hashCode())
        assertNotEquals(Body(byteArrayOf(1, 2)), body)
        assertEquals(3L, body.size)
        assertEquals("Body(3 bytes)", body.toString())
        assertEquals(reply(200, "{}"), reply(200, "{}"))
        assertEquals(Request("GET", "https://x/a", emptyList(), Body.of("x")), Request("GET", "https://x/a", emptyList(), Body.of("x")))
    }

    @Test
    fun `records read typed members and give null for absent or other types`() {
        val record = Record(buildJsonObject { put("id", 7); put("name", "Ada"); put("paid", true) })
        assertEquals(7L, record.long("id"))
        assertEquals("Ada", record.string("name"))
        assertEquals(true, record.boolean("paid"))
        assertNull(record.long("name"))
        assertNull(record.string("id"))
        assertNull(record.string("missing"))
        assertEquals(JsonPrimitive(7), record["id"])
    }

    @Test
    fun `a pager's request, page and done come out as signed, immutable values`() {
        val client = AcdClient(SECRET, "https://api.example.test", user = "ada", seed = 3)
        val call: Long = client.startTablePager("orders", pageSize = 2)

        val transmit = client.pollTransmit(SURFACE_NOW) ?: error("a request is due")
        assertEquals(call, transmit.call)
        assertEquals("GET", transmit.request.method)
        assertTrue(transmit.request.url.startsWith("https://api.example.test/api/v1/tables/orders?"), transmit.request.url)
        assertNull(transmit.request.body)
        assertFalse(SECRET in transmit.request.toString(), transmit.request.toString())
        assertTrue(transmit.request.headers.any { it.value == SECRET }, "the wire headers carry the key")
        assertNull(client.pollTransmit(SURFACE_NOW), "one request in flight per pager")

        client.handle(call, reply(200, """{"data": [{"id": 1}]}"""), SURFACE_NOW + 5)
        val events = client.pollEvents()

        assertEquals(
            listOf(Event.Page(call, listOf(Record(buildJsonObject { put("id", 1) })), 1L, true), Event.Done(call)),
            events,
        )
        assertTrue(client.isIdle)
        assertNull(client.pollTimeout())
    }

    @Test
    fun `a retried 503 shows a backoff wait, then the call fails with a ServerException`() {
        val client = AcdClient(SECRET, "https://api.example.test", user = "ada", seed = 3, retry = dev.acd.RetryPolicy(maxAttempts = 2))
        val call = client.start("listTableRecords", path = mapOf("id" to "orders"))
        var now = SURFACE_NOW
        val seen = mutableListOf<Event>()
        repeat(2) {
            val transmit = client.pollTransmit(now) ?: error("attempt ${it + 1} is due at $now")
            client.handle(transmit.call, reply(503, """{"detail": "down", "status": 503}"""), now)
            seen += client.pollEvents()
            client.pollTimeout()?.let { next -> now = next }
        }

        val waiting = assertIs<Event.Waiting>(seen.first())
        assertEquals(call, waiting.call)
        assertEquals(WaitReason.Backoff(2), waiting.reason)
        assertNull(waiting.limit)
        assertTrue(waiting.until >= SURFACE_NOW + 100, "a retry is at least 100 ms after the answer: ${waiting.until}")
        val failed = assertIs<Event.Failed>(seen.last())
        val error = assertIs<ServerException>(failed.error)
        assertEquals(503, error.status)
        assertEquals("down", error.detail)
    }

    @Test
    fun `a transport failure is handed over by kind`() {
        val client = AcdClient(SECRET, "https://api.example.test", seed = 3, retry = dev.acd.RetryPolicy(maxAttempts = 1))
        val call = client.start("getApiIndex")
        client.pollTransmit(SURFACE_NOW)
        client.handleFailure(call, FailureKind.TIMEOUT, SURFACE_NOW + 30_000)
        val failed = assertIs<Event.Failed>(client.pollEvents().single())
        assertIs<dev.acd.TimeoutException>(failed.error)
    }

    @Test
    fun `refusals are typed exceptions with the core's sentence`() {
        val client = AcdClient(SECRET, "https://api.example.test", seed = 3)
        val unknown = assertThrows<ConfigException> { client.start("noSuchOperation") }
        assertEquals(
            "operation \"noSuchOperation\" is not in this client's catalogue; check the spelling or add it to the client's catalogue",
            unknown.message,
        )
        val bad = assertThrows<BadRequestException> { client.startTablePager("orders", pageSize = 0) }
        assertNull(bad.status)
        assertEquals(bad.message, bad.detail)
        val negative = assertThrows<ConfigException> { client.pollTransmit(-1) }
        assertEquals("now_ms must be Unix milliseconds from 0 to 9223372036854775807; got -1", negative.message)
        assertThrows<ConfigException> { AcdClient(SECRET, "not a url") }
    }

    @Test
    fun `nothing printed shows the key`() {
        val client = AcdClient(SECRET, "https://api.example.test", seed = 3)
        assertEquals("AcdClient(baseUrl=https://api.example.test)", client.toString())
        val api = dev.acd.AcdHttpClient(SECRET, "https://api.example.test", seed = 3)
        assertFalse(SECRET in api.toString())
        assertFalse(SECRET in api.blocking().toString())
    }
}
