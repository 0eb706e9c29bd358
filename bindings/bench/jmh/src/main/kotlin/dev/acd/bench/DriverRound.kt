// The workload of the JMH benchmark, the same as acd-core's criterion bench
// `driver round (100-record table page)`: a fresh client (seed 1, ada's API
// key), start a read of `orders`, pollTransmit, handle a 100-record page with
// three RateLimit headers 20 ms later, drain the events. `coarse` goes
// through the generated driver calls; `idiomatic` through dev.acd.AcdClient
// (Request, Response and Event values).
package dev.acd.bench

import acd.HttpResponse
import acd.Outcome
import acd.ResponseHeader
import acd.specListTableRecords
import dev.acd.AcdClient
import dev.acd.Body
import dev.acd.Event
import dev.acd.Header
import dev.acd.Response

/** The instant every round runs at, Unix ms. */
const val NOW: Long = 1_700_000_000_000

/** The page body: 100 records, as the criterion bench builds it. */
val PAGE: ByteArray =
    (0 until 100).joinToString(",", """{"data":[""", "]}") { id ->
        """{"id":$id,"name":"row-${id.toString().padStart(5, '0')}","score":${id * 7 % 1000}}"""
    }.encodeToByteArray()

private val HEADERS = listOf("RateLimit-Limit" to "5", "RateLimit-Remaining" to "4", "RateLimit-Reset" to "60")

/** One driver round on each surface, with its fresh clients. */
class DriverRound {
    private val config =
        acd.ClientConfig.fromJson("""{"seed": 1}""").withCredential("main", acd.CredentialKind.API_KEY, "acd_live_demo_ada", "ada")
    private val response = HttpResponse(200u, HEADERS.map { ResponseHeader(it.first, it.second) }, PAGE)
    private val idiomaticResponse = Response(200, HEADERS.map { Header(it.first, it.second) }, Body(PAGE))

    /** A fresh client of the generated layer. */
    fun newClient(): acd.Client = acd.Client(config)

    /** A fresh idiomatic client. */
    fun newAcdClient(): AcdClient = AcdClient("acd_live_demo_ada", user = "ada", seed = 1)

    /** One round through the coarse driver calls; the drained events' JSON. */
    fun coarse(client: acd.Client): String {
        val call = client.start(specListTableRecords("orders"))
        val transmit = client.pollTransmit(NOW) ?: error("nothing to send")
        transmit.request.close()
        client.handle(call, Outcome.Response(response), NOW + 20)
        return client.pollEventsJson()
    }

    /** One round through dev.acd.AcdClient; the number of records paged. */
    fun idiomatic(client: AcdClient): Int {
        val call = client.start("listTableRecords", path = mapOf("id" to "orders"))
        val transmit = client.pollTransmit(NOW) ?: error("nothing to send")
        client.handle(transmit.call, idiomaticResponse, NOW + 20)
        val events = client.pollEvents()
        return events.sumOf { if (it is Event.Response) it.records.orEmpty().size else 0 } + call.toInt()
    }
}
