// What users feel: reading every row of a table from an acd-sandbox in
// pages of 100, through the easy path (AcdHttpClient.tables.iter) and
// through a plain java.net.http loop sending the same requests
// (limit=100&offset=N until a short page) with the same JSON parsing
// (kotlinx.serialization, each record a JsonObject). Both run in this
// process, alternately, after warm-up rounds; the medians and their ratio
// are printed. Usage: ReadBenchKt BASE_URL TABLE ROWS [ROUNDS]
import dev.acd.AcdHttpClient
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
private const val PAGE = 100

/**
 * Every row through the easy path: a fresh client per read (its own
 * throttle, as a new user has) over the same java.net.http client as the
 * plain loop.
 */
private fun easy(http: HttpClient, url: String, table: String): Int =
    AcdHttpClient(KEY, url, http = http).use { api ->
        var rows = 0
        runBlocking { api.tables.iter(table, pageSize = PAGE).collect { rows += it.json.size.coerceAtMost(1) } }
        rows
    }

/** Every row through a plain loop over one java.net.http client. */
private fun plain(http: HttpClient, url: String, table: String): Int {
    var rows = 0
    var offset = 0
    while (true) {
        val request =
            HttpRequest.newBuilder(URI.create("$url/api/v1/tables/$table?limit=$PAGE&offset=$offset"))
                .header("X-API-Key", KEY)
                .header("Accept", "application/json")
                .build()
        val response = http.send(request, HttpResponse.BodyHandlers.ofByteArray())
        check(response.statusCode() == 200) { "status ${response.statusCode()}" }
        val page = (Json.parseToJsonElement(response.body().decodeToString()) as JsonObject)["data"] as JsonArray
        page.forEach { rows += (it as JsonObject).size.coerceAtMost(1) }
        if (page.size < PAGE) return rows
        offset += PAGE
    }
}

private fun median(values: List<Long>): Long = values.sorted()[values.size / 2]

fun main(args: Array<String>) {
    val (url, table) = args[0] to args[1]
    val expected = args[2].toInt()
    val rounds = args.getOrElse(3) { "15" }.toInt()
    val http = HttpClient.newHttpClient()
    val easyNs = mutableListOf<Long>()
    val plainNs = mutableListOf<Long>()
    repeat(5 + rounds) { round ->
        val t0 = System.nanoTime()
        val a = easy(http, url, table)
        val t1 = System.nanoTime()
        val b = plain(http, url, table)
        val t2 = System.nanoTime()
        if (a != expected || b != expected) {
            println("read $a (easy) and $b (plain) rows, expected $expected")
            exitProcess(1)
        }
        if (round >= 5) {
            easyNs += t1 - t0
            plainNs += t2 - t1
        }
    }
    val e = median(easyNs) / 1e6
    val p = median(plainNs) / 1e6
    val requests = expected / PAGE + 1
    println("rows: $expected in pages of $PAGE ($requests requests), rounds: $rounds after 5 warm-up (medians)")
    println("easy path (AcdHttpClient.tables.iter): %8.1f ms".format(e))
    println("plain java.net.http loop:              %8.1f ms".format(p))
    println("easy / plain: %.2fx; %+.0f us per page".format(e / p, (e - p) * 1000 / requests))
}
