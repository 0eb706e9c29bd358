// AcdHttpClient: the easy path. The core's driver decides what to send and
// when (Engine); this class sends through a Transport (java.net.http by
// default), waits with an injectable delay, reads an injectable clock, and
// makes every wait and retry visible (onEvent, and the System.Logger "acd").
package dev.acd

import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.cancel
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonObjectBuilder
import kotlinx.serialization.json.add
import kotlinx.serialization.json.addJsonArray
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonArray
import kotlinx.serialization.json.putJsonObject
import java.io.Closeable
import java.net.http.HttpClient
import java.util.concurrent.atomic.AtomicBoolean
import kotlin.time.Duration

/** The sentence thrown when the driver has nothing to send and nothing to wait for. */
internal const val NO_PROGRESS = "no call can make progress: nothing to send and nothing to wait for"

/**
 * A client of the API over HTTP, for coroutines (`java()` for Java callers).
 *
 * ```
 * AcdHttpClient(apiKey = key, baseUrl = url).use { api ->
 *     api.tables.iter("orders", pageSize = 500).collect { println(it.string("id")) }
 * }
 * ```
 *
 * @param apiKey the API key (`ACD_API_KEY` when `null`).
 * @param baseUrl the API's base URL (`ACD_BASE_URL` when `null`, else the core's default).
 * @param retry the retry policy (the core's defaults when `null`).
 * @param http a `java.net.http.HttpClient` of yours to send with; it stays
 *   yours ([close] leaves it alone). By default the client makes its own.
 * @param onEvent called with every event as it happens: waits
 *   ([Event.Waiting]), retries ([Event.Retrying]), deprecation notices,
 *   pages, ... Waits and retries are also logged at INFO, deprecations at
 *   WARNING, on the `System.Logger` named `acd`.
 * @param seed a fixed seed for jitter and idempotency keys (tests).
 * @param transport what requests go through instead of `java.net.http` (tests).
 * @param clock the time in Unix ms (the system clock by default).
 * @param delay waits the given duration (`kotlinx.coroutines.delay` by
 *   default, so `runTest` skips the waits in virtual time).
 * @param maxBodyBytes the largest response body accepted (the core's default when `null`).
 * @param token an OAuth access token instead of an API key (not both).
 * @throws ConfigException when the core refuses the configuration.
 */
