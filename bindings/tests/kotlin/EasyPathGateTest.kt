// The easy path in virtual time against the in-process gate of
// dev.acd.testing: runTest's scheduler is the clock and the delay, the gate
// reads the same clock. No server, no real waiting.
@file:OptIn(ExperimentalCoroutinesApi::class)

package acdtest

import dev.acd.AcdHttpClient
import dev.acd.AuthenticationException
import dev.acd.ConfigException
import dev.acd.FailureKind
import dev.acd.NotFoundException
import dev.acd.AcdRecord
import dev.acd.Response
import dev.acd.TransportFailureException
import dev.acd.testing.DEMO_API_KEY
import dev.acd.testing.Fault
import dev.acd.testing.GateTransport
import dev.acd.testing.Quota
import dev.acd.testing.VirtualClock
import kotlinx.coroutines.async
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.test.TestScope
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.test.runTest
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import kotlin.test.assertEquals
import kotlin.test.assertTrue

private val GATE_ROWS: List<JsonObject> = (1..23).map { buildJsonObject { put("id", it); put("name", "row-$it") } }

// 5 reads per 3 s for each user: 23 rows in pages of 2 need 12 reads.
private val SHORT_WINDOW = mapOf("user_table_reads" to Quota(requests = 5, windowMs = 3_000))

// A start on a 3 s boundary of the Unix epoch, where fixed windows begin.
private const val ALIGNED_MS = 1_700_000_001_000L

private fun TestScope.virtualClock(): () -> Long = { ALIGNED_MS + testScheduler.currentTime }

private fun TestScope.api(gate: GateTransport): AcdHttpClient =
    AcdHttpClient(DEMO_API_KEY, seed = 7, transport = gate, clock = virtualClock())

class EasyPathGateTest {
    @Test
    fun `23 rows past a 5 per 3 s window arrive once each with 12 reads and no 429`() =
        runTest {
            val gate = GateTransport(virtualClock(), tables = mapOf("orders" to GATE_ROWS), limits = SHORT_WINDOW)

            val rows = api(gate).tables.iter("orders", pageSize = 2).toList()

            assertEquals(GATE_ROWS.map(::AcdRecord), rows)
            assertEquals(List(12) { 200 }, gate.statuses)
            // Reads 1-5 at 0 s, 6-10 once the window resets at 3 s, 11-12 after 6 s.
            assertTrue(testScheduler.currentTime >= 6_000, "elapsed ${testScheduler.currentTime} ms")
        }

    @Test
    fun `read returns one page and index the document`() =
        runTest {
            val gate = GateTransport(virtualClock(), tables = mapOf("orders" to GATE_ROWS))
            val api = api(gate)

            assertEquals(GATE_ROWS.subList(20, 23).map(::AcdRecord), api.tables.read("orders", pageSize = 3, offset = 20))
            assertEquals("v1", api.index().version)
            assertEquals(listOf(200, 200), gate.statuses)
            assertEquals(0L, testScheduler.currentTime)
        }

    @Test
    fun `stopping a flow early sends no more requests`() =
        runTest {
            val gate = GateTransport(virtualClock(), tables = mapOf("orders" to GATE_ROWS))

            val first = api(gate).tables.iter("orders", pageSize = 2).take(3).toList()

            assertEquals(GATE_ROWS.take(3).map(::AcdRecord), first)
            assertEquals(2, gate.requests.size)
        }

    @Test
    fun `two tables paged concurrently each arrive whole, in 6 and 3 reads`() =
        runTest {
            val gate = GateTransport(virtualClock(), tables = mapOf("orders" to GATE_ROWS, "invoices" to GATE_ROWS.take(5)))
            val api = api(gate)

            val orders = async { api.tables.iter("orders", pageSize = 4).toList() }
            val invoices = async { api.tables.iter("invoices", pageSize = 2).toList() }

            assertEquals(GATE_ROWS.map(::AcdRecord), orders.await())
            assertEquals(GATE_ROWS.take(5).map(::AcdRecord), invoices.await())
            assertEquals(List(9) { 200 }, gate.statuses)
        }

    @Test
    fun `an unknown table is a NotFoundException with its body`() =
        runTest {
            val gate = GateTransport(virtualClock(), tables = mapOf("orders" to GATE_ROWS))

            val error = assertThrows<NotFoundException> { api(gate).tables.read("missing") }

            assertEquals(404, error.status)
            assertEquals(JsonPrimitive(404), error.body?.get("status"))
            assertEquals(listOf(404), gate.statuses)
        }

    @Test
    fun `an unknown key is an AuthenticationException and is not retried`() =
        runTest {
            val gate = GateTransport(virtualClock(), tables = mapOf("orders" to GATE_ROWS))
            val api = AcdHttpClient("acd_live_nobody", seed = 1, transport = gate, clock = virtualClock())

            val error = assertThrows<AuthenticationException> { api.tables.read("orders") }

            assertEquals(401, error.status)
            assertEquals(listOf(401), gate.statuses)
        }

    @Test
    fun `two injected 503s and a timeout are retried and every row still arrives once`() =
        runTest {
            var seen = 0
            val gate =
                GateTransport(virtualClock(), tables = mapOf("orders" to GATE_ROWS.take(4)), fault = { _ ->
                    seen += 1
                    when (seen) {
                        1, 2 -> Fault.Answer(Response(503, emptyList(), dev.acd.Body.of("""{"detail": "busy", "status": 503}""")))
                        3 -> Fault.Fail(TransportFailureException(FailureKind.TIMEOUT))
                        else -> Fault.Pass
                    }
                })

            val rows = api(gate).tables.iter("orders", pageSize = 10).toList()

            assertEquals(GATE_ROWS.take(4).map(::AcdRecord), rows)
            assertEquals(listOf(503, 503, 200), gate.statuses)
            assertEquals(4, gate.requests.size)
        }

    @Test
    fun `a limit the gate does not have is a ConfigException naming it`() {
        val error = assertThrows<ConfigException> { GateTransport({ 0L }, limits = mapOf("no_such_limit" to Quota(1, 1_000))) }
        assertTrue(error.message.orEmpty().contains("limits: the gate has no limit named no_such_limit; its limits are "), error.message)
    }

    @Test
    fun `a virtual clock moves only when waited on and records each wait`() =
        runTest {
            val clock = VirtualClock(ALIGNED_MS)
            val gate = GateTransport(clock::now, tables = mapOf("orders" to GATE_ROWS), limits = SHORT_WINDOW)
            val api = AcdHttpClient(DEMO_API_KEY, seed = 7, transport = gate, clock = clock::now, delay = clock::delay)

            assertEquals(23, api.tables.iter("orders", pageSize = 2).toList().size)
            assertEquals(2, clock.waits.size)
            assertTrue(clock.waits[0] >= 3_000, "first wait ${clock.waits[0]} ms")
            assertEquals(clock.waits.sum(), clock.elapsedMs)
            assertEquals(0L, testScheduler.currentTime)
        }
}
