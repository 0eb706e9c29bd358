// Kotlin side of the overhead measurement (bindings/bench/run): one driver
// cycle (start a table read, pollTransmit, handle a 2-record page, drain the
// events), one throttle plan + interpret round trip, and one gate decide of a
// public request, through the library jar. Prints microseconds per call
// (best of five runs).
import acd.Client
import acd.ClientConfig
import acd.CredentialKind
import acd.Gate
import acd.GateConfig
import acd.GateRequest
import acd.HttpResponse
import acd.Outcome
import acd.ResponseHeader
import acd.Throttle
import acd.specListTableRecords

const val NOW = 1_700_000_000_000L

fun bestOf(runs: Int, iterations: Int, body: () -> Unit): Double =
    (1..runs).minOf {
        val started = System.nanoTime()
        repeat(iterations) { body() }
        (System.nanoTime() - started).toDouble() / iterations
    }

fun main(args: Array<String>) {
    val iterations = args.getOrNull(0)?.toInt() ?: 50_000
    val config = ClientConfig.fromJson("""{"seed": 1}""").withCredential("main", CredentialKind.API_KEY, "acd_live_demo_ada", "ada")
    val headers = listOf(
        "Content-Type" to "application/json", "RateLimit-Limit" to "5",
        "RateLimit-Remaining" to "4", "RateLimit-Reset" to "60",
    ).map { ResponseHeader(it.first, it.second) }
    val response = HttpResponse(200u, headers, """{"data":[{"id":1,"name":"first"},{"id":2,"name":"second"}]}""".toByteArray())
    val cycle = {
        // A fresh client each time: the per-user limit never makes it wait.
        val client = Client(config)
        client.start(specListTableRecords("orders"))
        val transmit = client.pollTransmit(NOW) ?: error("nothing to send")
        client.handle(transmit.id, Outcome.Response(response), NOW)
        client.pollEventsJson()
    }
    bestOf(1, iterations, { cycle() }) // JIT warm-up
    println("kotlin: %.2f us per driver cycle".format(bestOf(5, iterations) { cycle() } / 1000))
    val client = Client(config)
    val request = client.build(specListTableRecords("orders"))
    val throttle = Throttle()
    bestOf(1, iterations, { throttle.plan(request, NOW); client.interpret(request, response) })
    val ns = bestOf(5, iterations) { throttle.plan(request, NOW); client.interpret(request, response) }
    println("kotlin: %.2f us per plan+interpret".format(ns / 1000))
    val gate = Gate.demo(GateConfig())
    val index = GateRequest("GET", "/api/v1".toByteArray(), emptyList(), "198.51.100.9")
    println("kotlin: %.2f us per gate decide (index)".format(bestOf(5, iterations / 4) { gate.decide(index, NOW) } / 1000))
}
