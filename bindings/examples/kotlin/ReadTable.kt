// Reads every row of a table from a running acd-sandbox (or the real API)
// with the easy path, AcdHttpClient over java.net.http: the core's throttle
// spaces the pages under the rate limits, so the flow waits (and says so on
// the "acd" logger) instead of meeting a 429.
// Usage: ReadTableKt BASE_URL [TABLE] [PAGE_SIZE]
import dev.acd.AcdException
import dev.acd.AcdHttpClient
import kotlinx.coroutines.runBlocking
import kotlin.system.exitProcess

fun main(args: Array<String>): Unit = runBlocking {
    AcdHttpClient(apiKey = "acd_live_demo_ada", baseUrl = args[0]).use { api ->
        var rows = 0
        try {
            api.tables.iter(args.getOrElse(1) { "orders" }, pageSize = args.getOrElse(2) { "2" }.toInt())
                .collect { record -> println(record); rows++ }
        } catch (error: AcdException) {
            println("reading failed: ${error.detail} (status ${error.status})")
            exitProcess(1)
        }
        println("$rows rows")
    }
}
