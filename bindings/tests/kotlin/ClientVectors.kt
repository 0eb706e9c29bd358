// Replays every tests/vectors/client-*.json case through the Kotlin binding
// (conventions: tests/vectors/README.md, "Client vectors"). Each result must
// equal the stored `output` and contain the hand-written `expect`. Throttle
// plans are rebuilt from the typed Plan; other results compare the `json`
// the binding hands back.
package acdtest

import acd.ApiResponse
import acd.BuildResult
import acd.Client
import acd.ClientConfig
import acd.CredentialKind
import acd.EgressMode
import acd.HttpResponse
import acd.InterpretResult
import acd.Outcome
import acd.PathParam
import acd.Plan
import acd.QueryParam
import acd.RequestSpec
import acd.ResponseHeader
import acd.RetryPlanner
import acd.Throttle
import acd.TransportFailure
import acd.WaitReason
import java.io.File
import kotlin.test.assertEquals

fun contains(actual: Any?, expected: Any?): Boolean = when (expected) {
    is Map<*, *> -> actual is Map<*, *> && expected.all { (k, v) -> actual.containsKey(k) && contains(actual[k], v) }
    is List<*> -> actual is List<*> && actual.size == expected.size && actual.zip(expected).all { (a, e) -> contains(a, e) }
    else -> actual == expected
}

fun headersOf(value: Any?): List<ResponseHeader> =
    (value as List<*>? ?: emptyList<Any>()).map { ResponseHeader(it.arr()[0].str(), it.arr()[1].str()) }

fun clientFor(input: Map<String, Any?>, autoKeys: Boolean = true): Client {
    val keys = (input["idempotency_keys"] as Boolean? ?: false) && autoKeys
    var config = ClientConfig.fromJson("""{"idempotency_keys": $keys, "seed": 0}""").withCreateAgentRun()
    if (input["honours_idempotency_key"] as Boolean? ?: false) {
        config = config.withIdempotencyKeysHonoured("createAgentRun")
    }
    val credentials = input["credentials"]?.arr()?.map { it.obj() } ?: listOf(
        mapOf("id" to "main", "kind" to "api_key", "secret" to "acd_live_demo_ada", "user" to "ada"),
        mapOf("id" to "ci", "kind" to "api_key", "secret" to "acd_live_demo_ada_ci", "user" to "ada"),
    )
    for (c in credentials) {
        val kind = if (c["kind"] == "oauth2") CredentialKind.O_AUTH_TOKEN else CredentialKind.API_KEY
        config = config.withCredential(c["id"].str(), kind, c["secret"].str(), c["user"].str())
    }
    return Client(config)
}

fun pairsOf(value: Any?): List<Pair<String, String>> =
    (value as List<*>? ?: emptyList<Any>()).map { it.arr()[0].str() to it.arr()[1].str() }

fun defaultSpec(input: Map<String, Any?>): RequestSpec {
    val spec = when (val operation = input["operation"].str()) {
        "listTableRecords" -> acd.specListTableRecords("t")
        "listConnectionRecords" -> acd.specListConnectionRecords("c", "e")
        "getApiIndex" -> acd.specGetApiIndex()
        "createAgentRun" -> RequestSpec(operation, listOf(PathParam("agent_id", "a1")), emptyList(), emptyList(), null, EgressMode.DEFAULT, null, null)
        else -> error("no default request for $operation")
    }
    return spec.copy(credential = input["credential"] as String?, idempotencyKey = input["idempotency_key"] as String?)
}

fun planJson(plan: Plan): Any? = when (plan) {
    is Plan.SendNow -> mapOf("plan" to "send_now")
    is Plan.WaitUntil -> mapOf(
        "plan" to "wait_until", "at" to plan.atMs, "limit" to plan.limit,
        "reason" to if (plan.reason == WaitReason.QUOTA) "quota" else "retry_after",
    )
}

fun responseJson(response: ApiResponse): String = when (response) {
    is ApiResponse.Records -> response.json
    is ApiResponse.Index -> response.json
    is ApiResponse.Object -> response.json
}

fun resultJson(result: InterpretResult): Any? = when (result) {
    is InterpretResult.Ok -> mapOf("ok" to Json.parse(responseJson(result.response)))
    is InterpretResult.Err -> mapOf("error" to Json.parse(result.failure.json))
}

