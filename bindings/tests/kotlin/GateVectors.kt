// Replays every tests/vectors/gate-*.json case through the Kotlin binding and
// compares status, headers (names, values, order) and body bytes exactly.
package acdtest

import acd.Credentials
import acd.CredentialKind
import acd.CredentialRecord
import acd.Decision
import acd.Gate
import acd.GateConfig
import acd.GateRequest
import acd.Header
import acd.ParamProblem
import acd.ParamValue
import acd.ResourceAnswer
import java.io.File
import kotlin.test.assertEquals

const val DEFAULT_IP = "203.0.113.7"

fun vectorFiles(dir: File, prefix: String): List<File> =
    (dir.listFiles() ?: emptyArray())
        .filter { it.name.startsWith(prefix) && it.name.endsWith(".json") }
        .sortedBy { it.name }

fun buildGate(file: Map<String, Any?>): Gate {
    val config = file["config"]?.let { GateConfig.fromJson(toJson(it)) } ?: GateConfig()
    val credentials = Credentials()
    for (entry in file["credentials"].arr().map { it.obj() }) {
        val kind = when (entry["kind"].str()) {
            "api_key" -> CredentialKind.API_KEY
            "oauth2" -> CredentialKind.O_AUTH_TOKEN
            else -> error("unknown kind ${entry["kind"]}")
        }
        credentials.add(
            entry["secret"].str(),
            CredentialRecord(
                entry["id"].str(),
                kind,
                entry["user"].str(),
                (entry["scopes"] as List<*>? ?: emptyList<Any>()).map { it.str() },
                entry["expires_at"] as Long?,
            ),
        )
    }
    return Gate(config, credentials)
}

fun hexBytes(hex: String): ByteArray = ByteArray(hex.length / 2) { hex.substring(2 * it, 2 * it + 2).toInt(16).toByte() }

fun toRequest(request: Map<String, Any?>): GateRequest {
    val target = request["target_hex"]?.let { hexBytes(it.str()) } ?: request["target"].str().toByteArray(Charsets.UTF_8)
    val headers = (request["headers"] as List<*>? ?: emptyList<Any>()).map {
        val pair = it.arr()
        Header(pair[0].str(), pair[1].str().toByteArray(Charsets.UTF_8))
    }
    return GateRequest(
        (request["method"] ?: "GET").str(),
        target,
        headers,
        (request["client_ip"] ?: DEFAULT_IP).str(),
    )
}

fun toAnswer(resource: Map<String, Any?>): ResourceAnswer = when (resource["kind"].str()) {
    "found" -> ResourceAnswer.Found(resource["payload"].str().toByteArray(Charsets.UTF_8))
    "not_found" -> ResourceAnswer.NotFound
    "forbidden" -> ResourceAnswer.Forbidden
    "invalid" -> ResourceAnswer.Invalid(
        resource["problems"].arr().map { ParamProblem(it.obj()["parameter"].str(), it.obj()["problem"].str()) },
    )
    else -> error("unknown resource kind ${resource["kind"]}")
}

/** What the gate admitted, in the vectors' JSON shape. */
fun admittedView(admitted: acd.Admitted): Map<String, Any?> = linkedMapOf(
    "operation_id" to admitted.operationId(),
    "path_params" to admitted.pathParams().map { listOf(it.name, it.value) },
    "params" to admitted.params().associate {
        it.name to when (val v = it.value) {
            is ParamValue.Integer -> v.value.toLong()
            is ParamValue.Text -> v.value
        }
    },
    "user" to admitted.user(),
    "stable_egress" to admitted.stableEgress(),
)

fun registerGateVectors(runner: Runner, vectors: File) {
    val files = vectorFiles(vectors, "gate-")
    var cases = 0
    for (path in files) {
        val file = Json.parse(path.readText()).obj()
        for (case in file["cases"].arr().map { it.obj() }) {
            cases++
            runner.test("${path.nameWithoutExtension}:${case["name"]}") {
                val gate = buildGate(file)
                for ((index, stepValue) in case["steps"].arr().withIndex()) {
                    val step = stepValue.obj()
                    val expect = step["expect"].obj()
                    val label = "${case["name"]} step ${index + 1}"
                    val (admitted, response) = when (val d = gate.decide(toRequest(step["request"].obj()), step["at"].long())) {
                        is Decision.Respond -> null to d.response
                        is Decision.Resolve -> admittedView(d.admitted) to d.admitted.respond(toAnswer(step["resource"].obj()))
                    }
                    assertEquals(expect["admitted"]?.let { toJson(it) }, admitted?.let { toJson(it) }, label)
                    assertEquals(step["expect_status"].long(), response.status.toLong(), label)
                    assertEquals(expect["status"].long(), response.status.toLong(), label)
                    assertEquals(
                        expect["headers"].arr().map { h -> h.arr().map { it.str() } },
                        response.headers.map { listOf(it.name, it.value) },
                        label,
                    )
                    assertEquals(
                        expect["body"].str().toByteArray(Charsets.UTF_8).toList(),
                        response.body.toList(),
                        label,
                    )
                }
            }
        }
    }
    runner.test("every gate vector file is replayed") {
        check(files.size >= 8) { "only ${files.size} gate files" }
        check(cases >= 60) { "only $cases gate cases" }
    }
}
