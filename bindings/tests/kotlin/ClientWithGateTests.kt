// The client role against the gate, in one JVM and in virtual time: the gate
// plays the API (a Kotlin service), the client's pager reads a table through
// it while honouring the throttle, so no 429 is ever seen.
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
import acd.Outcome
import acd.Pager
import acd.PagerEvent
import acd.ResourceAnswer
import acd.Step
import acd.TablePagerOptions
import kotlin.test.assertEquals

const val BASE = "http://127.0.0.1:8080"
val ROWS = (1..13).map { """{"id":$it,"name":"row $it"}""" }

fun serve(gate: Gate, request: ClientRequest, now: Long): HttpResponse {
    val url = request.url()
    check(url.startsWith(BASE)) { url }
    val headers = request.headers().map { Header(it.name, it.value.toByteArray()) }
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

fun readTable(pageSize: Long): Triple<List<String>, List<Int>, Long> {
    val gate = Gate.demo(GateConfig())
    val client = Client(ClientConfig().withCredential("main", CredentialKind.API_KEY, "acd_live_demo_ada", "ada"))
    val pager = Pager.table("orders", TablePagerOptions(pageSize.toULong(), null, false, false, null))
    var now = NOW
    val rows = mutableListOf<String>()
    val statuses = mutableListOf<Int>()
    while (true) {
        when (val step = pager.poll(client, now)) {
            is Step.Done -> break
            is Step.WaitUntil -> now = step.atMs // virtual time: no sleeping
            is Step.AwaitingResponse -> error("nothing should be in flight")
            is Step.Send -> {
                val response = serve(gate, step.request, now)
                statuses.add(response.status.toInt())
                now += 20
                val event = pager.handle(client, Outcome.Response(response), now)
                rows.addAll((event as PagerEvent.Page).records)
            }
        }
    }
    return Triple(rows, statuses, now - NOW)
}

fun registerClientWithGateTests(runner: Runner) {
    runner.test("the pager reads every row and waits instead of meeting 429") {
        val (rows, statuses, elapsed) = readTable(2)
        assertEquals(ROWS, rows)
        assertEquals(List(7) { 200 }, statuses)
        assertEquals(40_140L, elapsed)
    }
    runner.test("a single short page finishes at once") {
        assertEquals(Triple(ROWS, listOf(200), 20L), readTable(100))
    }
}
