// The blocking face of AcdHttpClient for Java callers: the same calls, each
// run to its end on the calling thread. Pagers are Iterables whose iterator
// sends and waits as it is read; closing it early cancels the call.
package dev.acd

import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonObject

/** [AcdHttpClient]'s calls, blocking the calling thread (not for use inside a coroutine). */
class BlockingAcdHttpClient internal constructor(
    /** The coroutine client these calls run on. */
    val async: AcdHttpClient,
) {
    /** Table records. */
    val tables: BlockingTables = BlockingTables(async)

    /** Connection records. */
    val connections: BlockingConnections = BlockingConnections(async)

    /** Agent runs. */
    val runs: BlockingRuns = BlockingRuns(async)

    /** The API index (`GET /api/v1`). */
    fun index(): JsonObject = runBlocking { async.index() }

    /** One call of [operation]; see [AcdHttpClient.call]. */
    @JvmOverloads
    fun call(
        operation: String,
        path: Map<String, String> = emptyMap(),
        query: Map<String, String> = emptyMap(),
        body: Body? = null,
    ): Event.Response = runBlocking { async.call(operation, path, query, body) }

    /** The base URL only (never a credential). */
    override fun toString(): String = "BlockingAcdHttpClient(baseUrl=${async.client.baseUrl})"
}

/** An iterator over the records of one pager call; [close] cancels the call. */
class RecordIterator internal constructor(
    private val api: AcdHttpClient,
    start: () -> Long,
) : Iterator<Record>, AutoCloseable {
    private val buffer = ArrayDeque<Record>()
    private var ended = false
    private val call: Long = runBlocking { api.startOpen(start) }

    /** Whether another record comes (sending and waiting for the next page if needed). */
    override fun hasNext(): Boolean {
        while (buffer.isEmpty() && !ended) {
            val event =
                try {
                    runBlocking { api.nextData(call) }
                } catch (error: Throwable) {
                    close()
                    throw error
                }
            when (event) {
                null -> close()
                is Event.Page -> buffer.addAll(event.records)
                else -> {}
            }
        }
        return buffer.isNotEmpty()
    }

    /** The next record. */
    override fun next(): Record = if (hasNext()) buffer.removeFirst() else throw NoSuchElementException("no more records")

    /** Stops: nothing more is sent for this call. */
    override fun close() {
        if (!ended) {
            ended = true
            api.close(call)
        }
    }
}

/** Table records, blocking. */
class BlockingTables internal constructor(private val api: AcdHttpClient) {
    /** One page of [table]'s records; see [Tables.read]. */
    @JvmOverloads
    fun read(
        table: String,
        limit: Long? = null,
        offset: Long? = null,
        orderBy: String? = null,
        direction: String? = null,
        after: String? = null,
    ): List<Record> = runBlocking { api.tables.read(table, limit, offset, orderBy, direction, after) }

    /** Every record of [table], each once; the pager starts when iteration does. */
    @JvmOverloads
    fun iter(
        table: String,
        pageSize: Long? = null,
        orderBy: String? = null,
        descending: Boolean = false,
        uniqueOrder: Boolean = false,
    ): Iterable<Record> =
        Iterable { RecordIterator(api) { api.client.startTablePager(table, pageSize, orderBy, descending, uniqueOrder) } }
}

/** Connection records, blocking. */
class BlockingConnections internal constructor(private val api: AcdHttpClient) {
    /** One page of the records of [entityId] in [connection]; see [Connections.read]. */
    @JvmOverloads
    fun read(
        connection: String,
        entityId: String,
        limit: Long? = null,
        offset: Long? = null,
        filter: String? = null,
    ): List<Record> = runBlocking { api.connections.read(connection, entityId, limit, offset, filter) }

    /** Every record of [entityId] in [connection], each once. */
    @JvmOverloads
    fun iter(
        connection: String,
        entityId: String,
        pageSize: Long? = null,
        filter: String? = null,
    ): Iterable<Record> = Iterable { RecordIterator(api) { api.client.startConnectionPager(connection, entityId, pageSize, filter) } }
}

/** Agent runs, blocking. */
class BlockingRuns internal constructor(private val api: AcdHttpClient) {
    /** Polls run [runId] until a terminal status; the final run. See [Runs.await]. */
    @JvmOverloads
    fun await(
        runId: String,
        intervalMs: Long? = null,
        deadlineMs: Long? = null,
    ): Record = runBlocking { api.runs.await(runId, intervalMs, deadlineMs) }
}
