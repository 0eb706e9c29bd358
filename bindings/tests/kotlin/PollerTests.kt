// The run poller from Kotlin, in virtual time through the driver: polls one
// interval apart until a terminal state (exact instants without jitter,
// within ±10 % with it), and a failure event for a run without a state.
package acdtest

import acd.Client
import acd.ClientConfig
import acd.CredentialKind
import acd.HttpResponse
import kotlin.test.assertEquals
import kotlin.test.assertTrue

fun pollRun(bodies: List<String>, optionsJson: String): List<Seen> {
    val config = ClientConfig.fromJson("""{"seed": 5}""").withCredential("main", CredentialKind.API_KEY, ADA, "ada").withGetRun()
    val client = Client(config)
    val call = client.startRunPoller("r1", optionsJson)
    val replies = bodies.iterator()
    val (seen, _) = driveVirtual(client, NOW) { request, _ ->
        assertEquals("$BASE/api/v1/runs/r1", request.url())
        HttpResponse(200u, emptyList(), replies.next().toByteArray())
    }
    check(!replies.hasNext()) { "fewer polls than replies" }
    check(seen.all { it.call == call.toLong() }) { "events of another call: $seen" }
    return seen.filter { it.type != "waiting" }
}

val RUN_BODIES = listOf("""{"data":{"status":"queued"}}""", """{"data":{"status":"running"}}""", """{"data":{"status":"succeeded"}}""")

fun registerPollerTests(runner: Runner) {
    runner.test("polls once per interval until a terminal state") {
        val seen = pollRun(RUN_BODIES, """{"jitter_per_mille": 0}""")
        assertEquals(
            listOf(Triple(0L, "run_status", "queued"), Triple(1_000L, "run_status", "running"), Triple(2_000L, "run_status", "succeeded"), Triple(2_000L, "done", null)),
            seen.map { Triple(it.at - NOW, it.type, it.event["status"] as String?) },
        )
        assertEquals(listOf(false, false, true), seen.filter { it.type == "run_status" }.map { it.event["terminal"] })
        assertEquals(mapOf("status" to "running"), seen[1].event["run"])
    }
    runner.test("default jitter keeps each interval within 10 percent of a second") {
        val times = pollRun(RUN_BODIES, "{}").filter { it.type == "run_status" }.map { it.at }
        val gaps = times.zipWithNext { a, b -> b - a }
        assertEquals(2, gaps.size)
        assertTrue(gaps.all { it in 900L..1_100L }, "gaps $gaps")
    }
    runner.test("a run without a state is a failure event") {
        val seen = pollRun(listOf("""{"data":{"output":1}}"""), "{}")
        assertEquals(listOf("failed"), seen.map { it.type })
        assertEquals("protocol", seen[0].event["kind"])
        assertTrue(seen[0].message!!.contains("status"), seen[0].message)
    }
}
