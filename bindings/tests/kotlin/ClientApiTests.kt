// The client's Kotlin API beyond the vectors: typed exceptions with the
// core's sentences, failures as values, no secret in toString, bad times,
// one client driver shared by many threads.
package acdtest

import acd.AcdException
import acd.BuildResult
import acd.Client
import acd.ClientConfig
import acd.CredentialKind
import acd.HttpResponse
import acd.InterpretResult
import acd.ParamRole
import acd.RoleParam
import acd.parseRateLimitHeaders
import acd.specGetApiIndex
import acd.specListTableRecords
import java.util.concurrent.Callable
import java.util.concurrent.Executors
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertIs
import kotlin.test.assertNotNull
import kotlin.test.assertTrue

fun adaClient() = Client(ClientConfig().withCredential("main", CredentialKind.API_KEY, ADA, "ada"))

fun registerClientApiTests(runner: Runner) {
    runner.test("a bad page size is refused before any I/O with the gate sentence") {
        val spec = specListTableRecords("orders").copy(roles = listOf(RoleParam(ParamRole.LIMIT, "0")))
        val error = assertFailsWith<AcdException.Request> { adaClient().build(spec) }
        assertTrue(error.message!!.contains("limit must be an integer from 1 to 5000"), error.message)
        val failure = assertIs<BuildResult.Err>(adaClient().tryBuild(spec)).failure
        assertEquals("invalid_params", failure.kind)
        assertEquals(error.message, failure.message)
    }
    runner.test("API errors come back as values with status and detail") {
        val client = adaClient()
        val request = client.build(specListTableRecords("orders"))
        val reply = HttpResponse(404u, emptyList(), """{"detail":"No table.","status":404}""".toByteArray())
        val failure = assertIs<InterpretResult.Err>(client.interpret(request, reply)).failure
        assertEquals(Triple("api", 404.toUShort(), "No table."), Triple(failure.kind, failure.status, failure.detail))
    }
    runner.test("client objects never show a secret") {
        val config = ClientConfig().withCredential("main", CredentialKind.API_KEY, ADA, "ada")
        val request = Client(config).build(specListTableRecords("orders"))
        for (text in listOf(config.toString(), request.toString())) check(!text.contains("demo_ada")) { text }
        assertEquals("GET /api/v1/tables/orders", request.toString())
    }
    runner.test("negative times are typed errors and absurd ones answer") {
        val client = adaClient()
        client.start(specListTableRecords("orders"))
        assertFailsWith<AcdException.InvalidArgument> { client.pollTransmit(-5L) }
        val sent = assertNotNull(client.pollTransmit(Long.MAX_VALUE))
        assertEquals("GET", sent.request.method())
        assertFailsWith<AcdException.InvalidArgument> { parseRateLimitHeaders(emptyList(), -1L) }
    }
    runner.test("one client takes calls from many threads and throttles them exactly") {
        val client = adaClient()
        val pool = Executors.newFixedThreadPool(8)
        val ids = try {
            pool.invokeAll((0 until 400).map { Callable { client.start(specGetApiIndex()) } }).map { it.get() }
        } finally {
            pool.shutdown()
        }
        assertEquals(400, ids.toSet().size)
        var sent = 0
        while (client.pollTransmit(NOW) != null) sent++
        // The index is public: the per-client-IP limit, 100 per 60 s, applies.
        assertEquals(100, sent)
        val timeout = assertNotNull(client.pollTimeout())
        assertTrue(timeout >= NOW + 60_000, "not before the window ends: $timeout")
    }
}
