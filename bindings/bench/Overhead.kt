// Kotlin side of the overhead measurement (bindings/bench/run): one client
// plan + interpret round trip through the library jar, and one gate decide
// of a public request. Prints microseconds per call (best of five runs).
import acd.Client
import acd.ClientConfig
import acd.CredentialKind
import acd.Gate
import acd.GateConfig
import acd.GateRequest
import acd.HttpResponse
import acd.ResponseHeader
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
    val client = Client(ClientConfig().withCredential("main", CredentialKind.API_KEY, "acd_live_demo_ada", "ada"))
    val request = client.build(specListTableRecords("orders"))
    val headers = listOf(
        "Content-Type" to "application/json", "RateLimit-Limit" to "5",
        "RateLimit-Remaining" to "4", "RateLimit-Reset" to "60",
    ).map { ResponseHeader(it.first, it.second) }
    val response = HttpResponse(200u, headers, """{"data":[{"id":1,"name":"first"},{"id":2,"name":"second"}]}""".toByteArray())
    bestOf(1, iterations, { client.plan(request, NOW); client.interpret(request, response) }) // JIT warm-up
    val ns = bestOf(5, iterations) { client.plan(request, NOW); client.interpret(request, response) }
    println("kotlin: %.2f us per plan+interpret".format(ns / 1000))
    val gate = Gate.demo(GateConfig())
    val index = GateRequest("GET", "/api/v1".toByteArray(), emptyList(), "198.51.100.9")
    println("kotlin: %.2f us per gate decide (index)".format(bestOf(5, iterations / 4) { gate.decide(index, NOW) } / 1000))
}
