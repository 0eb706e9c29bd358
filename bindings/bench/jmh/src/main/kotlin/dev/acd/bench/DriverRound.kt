// The workload of the JMH benchmark, the same as acd-core's criterion bench
// `driver round (100-record table page)`: a fresh client (seed 1, ada's API
// key), start a read of `orders`, pollTransmit, handle a 100-record page with
// three RateLimit headers 20 ms later, drain the events, through the
// generated driver calls.
package dev.acd.bench

import acd.HttpResponse
import acd.Outcome
import acd.ResponseHeader
import acd.specListTableRecords

/** The instant every round runs at, Unix ms. */
const val NOW: Long = 1_700_000_000_000

/** The page body: 100 records, as the criterion bench builds it. */
val PAGE: ByteArray =
    (0 until 100).joinToString(",", """{"data":[""", "]}") { id ->
        """{"id":$id,"name":"row-${id.toString().padStart(5, '0')}","score":${id * 7 % 1000}}"""
    }.encodeToByteArray()

private val HEADERS = listOf("RateLimit-Limit" to "5", "RateLimit-Remaining" to "4", "RateLimit-Reset" to "60")

/** One driver round, with its fresh client. */
class DriverRound {
    private val config =
        acd.ClientConfig.fromJson("""{"seed": 1}""").withCredential("main", acd.CredentialKind.API_KEY, "acd_live_demo_ada", "ada")
    private val response = HttpResponse(200u, HEADERS.map { ResponseHeader(it.first, it.second) }, PAGE)

    /** A fresh client of the generated layer. */
    fun newClient(): acd.Client = acd.Client(config)

    /** One round through the coarse driver calls; the drained events' JSON. */
    fun coarse(client: acd.Client): String {
        val call = client.start(specListTableRecords("orders"))
        val transmit = client.pollTransmit(NOW) ?: error("nothing to send")
        transmit.request.close()
        client.handle(call, Outcome.Response(response), NOW + 20)
        return client.pollEventsJson()
    }
}
