// AcdHttpClient: the easy path. The core's driver (AcdClient) decides what
// to send and when; this class sends through a Transport (java.net.http by
// default), waits with an injectable delay and reads an injectable clock, so
// tests run in virtual time. Reads come back as suspend functions and Flows;
// `blocking()` gives the same calls to Java callers.
package dev.acd

import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.sync.Mutex
import kotlinx.coroutines.sync.withLock
import kotlinx.serialization.json.JsonObject

/** The sentence thrown when the driver has nothing to send and nothing to wait for. */
internal const val NO_PROGRESS = "no call can make progress: nothing to send and nothing to wait for"

/**
 * A client of the API over HTTP, for coroutines.
 *
 * ```
 * val api = AcdHttpClient(apiKey = key, baseUrl = url)
 * api.tables.iter("orders", pageSize = 500).collect { println(it.string("id")) }
 * ```
 *
 * @param apiKey the API key (`ACD_API_KEY` when `null`).
 * @param baseUrl the API's base URL (`ACD_BASE_URL` when `null`, else the core's default).
 * @param user the user the key belongs to.
 * @param retry the retry policy (the core's defaults when `null`).
 * @param seed a fixed seed for jitter and idempotency keys (tests).
 * @param transport what requests go through ([JavaHttpTransport] by default).
 * @param clock the time in Unix ms (the system clock by default).
 * @param delay waits the given ms (`kotlinx.coroutines.delay` by default, so
 *   `runTest` skips the waits in virtual time).
 * @param onDeprecation called with each deprecation notice (logged as a
 *   warning by default).
 * @param maxBodyBytes the largest response body accepted, in bytes (the
 *   core's default, 32 MiB, when `null`).
 * @throws ConfigException when the core refuses the configuration.
 */
