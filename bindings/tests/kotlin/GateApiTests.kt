// The gate's Kotlin API beyond the vectors: typed errors with the core's
// sentences, the two-step credential form, admitted accessors, and that no
// toString ever shows a secret.
package acdtest

import acd.AcdException
import acd.CredentialKind
import acd.CredentialRecord
import acd.Credentials
import acd.Decision
import acd.Gate
import acd.GateConfig
import acd.GateRequest
import acd.GateResponse
import acd.Header
import acd.ParamValue
import acd.Principal
import acd.ResourceAnswer
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertIs
import kotlin.test.assertNull
import kotlin.test.assertTrue

const val NOW = 1_700_000_000_000L
const val ADA = "acd_live_demo_ada"

fun request(target: String, vararg headers: Pair<String, String>, ip: String = DEFAULT_IP) =
    GateRequest("GET", target.toByteArray(), headers.map { Header(it.first, it.second.toByteArray()) }, ip)

fun finish(decision: Decision): GateResponse = when (decision) {
    is Decision.Respond -> decision.response
    is Decision.Resolve -> decision.admitted.respond(ResourceAnswer.Found("[]".toByteArray()))
}

fun registerGateApiTests(runner: Runner) {
    runner.test("a bad configuration raises the core sentence") {
        val error = assertFailsWith<AcdException.Config> { Gate.demo(GateConfig.fromJson("""{"version": "a/b"}""")) }
        assertEquals("gate configuration `version`: must be one path segment such as v1", error.message)
    }
    runner.test("malformed configuration JSON is a config error") {
        val error = assertFailsWith<AcdException> { GateConfig.fromJson("""{"versoin": "v2"}""") }
        assertIs<AcdException.Config>(error)
        assertTrue(error.message!!.startsWith("gate configuration JSON: unknown field `versoin`"), error.message)
    }
    runner.test("admitted exposes validated parameters with defaults") {
        val gate = Gate.demo(GateConfig())
        val decision = gate.decide(request("/api/v1/tables/orders?limit=2&order_by=id", "X-API-Key" to ADA), NOW)
        val admitted = assertIs<Decision.Resolve>(decision).admitted
        assertEquals("listTableRecords", admitted.operationId())
        assertEquals("orders", admitted.pathParam("id"))
        assertEquals(listOf(0UL, 2UL), listOf(admitted.offset(), admitted.limit()))
        assertEquals("id", admitted.orderBy())
        assertEquals(ParamValue.Integer(2UL), admitted.param("limit"))
        assertEquals("ada", admitted.user())
        assertEquals("key-ada", assertIs<Principal.Credential>(admitted.principal()).record.id)
        assertEquals("Admitted(listTableRecords, id=\"orders\")", admitted.toString())
    }
    runner.test("two-step form matches the in-memory store") {
        val inMemory = Gate.demo(GateConfig())
        val twoStep = Gate(GateConfig(), Credentials())
        val req = request("/api/v1/tables/orders", "X-API-Key" to ADA)
        assertEquals(ADA, twoStep.credentialToLookUp(req))
        val record = CredentialRecord("key-ada", CredentialKind.API_KEY, "ada", emptyList(), null)
        assertEquals(finish(inMemory.decide(req, NOW)).headers, finish(twoStep.decideAnswered(req, record, NOW)).headers)
        assertEquals(401, finish(twoStep.decideAnswered(req, null, NOW)).status.toInt())
        assertNull(twoStep.credentialToLookUp(request("/api/v1", "X-API-Key" to ADA)))
    }
    runner.test("no toString shows a secret") {
        val req = request("/api/v1/tables/orders?after=cursor", "X-API-Key" to ADA, "Authorization" to "Bearer $ADA")
        val shown = listOf(req.toString(), Header("X-API-Key", ADA.toByteArray()).toString(), Credentials.demo().toString())
        for (text in shown) check(!text.contains("demo_ada")) { text }
        assertEquals("GET /api/v1/tables/orders", req.toString())
        assertEquals(listOf("X-API-Key", "Authorization"), req.headerNames())
    }
    runner.test("negative expiry is refused with a typed error") {
        val error = assertFailsWith<AcdException.InvalidArgument> {
            Credentials().add("acd_live_y", CredentialRecord("key-y", CredentialKind.API_KEY, "y", emptyList(), -5L))
        }
        assertEquals("expires_at_ms must be Unix milliseconds from 0 to 9223372036854775807; got -5", error.message)
        assertEquals(6UL, Credentials.demo().len())
    }
}
