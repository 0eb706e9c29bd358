// The run poller from Kotlin, in virtual time: the same instants as in
// Python and Rust (seeded jitter), and a failure value for a stateless run.
package acdtest

import acd.Client
import acd.ClientConfig
import acd.CredentialKind
import acd.EgressMode
import acd.HttpResponse
import acd.Outcome
import acd.PathParam
import acd.PollEvent
import acd.RequestSpec
import acd.RunPoller
import acd.Step
import kotlin.test.assertEquals

fun pollRun(bodies: List<String>): List<Triple<Long, String, Boolean>> {
    val client = Client(ClientConfig().withCredential("main", CredentialKind.API_KEY, ADA, "ada").withGetRun())
    val spec = RequestSpec("getRun", listOf(PathParam("run_id", "r1")), emptyList(), emptyList(), null, EgressMode.DEFAULT, null, null)
    val poller = RunPoller(spec, null)
    val replies = bodies.iterator()
    val seen = mutableListOf<Triple<Long, String, Boolean>>()
    var now = NOW
    while (true) {
        when (val step = poller.poll(client, now)) {
            is Step.Done -> return seen
            is Step.WaitUntil -> now = step.atMs
            is Step.AwaitingResponse -> error("nothing should be in flight")
            is Step.Send -> {
                val reply = HttpResponse(200u, emptyList(), replies.next().toByteArray())
                when (val event = poller.handle(client, Outcome.Response(reply), now)) {
                    is PollEvent.Status -> seen.add(Triple(now - NOW, event.state, event.terminal))
                    is PollEvent.Failed -> seen.add(Triple(now - NOW, event.failure.kind, true))
                    else -> error("unexpected $event")
                }
            }
        }
    }
}

fun registerPollerTests(runner: Runner) {
    runner.test("polls about once per second until a terminal state") {
        val seen = pollRun(listOf("""{"data":{"status":"queued"}}""", """{"data":{"status":"running"}}""", """{"data":{"status":"succeeded"}}"""))
        assertEquals(listOf(Triple(0L, "queued", false), Triple(1_077L, "running", false), Triple(2_063L, "succeeded", true)), seen)
    }
    runner.test("a run without a state is a failure value") {
        assertEquals(listOf(Triple(0L, "protocol", true)), pollRun(listOf("""{"data":{"output":1}}""")))
    }
}