class AcdHttpClient(
    apiKey: String? = null,
    baseUrl: String? = null,
    user: String? = null,
    retry: RetryPolicy? = null,
    seed: Long? = null,
    /** What requests go through. */
    val transport: Transport = JavaHttpTransport(),
    private val clock: () -> Long = System::currentTimeMillis,
    private val delay: suspend (Long) -> Unit = { kotlinx.coroutines.delay(it) },
    private val onDeprecation: (Event.Deprecation) -> Unit = ::logDeprecation,
    maxBodyBytes: Long? = null,
) {
    /** The sans-IO client whose decisions this client carries out. */
    val client: AcdClient = AcdClient(apiKey, baseUrl, user, retry, seed, maxBodyBytes)

    private val queues = HashMap<Long, ArrayDeque<Event>>()
    private val stepping = Mutex()

    /** Table records: [Tables.read] and [Tables.iter]. */
    val tables: Tables = Tables(this)

    /** Connection records: [Connections.read] and [Connections.iter]. */
    val connections: Connections = Connections(this)

    /** Agent runs: [Runs.await]. */
    val runs: Runs = Runs(this)

    /** The base URL only (never a credential). */
    override fun toString(): String = "AcdHttpClient(baseUrl=${client.baseUrl})"

    /** The API index (`GET /api/v1`). */
    suspend fun index(): JsonObject = response { client.startSpec(acd.specGetApiIndex()) }.value ?: JsonObject(emptyMap())

    /**
     * One call of [operation] (an operation id of the catalogue), retried and
     * throttled by the core; its response.
     *
     * @throws ApiException (a subclass by status) when the call failed.
     */
    suspend fun call(
        operation: String,
        path: Map<String, String> = emptyMap(),
        query: Map<String, String> = emptyMap(),
        body: Body? = null,
    ): Event.Response = response { client.start(operation, path, query, body) }

    /** The same calls, blocking the calling thread (for Java callers). */
    fun blocking(): BlockingAcdHttpClient = BlockingAcdHttpClient(this)

    /**
     * The data events of [call] ([Event.Response], [Event.Page],
     * [Event.RunStatus]) as they come, sending and waiting in between; the
     * flow throws the typed exception when the call fails. Stopping the
     * collection early cancels the call. Collect right after starting [call]
     * on [client]: events another collection drains before this one opens
     * are not kept (the resource calls start and open in one step).
     */
    fun events(call: Long): Flow<Event> = events { call.also(::open) }

    /** [events] of the call [start] starts, opened before any other step can drain its events. */
    internal fun events(start: () -> Long): Flow<Event> =
        flow {
            val call = startOpen(start)
            try {
                while (true) emit(nextData(call) ?: break)
            } finally {
                close(call)
            }
        }

    internal suspend fun response(start: () -> Long): Event.Response {
        val call = startOpen(start)
        try {
            while (true) {
                val event = nextData(call) ?: break
                if (event is Event.Response) return event
            }
        } finally {
            close(call)
        }
        throw AcdException("call $call ended without a response")
    }

    /** Starts a call and opens its queue while no step runs, so none of its events is lost. */
    internal suspend fun startOpen(start: () -> Long): Long = stepping.withLock { start().also(::open) }

    internal fun open(call: Long) {
        synchronized(queues) { queues.getOrPut(call) { ArrayDeque() } }
    }

    internal fun close(call: Long) {
        synchronized(queues) { queues.remove(call) }
        client.cancel(call)
    }

    /** The next data event of open [call], or `null` once it is done; throws if it failed. */
    internal suspend fun nextData(call: Long): Event? {
        while (true) {
            val queued = takeQueued(call)
            if (queued != null) return queued.event
            stepping.withLock { if (synchronized(queues) { queues[call]?.isEmpty() } == true) step() }
        }
    }

    /** A queued data event or the end of [call]; `null` when nothing is queued yet. */
    private fun takeQueued(call: Long): Queued? {
        while (true) {
            val event =
                synchronized(queues) {
                    val queue = queues[call] ?: throw AcdException("call $call is not open")
                    queue.removeFirstOrNull()
                } ?: return null
            when (event) {
                is Event.Done -> return Queued(null)
                is Event.Failed -> throw event.error
                is Event.Deprecation -> onDeprecation(event)
                is Event.Waiting -> {}
                else -> return Queued(event)
            }
        }
    }

    private class Queued(val event: Event?)

    /** One request at most per step, so a collection stopped early sends no more. */
    private suspend fun step() {
        var progressed = false
        val transmit = client.pollTransmit(clock())
        if (transmit != null) {
            try {
                val response = transport.send(transmit.request)
                client.handle(transmit.call, response, clock())
            } catch (failure: TransportFailureException) {
                client.handleFailure(transmit.call, failure.kind, clock())
            }
            progressed = true
        }
        if (route()) progressed = true
        if (progressed) return
        val deadline = client.pollTimeout() ?: throw AcdException(NO_PROGRESS)
        delay(maxOf(0L, deadline - clock()))
    }

    /** Drains the driver's events into the open calls' queues; whether any arrived. */
    private fun route(): Boolean {
        var arrived = false
        for (event in client.pollEvents()) {
            synchronized(queues) {
                queues[event.call]?.let {
                    it.addLast(event)
                    arrived = true
                }
            }
        }
        return arrived
    }

    /** Constructors for Java callers. */
    companion object {
        /**
         * A blocking client with the system clock and real waits.
         *
         * @see AcdHttpClient for the parameters.
         */
        @JvmStatic
        @JvmOverloads
        fun newBlocking(
            apiKey: String? = null,
            baseUrl: String? = null,
            user: String? = null,
            retry: RetryPolicy? = null,
            seed: Long? = null,
            transport: Transport = JavaHttpTransport(),
            maxBodyBytes: Long? = null,
        ): BlockingAcdHttpClient =
            AcdHttpClient(apiKey, baseUrl, user, retry, seed, transport, maxBodyBytes = maxBodyBytes).blocking()
    }
}

private fun logDeprecation(notice: Event.Deprecation) {
    System.getLogger("dev.acd").log(
        System.Logger.Level.WARNING,
        "operation ${notice.operationId} is deprecated" +
            (notice.sunsetAt?.let { "; sunset at $it (Unix seconds)" } ?: "") +
            (notice.deprecationLink?.let { "; see $it" } ?: ""),
    )
}