class AcdHttpClient
    @JvmOverloads
    constructor(
        apiKey: String? = null,
        baseUrl: String? = null,
        retry: RetryPolicy? = null,
        http: HttpClient? = null,
        private val onEvent: ((Event) -> Unit)? = null,
        seed: Long? = null,
        transport: Transport? = null,
        private val clock: () -> Long = System::currentTimeMillis,
        private val delay: suspend (Duration) -> Unit = { kotlinx.coroutines.delay(it) },
        maxBodyBytes: Long? = null,
        token: String? = null,
    ) : Closeable {
        internal val engine: Engine = Engine(configJson(apiKey, baseUrl, retry, seed, maxBodyBytes, token), maxBodyBytes)

        /** What requests go through. */
        val transport: Transport = transport ?: JavaHttpTransport(http)

        private val ownsTransport = transport == null
        private val logger: System.Logger = acdLogger()
        private val session = Session(engine, this.transport, clock, delay, { scope }, { open { Unit } }, ::notify)
        private val closed = AtomicBoolean(false)

        /** Where the Java facade's futures run; cancelled by [close]. */
        internal val scope: CoroutineScope by lazy { CoroutineScope(SupervisorJob() + Dispatchers.IO) }

        /** Table records: [Tables.read], [Tables.iter], [Tables.pages]. */
        val tables: Tables = Tables(this)

        /** Connection records: [Connections.read], [Connections.iter], [Connections.pages]. */
        val connections: Connections = Connections(this)

        /** Agent runs: [Runs.create], [Runs.get], [Runs.wait]. */
        val runs: Runs = Runs(this)

        /** No setting is shown (never a credential). */
        override fun toString(): String = "AcdHttpClient()"

        /** The same calls for Java: `CompletableFuture`s and `Iterable`s. */
        fun java(): JavaAcdHttpClient = JavaAcdHttpClient(this)

        /** The Java entry point: `AcdHttpClient.builder().apiKey(key).retry(policy).build()`. */
        companion object {
            /** An empty [AcdHttpClientBuilder] (every setting the core's default). */
            @JvmStatic
            fun builder(): AcdHttpClientBuilder = AcdHttpClientBuilder()
        }

        /** The API index (`GET /api/v1`). */
        @JvmName("index")
        suspend fun index(
            timeout: Duration? = null, headers: Map<String, String> = emptyMap(), maxAttempts: Int? = null,
        ): ApiIndex = indexOf(response(spec("index", CallOptions(timeout, headers, maxAttempts)) {}).body)

        /**
         * One call of [operation] (any operation id of the catalogue), throttled
         * and retried by the core; its response.
         *
         * @param path path parameters by template name.
         * @param query query parameters by name, in order.
         * @param body the JSON body, for operations that take one.
         * @throws AcdException (the class of its category) when the call failed.
         */
        @JvmName("request")
        suspend fun request(
            operation: String, path: Map<String, String> = emptyMap(), query: Map<String, String> = emptyMap(), body: JsonElement? = null,
            timeout: Duration? = null, headers: Map<String, String> = emptyMap(), maxAttempts: Int? = null,
        ): Event.Response = response(requestSpec(operation, CallOptions(timeout, headers, maxAttempts), path, query.toList(), body))

        /** The throttle's current view of each limit. */
        fun limits(): List<LimitState> = open { engine.limits() }

        /**
         * Closes the client: open calls are dropped, and what the client made
         * (its HTTP client, its scope for futures) is released; an `http` passed
         * in stays yours. Any later call throws a [ConfigException] at once.
         */
        override fun close() {
            if (!closed.compareAndSet(false, true)) return
            session.cancelAll()
            scope.cancel()
            if (ownsTransport) (transport as? Closeable)?.close()
        }

        internal fun <T> open(block: () -> T): T {
            if (closed.get()) throw ConfigException("this AcdHttpClient is closed; make a new one to send more calls")
            return block()
        }

        /** The response of the call [spec] describes. */
        internal suspend fun response(spec: JsonObject): Event.Response {
            val call = startOpen(spec)
            try {
                while (true) {
                    val event = nextData(call) ?: break
                    if (event is Event.Response) return event
                }
            } finally {
                finish(call)
            }
            throw AcdException("call $call ended without a response")
        }

        /** The data events of the call [spec] describes, as they come; stopping early cancels it. */
        internal fun events(spec: JsonObject): Flow<Event> =
            flow {
                val call = startOpen(spec)
                try {
                    while (true) emit(nextData(call) ?: break)
                } finally {
                    finish(call)
                }
            }

        /** Starts a call; its events are queued from the first poll on. */
        internal fun startOpen(spec: JsonObject): Long = open { session.start(spec) }

        internal fun finish(call: Long) = session.finish(call)

        /** The next data event of open [call], or `null` once it is done; throws if it failed. */
        internal suspend fun nextData(call: Long): Event? = session.next(call)

        private fun notify(event: Event) {
            when (event) {
                // The core's level: each wait or retry said once (a retry's own wait is DEBUG).
                is Event.Waiting -> logger.log(levelOf(event.level), event.message)
                is Event.Retrying -> logger.log(levelOf(event.json.str("level")), event.message)
                is Event.Deprecation -> logger.log(System.Logger.Level.WARNING, event.message)
                else -> {}
            }
            onEvent?.invoke(event)
        }
    }

/** A CallSpec of [type] with [options] and the members [members] adds. */
internal fun spec(
    type: String, options: CallOptions, members: JsonObjectBuilder.() -> Unit,
): JsonObject =
    buildJsonObject {
        put("type", type)
        members()
        put("options", options.toJson())
    }

/** A `request` CallSpec. */
internal fun requestSpec(
    operation: String, options: CallOptions, path: Map<String, String> = emptyMap(), query: List<Pair<String, String>> = emptyList(),
    body: JsonElement? = null,
): JsonObject =
    spec("request", options) {
        put("operation", operation)
        putJsonObject("path") { path.forEach { (name, value) -> put(name, value) } }
        putJsonArray("query") { query.forEach { (name, value) -> addJsonArray { add(name); add(value) } } }
        body?.let { put("body", it) }
    }
