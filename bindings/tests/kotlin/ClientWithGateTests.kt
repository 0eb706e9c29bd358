// The client role against the gate, in one JVM and in virtual time: the gate
// plays the API (a Kotlin service), the client's pager reads a table through
// it (the driver, in virtual time) while honouring the throttle, so no 429 is ever seen.
package acdtest

import acd.Client
import acd.ClientConfig
import acd.ClientRequest
import acd.CredentialKind
import acd.Decision
import acd.Gate
import acd.GateConfig
import acd.GateRequest
import acd.Header
import acd.HttpResponse
import acd.ResourceAnswer
import kotlin.test.assertEquals
import kotlin.test.assertTrue

const val BASE = "http://127.0.0.1:8080"
val ROWS = (1..13).map { """{"id":$it,"name":"row $it"}""" }

fun serve(gate: Gate, request: ClientRequest, now: Long): HttpResponse {
    val url = request.url()
    check(url.startsWith(BASE)) { url }
    val headers = request.wireHeaders().map { Header(it.name, it.value.toByteArray()) }
    val decision = gate.decide(GateRequest("GET", url.removePrefix(BASE).toByteArray(), headers, "192.0.2.10"), now)
    val response = when (decision) {
        is Decision.Respond -> decision.response
        is Decision.Resolve -> {
            val offset = (decision.admitted.offset() ?: 0UL).toInt()
            val limit = (decision.admitted.limit() ?: 0UL).toInt()
            val page = ROWS.drop(offset).take(limit).joinToString(",", "[", "]")
            decision.admitted.respond(ResourceAnswer.Found(page.toByteArray()))
        }
    }
    return HttpResponse(response.status, response.headers, response.body)
}

/** A seeded client whose throttle waits get no jitter (the jitter's ceiling is the backoff base). */
const val NO_JITTER = """{"seed": 7, "retry": {"backoff": {"base_ms": 0}}}"""

fun readTable(pageSize: Long, configJson: String = NO_JITTER): Triple<List<String>, List<Int>, Long> {
    val gate = Gate.demo(GateConfig())
    val client = Client(ClientConfig.fromJson(configJson).withCredential("main", CredentialKind.API_KEY, "acd_live_demo_ada", "ada"))
    val call = client.startTablePager("orders", """{"page_size": $pageSize}""")
    val statuses = mutableListOf<Int>()
    val (seen, end) = driveVirtual(client, NOW, latencyMs = 20) { request, now ->
        serve(gate, request, now).also { statuses.add(it.status.toInt()) }
    }
    check(seen.all { it.call == call.toLong() }) { "events of another call" }
    assertEquals("done", seen.last().type, "last event: ${seen.last()}")
    val pages = seen.filter { it.type == "page" }
    assertEquals((1..pages.size).map { it.toLong() }, pages.map { it.event["page"] })
    assertEquals(List(pages.size) { it == pages.size - 1 }, pages.map { it.event["last"] })
    val rows = pages.flatMap { page -> page.event["records"].arr().map { toJson(it) } }
    return Triple(rows, statuses, end - NOW)
}

fun registerClientWithGateTests(runner: Runner) {
    runner.test("the pager reads every row and waits instead of meeting 429") {
        val (rows, statuses, elapsed) = readTable(2)
        assertEquals(ROWS, rows)
        assertEquals(List(7) { 200 }, statuses)
        assertEquals(40_140L, elapsed)
    }
    runner.test("with the default jitter the wait is at most one backoff base (1 s) longer") {
        val (rows, statuses, elapsed) = readTable(2, """{"seed": 7}""")
        assertEquals(ROWS, rows)
        assertEquals(List(7) { 200 }, statuses)
        assertTrue(elapsed in 40_140L..41_140L, "elapsed $elapsed")
        assertEquals(elapsed, readTable(2, """{"seed": 7}""").third, "the same seed gives the same instants")
    }
    runner.test("a single short page finishes at once") {
        assertEquals(Triple(ROWS, listOf(200), 20L), readTable(100))
    }
}
