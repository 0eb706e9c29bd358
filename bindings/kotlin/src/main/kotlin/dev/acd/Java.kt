// The Java face of AcdHttpClient (`api.java()`): every call as a
// CompletableFuture (cancelling it cancels the call), pagers as Iterables
// whose iterator sends and waits as it is read, options as CallOptions.
package dev.acd

import kotlinx.coroutines.future.future
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import java.util.concurrent.CompletableFuture
import kotlin.time.toKotlinDuration

/** [AcdHttpClient]'s calls for Java callers; `join()` a future to block. */
class JavaAcdHttpClient internal constructor(private val api: AcdHttpClient) {
    /** Table records. */
    val tables: JavaTables = JavaTables(api)

    /** Connection records. */
    val connections: JavaConnections = JavaConnections(api)

    /** Agent runs. */
    val runs: JavaRuns = JavaRuns(api)

    /** The API index. */
    @JvmOverloads
    fun index(options: CallOptions = CallOptions.NONE): CompletableFuture<ApiIndex> =
        api.async { index(options.timeout, options.headers, options.maxAttempts) }

    /** Any catalogue operation; see [AcdHttpClient.request]. */
    @JvmOverloads
    fun request(
        operation: String, path: Map<String, String> = emptyMap(), query: Map<String, String> = emptyMap(), body: JsonElement? = null,
        options: CallOptions = CallOptions.NONE,
    ): CompletableFuture<Event.Response> = api.async { request(operation, path, query, body, options.timeout, options.headers, options.maxAttempts) }

    /** The throttle's view of each limit. */
    fun limits(): List<LimitState> = api.limits()

    /** No setting is shown (never a credential). */
    override fun toString(): String = "JavaAcdHttpClient()"
}

/** [block] on [this] client as a future in its scope. */
internal fun <T> AcdHttpClient.async(block: suspend AcdHttpClient.() -> T): CompletableFuture<T> = open { scope.future { block() } }

/** An iterator over the records of one pager call, started on the first [hasNext]; [close] (or reading to the end) drops the call. */
class RecordIterator internal constructor(private val api: AcdHttpClient, private val spec: JsonObject) : Iterator<AcdRecord>, AutoCloseable {
    private val buffer = ArrayDeque<AcdRecord>()
    private var call: Long? = null
    private var ended = false

    /** Whether another record comes (sending and waiting for the next page if needed). */
    override fun hasNext(): Boolean {
        while (buffer.isEmpty() && !ended) {
            val event =
                try {
                    api.async { nextData(call ?: startOpen(spec).also { call = it }) }.get()
                } catch (error: Throwable) {
                    close()
                    throw (error as? java.util.concurrent.ExecutionException)?.cause ?: error
                }
            if (event == null) close() else if (event is Event.Page) buffer.addAll(event.records)
        }
        return buffer.isNotEmpty()
    }

    /** The next record. */
    override fun next(): AcdRecord = if (hasNext()) buffer.removeFirst() else throw NoSuchElementException("no more records")

    /** Stops: nothing more is sent for this call. */
    override fun close() {
        ended = true
        call?.let(api::finish)
    }
}

/** Table records for Java. */
class JavaTables internal constructor(private val api: AcdHttpClient) {
    /** One page of [table]'s records; see [Tables.read]. */
    @JvmOverloads
    fun read(
        table: String, pageSize: Int? = null, offset: Int? = null, options: CallOptions = CallOptions.NONE,
    ): CompletableFuture<List<AcdRecord>> =
        api.async { tables.read(table, pageSize, offset, timeout = options.timeout, headers = options.headers, maxAttempts = options.maxAttempts) }

    /** Every record of [table], each once; the pager starts when iteration does. See [Tables.iter]. */
    @JvmOverloads
    fun iter(
        table: String, pageSize: Int? = null, orderBy: String? = null, descending: Boolean = false, options: CallOptions = CallOptions.NONE,
    ): Iterable<AcdRecord> =
        Iterable {
            RecordIterator(api, api.open { tablePagesSpec(table, pageSize, orderBy, descending, false, options) })
        }
}

/** Connection records for Java. */
class JavaConnections internal constructor(private val api: AcdHttpClient) {
    /** One page of the records of [entity] in [connection]; see [Connections.read]. */
    @JvmOverloads
    fun read(
        connection: String, entity: String, pageSize: Int? = null, offset: Int? = null, options: CallOptions = CallOptions.NONE,
    ): CompletableFuture<List<AcdRecord>> =
        api.async { connections.read(connection, entity, pageSize, offset, timeout = options.timeout, headers = options.headers, maxAttempts = options.maxAttempts) }

    /** Every record of [entity] in [connection], each once. */
    @JvmOverloads
    fun iter(
        connection: String, entity: String, pageSize: Int? = null, options: CallOptions = CallOptions.NONE,
    ): Iterable<AcdRecord> =
        Iterable {
            RecordIterator(api, api.open { connectionPagesSpec(connection, entity, pageSize, null, options) })
        }
}

/** Agent runs for Java. */
class JavaRuns internal constructor(private val api: AcdHttpClient) {
    /** Creates a run of [agentId] with [input]; see [Runs.create]. */
    @JvmOverloads
    fun create(
        agentId: String, input: JsonElement? = null, options: CallOptions = CallOptions.NONE,
    ): CompletableFuture<Run> = api.async { runs.create(agentId, input, options.timeout, options.headers, options.maxAttempts) }

    /** Run [runId] as it is now. */
    @JvmOverloads
    fun get(
        runId: String, options: CallOptions = CallOptions.NONE,
    ): CompletableFuture<Run> = api.async { runs.get(runId, options.timeout, options.headers, options.maxAttempts) }

    /** Polls run [runId] every [interval] until a terminal status; see [Runs.wait]. */
    @JvmOverloads
    fun wait(
        runId: String, interval: java.time.Duration? = null, timeout: java.time.Duration? = null,
    ): CompletableFuture<Run> = api.async { runs.wait(runId, interval?.toKotlinDuration(), timeout?.toKotlinDuration()) }
}
