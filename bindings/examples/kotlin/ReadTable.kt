// Reads a table from a running acd-sandbox (or the real API) with
// java.net.http.HttpClient as the transport: the client (the core's driver)
// says what to send and when, its throttle keeps it under the rate limits (so
// no 429), this code sends and sleeps. Events are JSON, read with
// kotlinx-serialization-json. Usage: ReadTableKt BASE_URL [TABLE] [PAGE_SIZE]
import acd.Client
import acd.ClientConfig
import acd.ClientRequest
import acd.CredentialKind
import acd.HttpResponse
import acd.Outcome
import acd.ResponseHeader
import acd.TransportFailure
import java.io.IOException
import java.net.ConnectException
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpTimeoutException
import java.time.Duration
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlin.system.exitProcess

val http: HttpClient = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()

/** Headers HttpClient sets itself and refuses from callers. */
val restricted = setOf("connection", "content-length", "expect", "host", "upgrade")

/** One HTTP exchange; restricted headers (Host, ...) are left to HttpClient. */
fun send(request: ClientRequest): Outcome {
    val builder = HttpRequest.newBuilder(URI.create(request.url()))
        .timeout(Duration.ofSeconds(30))
        .method(request.method(), request.body()?.let { HttpRequest.BodyPublishers.ofByteArray(it) } ?: HttpRequest.BodyPublishers.noBody())
    // wireHeaders() holds the credential as it must be sent; headers() is the redacted view.
    for (header in request.wireHeaders()) {
        if (header.name.lowercase() !in restricted) builder.header(header.name, header.value)
    }
    return try {
        val reply = http.send(builder.build(), java.net.http.HttpResponse.BodyHandlers.ofByteArray())
        val headers = reply.headers().map().flatMap { (name, values) -> values.map { ResponseHeader(name, it) } }
        Outcome.Response(HttpResponse(reply.statusCode().toUShort(), headers, reply.body()))
    } catch (error: ConnectException) {
        Outcome.Transport(TransportFailure.CONNECT)
    } catch (error: HttpTimeoutException) {
        Outcome.Transport(TransportFailure.TIMEOUT)
    } catch (error: IOException) {
        Outcome.Transport(TransportFailure.INTERRUPTED)
    }
}

fun main(args: Array<String>) {
    val baseUrl = args[0]
    val table = args.getOrElse(1) { "orders" }
    val pageSize = args.getOrElse(2) { "2" }.toLong()
    val config = ClientConfig.fromJson("""{"base_url": "$baseUrl", "stable_egress_url": "$baseUrl/egress"}""")
    val client = Client(config.withCredential("main", CredentialKind.API_KEY, "acd_live_demo_ada", "ada"))
    client.startTablePager(table, """{"page_size": $pageSize}""")
    val statuses = mutableListOf<Int>()
    var pages = 0
    while (!client.isIdle()) {
        val transmit = client.pollTransmit(System.currentTimeMillis())
        if (transmit != null) {
            val outcome = send(transmit.request)
            if (outcome is Outcome.Response) statuses.add(outcome.response.status.toInt())
            client.handle(transmit.id, outcome, System.currentTimeMillis())
        } else {
            client.pollTimeout()?.let { Thread.sleep(maxOf(0L, it - System.currentTimeMillis())) }
        }
        // One JSON array per drain: [{"call": id, "event": {"type": ...}, ...}].
        for (entry in Json.parseToJsonElement(client.pollEventsJson()).jsonArray.map { it.jsonObject }) {
            val event = entry.getValue("event").jsonObject
            when (event.getValue("type").jsonPrimitive.content) {
                "page" -> { pages++; event.getValue("records").jsonArray.forEach(::println) }
                "failed" -> { println("paging failed: ${entry["message"]?.jsonPrimitive?.content}"); exitProcess(1) }
            }
        }
    }
    println("$pages pages, statuses ${statuses.toSortedSet()}, 429 seen: ${429 in statuses}")
    exitProcess(if (429 in statuses) 1 else 0)
}
