// The workload of the JMH benchmark, the same as acd-core's criterion bench
// `driver round (100-record table page)`: a fresh client (seed 1, ada's API
// key), start a read of `orders`, poll, answer with a 100-record page with
// three RateLimit headers 20 ms later, poll the events. Through the ffi
// crate's Driver (one crossing per step), as dev.acd drives it; `parsed`
// also parses the batch once with kotlinx.serialization, as dev.acd does.
package dev.acd.bench

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonArray

/** The instant every round runs at, Unix ms. */
const val NOW: Long = 1_700_000_000_000

/** The page body: 100 records, as the criterion bench builds it. */
val PAGE: ByteArray =
    (0 until 100).joinToString(",", """{"data":[""", "]}") { id ->
        """{"id":$id,"name":"row-${id.toString().padStart(5, '0')}","score":${id * 7 % 1000}}"""
    }.encodeToByteArray()

private const val HEADERS = "RateLimit-Limit: 5\nRateLimit-Remaining: 4\nRateLimit-Reset: 60\n"

/** One driver round, with its fresh client. */
class DriverRound {
    private val config = """{"seed": 1, "api_key": "acd_live_demo_ada"}""".encodeToByteArray()
    private val spec = """{"type": "request", "operation": "listTableRecords", "path": {"id": "orders"}}""".encodeToByteArray()

    /** A fresh client of the ffi crate. */
    fun newClient(): acd.Driver = acd.Driver(config)

    /** One round through the Driver; the last batch's JSON. */
    fun coarse(driver: acd.Driver): String {
        val call = driver.start(spec)
        driver.poll(NOW)
        driver.respond(call, 200u, HEADERS, PAGE, NOW + 20)
        return driver.poll(NOW + 20)
    }

    /** [coarse], the last batch parsed once; the number of records. */
    fun parsed(driver: acd.Driver): Int {
        val batch = Json.parseToJsonElement(coarse(driver)) as JsonObject
        return batch["events"]!!.jsonArray.sumOf { ((it as JsonObject)["body"] as? kotlinx.serialization.json.JsonArray)?.size ?: 0 }
    }
}
