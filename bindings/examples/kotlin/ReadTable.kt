// Reads a table from a running acd-sandbox (or the real API) with
// java.net.http.HttpClient as the transport: the pager says what to send and
// when, the throttle keeps it under the rate limits (so no 429), this code
// sends and sleeps. Usage: ReadTableKt BASE_URL [TABLE] [PAGE_SIZE]
import acd.Client
import acd.ClientConfig
import acd.ClientRequest
import acd.CredentialKind
import acd.HttpResponse
import acd.Outcome
import acd.Pager
import acd.PagerEvent
import acd.ResponseHeader
import acd.Step
import acd.TablePagerOptions
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import kotlin.system.exitProcess

val http: HttpClient = HttpClient.newHttpClient()

/** Headers HttpClient sets itself and refuses from callers. */
val restricted = setOf("connection", "content-length", "expect", "host", "upgrade")

/** One HTTP exchange; restricted headers (Host, ...) are left to HttpClient. */
fun send(request: ClientRequest): HttpResponse {
    val builder = HttpRequest.newBuilder(URI.create(request.url()))
        .method(request.method(), request.body()?.let { HttpRequest.BodyPublishers.ofByteArray(it) } ?: HttpRequest.BodyPublishers.noBody())
    for (header in request.headers()) {
        if (header.name.lowercase() !in restricted) builder.header(header.name, header.value)
    }
    val reply = http.send(builder.build(), java.net.http.HttpResponse.BodyHandlers.ofByteArray())
    val headers = reply.headers().map().flatMap { (name, values) -> values.map { ResponseHeader(name, it) } }
    return HttpResponse(reply.statusCode().toUShort(), headers, reply.body())
}

fun main(args: Array<String>) {
    val baseUrl = args[0]
    val table = args.getOrElse(1) { "orders" }
    val pageSize = args.getOrElse(2) { "2" }.toULong()
    val config = ClientConfig.fromJson("""{"base_url": "$baseUrl", "stable_egress_url": "$baseUrl/egress"}""")
    val client = Client(config.withCredential("main", CredentialKind.API_KEY, "acd_live_demo_ada", "ada"))
    val pager = Pager.table(table, TablePagerOptions(pageSize, null, false, false, null))
    val statuses = mutableListOf<Int>()
    while (true) {
        when (val step = pager.poll(client, System.currentTimeMillis())) {
            is Step.Done -> break
            is Step.WaitUntil -> Thread.sleep(maxOf(0L, step.atMs - System.currentTimeMillis()))
            is Step.AwaitingResponse -> error("nothing should be in flight")
            is Step.Send -> {
                val response = send(step.request)
                statuses.add(response.status.toInt())
                when (val event = pager.handle(client, Outcome.Response(response), System.currentTimeMillis())) {
                    is PagerEvent.Page -> event.records.forEach(::println)
                    is PagerEvent.Failed -> { println("paging failed: ${event.failure.message}"); exitProcess(1) }
                    else -> {}
                }
            }
        }
    }
    println("${pager.pages()} pages, statuses ${statuses.toSortedSet()}, 429 seen: ${429 in statuses}")
    exitProcess(if (429 in statuses) 1 else 0)
}
