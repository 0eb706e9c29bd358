// Kotlin half of scripts/bench-sdk: the easy path (AcdHttpClient over
// java.net.http) beside a plain java.net.http loop sending the same requests
// with the same JSON parsing (kotlinx.serialization, each record a
// JsonObject), against the sandbox at BASE_URL (table "big", ROWS rows,
// limits raised). Workload A: every row in pages of 100 (tables.iter; the
// loop stops on a short page). Workload B: 500 single-row reads
// (tables.read(pageSize = 1, offset = i)). After WARMUP rounds, ROUNDS rounds
// alternate plain, acd, plain, acd, ...; prints one JSON line per workload:
// {"language", "workload", "plain_ms", "acd_ms", "waits"}.
// Usage: SdkBenchKt BASE_URL ROWS [ROUNDS] [WARMUP]
import dev.acd.AcdHttpClient
import dev.acd.Event
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonObject
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import kotlin.system.exitProcess

private const val KEY = "acd_live_demo_ada"
private const val TABLE = "big"
private const val PAGE = 100
private const val SINGLE = 500

/** One GET of `limit` rows from `offset`, parsed: the records. */
private fun page(http: HttpClient, url: String, limit: Int, offset: Int): JsonArray {
    val request =
        HttpRequest.newBuilder(URI.create("$url/api/v1/tables/$TABLE?limit=$limit&offset=$offset"))
            .header("X-API-Key", KEY)
            .header("Accept", "application/json")
            .build()
    val response = http.send(request, HttpResponse.BodyHandlers.ofByteArray())
    check(response.statusCode() == 200) { "status ${response.statusCode()}" }
    return (Json.parseToJsonElement(response.body().decodeToString()) as JsonObject)["data"] as JsonArray
}

private fun plainA(http: HttpClient, url: String): Int {
    var rows = 0
    var offset = 0
    while (true) {
        val records = page(http, url, PAGE, offset)
        records.forEach { rows += (it as JsonObject).size.coerceAtMost(1) }
        if (records.size < PAGE) return rows
        offset += PAGE
    }
}

private fun plainB(http: HttpClient, url: String): Int {
    var rows = 0
    for (offset in 0 until SINGLE) page(http, url, 1, offset).forEach { rows += (it as JsonObject).size.coerceAtMost(1) }
    return rows
}

private fun acdA(api: AcdHttpClient): Int {
    var rows = 0
    runBlocking { api.tables.iter(TABLE, pageSize = PAGE).collect { rows += it.json.size.coerceAtMost(1) } }
    return rows
}

private fun acdB(api: AcdHttpClient): Int {
    var rows = 0
    runBlocking {
        for (offset in 0 until SINGLE) api.tables.read(TABLE, pageSize = 1, offset = offset).forEach { rows += it.json.size.coerceAtMost(1) }
    }
    return rows
}

fun main(args: Array<String>) {
    val url = args[0]
    val expectedRows = args[1].toInt()
    val rounds = args.getOrElse(2) { "5" }.toInt()
    val warmup = args.getOrElse(3) { "2" }.toInt()
    val http = HttpClient.newHttpClient()
    var waits = 0
    val api = AcdHttpClient(KEY, url, http = http, onEvent = { if (it is Event.Waiting) waits += 1 })
    runBlocking { api.index() } // as a user would: the client learns the advertised (raised) limit
    val workloads =
        listOf(
            Triple("A", expectedRows, listOf({ plainA(http, url) }, { acdA(api) })),
            Triple("B", SINGLE, listOf({ plainB(http, url) }, { acdB(api) })),
        )
    for ((name, expected, sides) in workloads) {
        val times = listOf(mutableListOf<Double>(), mutableListOf())
        waits = 0
        repeat(warmup + rounds) { round ->
            sides.forEachIndexed { side, run ->
                val t0 = System.nanoTime()
                val got = run()
                val ms = (System.nanoTime() - t0) / 1e6
                if (got != expected) {
                    println("kotlin $name: read $got rows, expected $expected")
                    exitProcess(1)
                }
                if (round >= warmup) times[side] += ms
            }
        }
        println(
            """{"language": "kotlin", "workload": "$name", "plain_ms": ${times[0]}, "acd_ms": ${times[1]}, "waits": $waits}""",
        )
    }
    api.close()
}