fun runInterpret(input: Map<String, Any?>): Any? {
    val response = HttpResponse(input["status"].long().toUShort(), headersOf(input["headers"]), input["body"].str().toByteArray())
    return resultJson(clientFor(emptyMap()).interpretOperation(input["operation"].str(), response))
}

fun runRatelimit(input: Map<String, Any?>): Any? =
    Json.parse(acd.parseRateLimitHeaders(headersOf(input["headers"]), input["now"].long()).json)

fun runThrottle(input: Map<String, Any?>): Any? {
    val client = clientFor(input)
    val throttle = Throttle()
    return input["steps"].arr().map { stepValue ->
        val (kind, bodyValue) = stepValue.obj().entries.single()
        val body = bodyValue.obj()
        val request = client.build(defaultSpec(body))
        val now = body["now"].long()
        when (kind) {
            "send" -> { repeat((body["count"] as Long? ?: 1L).toInt()) { throttle.onSent(request, now) }; null }
            "response" -> { throttle.onResponse(request, body["status"].long().toUShort(), headersOf(body["headers"]), now); null }
            "plan" -> planJson(throttle.plan(request, now))
            else -> error("unknown step $kind")
        }
    }
}

fun runRetry(input: Map<String, Any?>): Any? {
    val request = clientFor(input, autoKeys = false).build(defaultSpec(input))
    request.setAttempts(input["attempts"].long().toUInt(), input["first_sent_at"].long())
    val planner = RetryPlanner(input["seed"].long().toULong(), (input["budget_available"] as Long?)?.toUInt())
    val raw = input["outcome"].obj()
    val outcome = when (val transport = raw["transport"]) {
        null -> Outcome.Response(HttpResponse(raw["status"].long().toUShort(), headersOf(raw["headers"]), "{}".toByteArray()))
        else -> Outcome.Transport(TransportFailure.valueOf(transport.str().uppercase()))
    }
    return Json.parse(planner.onOutcome(request, outcome, input["now"].long()).json)
}

fun runRequest(input: Map<String, Any?>): Any? {
    val spec = RequestSpec(
        input["operation"].str(),
        pairsOf(input["path"]).map { PathParam(it.first, it.second) },
        pairsOf(input["query"]).map { QueryParam(it.first, it.second) },
        emptyList(),
        input["credential"] as String?,
        EgressMode.valueOf((input["egress"] ?: "default").str().uppercase()),
        (input["body"] as String?)?.toByteArray(),
        input["idempotency_key"] as String?,
    )
    return when (val built = clientFor(input).tryBuild(spec)) {
        is BuildResult.Ok -> mapOf("ok" to Json.parse(built.request.toWireJson()))
        is BuildResult.Err -> mapOf("error" to Json.parse(built.failure.json))
    }
}

fun runDeprecation(input: Map<String, Any?>): Any? =
    acd.parseDeprecation(input["operation"].str(), headersOf(input["headers"]))?.let { Json.parse(it.json) }

fun runErrors(input: Map<String, Any?>): Any? {
    val failure = acd.clientFailureFromJson(toJson(input))
    return mapOf("category" to failure.category, "message" to failure.message)
}

val RUNNERS: Map<String, (Map<String, Any?>) -> Any?> = mapOf(
    "client-errors" to ::runErrors,
    "client-interpret" to ::runInterpret,
    "client-ratelimit" to ::runRatelimit,
    "client-throttle" to ::runThrottle,
    "client-retry" to ::runRetry,
    "client-request" to ::runRequest,
    "client-deprecation" to ::runDeprecation,
)

fun registerClientVectors(runner: Runner, vectors: File) {
    val files = vectorFiles(vectors, "client-")
    for (path in files) {
        val run = RUNNERS[path.nameWithoutExtension]
        for (case in Json.parse(path.readText()).obj()["cases"].arr().map { it.obj() }) {
            runner.test("${path.nameWithoutExtension}:${case["name"]}") {
                val actual = run!!(case["input"].obj())
                check(contains(actual, case["expect"])) { "breaks expect ${toJson(case["expect"])}: ${toJson(actual)}" }
                assertEquals(case["output"], actual)
            }
        }
    }
    runner.test("every client file has a runner") {
        assertEquals(RUNNERS.keys.sorted(), files.map { it.nameWithoutExtension }.sorted())
    }
}
