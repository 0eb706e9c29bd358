// The resources of AcdHttpClient: tables, connections and runs. Each method
// is one call spec (docs/driver-protocol.md); pagers and the run poller are
// the core's, and every method takes the per-call options.
package dev.acd

import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.filterIsInstance
import kotlinx.coroutines.flow.flow
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.put
import kotlin.time.Duration

/** The records of a list response: the body's `data` array, or the body itself when an array. */
internal fun recordsOf(body: JsonElement): List<AcdRecord> {
    val list = (body as? JsonArray) ?: ((body as? JsonObject)?.get("data") as? JsonArray) ?: JsonArray(emptyList())
    return list.map { AcdRecord(it as? JsonObject ?: throw AcdException("a record is not a JSON object: $it")) }
}

/** A `filter` member: JSON text as a string, or any JSON value. */
private fun filterOf(filter: Any?): JsonElement? =
    when (filter) {
        null -> null
        is JsonElement -> filter
        else -> JsonPrimitive(filter.toString())
    }

/** Every record of the pages of [pages], each once, in order. */
internal fun records(pages: Flow<Event.Page>): Flow<AcdRecord> = flow { pages.collect { page -> page.records.forEach { emit(it) } } }

/** The `table_pages` call spec. */
internal fun tablePagesSpec(table: String, pageSize: Int?, orderBy: String?, descending: Boolean, uniqueOrder: Boolean, options: CallOptions): JsonObject =
    spec("table_pages", options) {
        put("table", table)
        pageSize?.let { put("page_size", it) }
        orderBy?.let { put("order_by", it) }
        put("descending", descending)
        put("unique_order", uniqueOrder)
    }

/** The `connection_pages` call spec. */
internal fun connectionPagesSpec(connection: String, entity: String, pageSize: Int?, filter: Any?, options: CallOptions, egress: String? = null): JsonObject =
    spec("connection_pages", options) {
        put("connection", connection)
        put("entity", entity)
        pageSize?.let { put("page_size", it) }
        filterOf(filter)?.let { put("filter", it) }
        egress?.let { put("egress", it) }
    }

/** Table records through an [AcdHttpClient]. */
class Tables internal constructor(private val api: AcdHttpClient) {
    /**
     * One page of [table]'s records: [pageSize] of them (the API's default
     * when `null`) after skipping [offset], ordered by [orderBy] (descending
     * when [descending]), above [after] in that column when set.
     */
    @JvmName("read")
    suspend fun read(
        table: String, pageSize: Int? = null, offset: Int? = null, orderBy: String? = null, descending: Boolean = false, after: String? = null,
        timeout: Duration? = null, headers: Map<String, String> = emptyMap(), maxAttempts: Int? = null,
    ): List<AcdRecord> {
        val spec =
            spec("table_read", CallOptions(timeout, headers, maxAttempts)) {
                put("table", table)
                pageSize?.let { put("page_size", it) }
                offset?.let { put("offset", it) }
                orderBy?.let { put("order_by", it) }
                put("descending", descending)
                after?.let { put("after", it) }
            }
        return recordsOf(api.response(spec).body)
    }

    /**
     * Every record of [table], page by page, each exactly once; the core's
     * throttle spaces the pages under the rate limits. Pages go by offset
     * unless [uniqueOrder] declares the [orderBy] column unique.
     */
    @JvmName("iter")
    fun iter(
        table: String, pageSize: Int? = null, orderBy: String? = null, descending: Boolean = false, uniqueOrder: Boolean = false,
        timeout: Duration? = null, headers: Map<String, String> = emptyMap(), maxAttempts: Int? = null,
    ): Flow<AcdRecord> = records(pages(table, pageSize, orderBy, descending, uniqueOrder, timeout, headers, maxAttempts))

    /** [iter]'s pages, one [Event.Page] each. */
    @JvmName("pages")
    fun pages(
        table: String, pageSize: Int? = null, orderBy: String? = null, descending: Boolean = false, uniqueOrder: Boolean = false,
        timeout: Duration? = null, headers: Map<String, String> = emptyMap(), maxAttempts: Int? = null,
    ): Flow<Event.Page> {
        val spec = tablePagesSpec(table, pageSize, orderBy, descending, uniqueOrder, CallOptions(timeout, headers, maxAttempts))
        return api.events(spec).filterIsInstance()
    }
}

/** Connection records through an [AcdHttpClient]. */
class Connections internal constructor(private val api: AcdHttpClient) {
    /**
     * One page of the records of [entity] in [connection]; [filter] is any
     * JSON value (a `JsonElement`) or its JSON text (a `String`); [egress]
     * `"header"` or `"url"` asks for the stable egress IP.
     */
    @JvmName("read")
    suspend fun read(
        connection: String, entity: String, pageSize: Int? = null, offset: Int? = null, filter: Any? = null,
        timeout: Duration? = null, headers: Map<String, String> = emptyMap(), maxAttempts: Int? = null, egress: String? = null,
    ): List<AcdRecord> {
        val spec =
            spec("connection_read", CallOptions(timeout, headers, maxAttempts)) {
                put("connection", connection)
                put("entity", entity)
                pageSize?.let { put("page_size", it) }
                offset?.let { put("offset", it) }
                filterOf(filter)?.let { put("filter", it) }
                egress?.let { put("egress", it) }
            }
        return recordsOf(api.response(spec).body)
    }

    /** Every record of [entity] in [connection], page by page, each once. */
    @JvmName("iter")
    fun iter(
        connection: String, entity: String, pageSize: Int? = null, filter: Any? = null,
        timeout: Duration? = null, headers: Map<String, String> = emptyMap(), maxAttempts: Int? = null, egress: String? = null,
    ): Flow<AcdRecord> = records(pages(connection, entity, pageSize, filter, timeout, headers, maxAttempts, egress))

    /** [iter]'s pages, one [Event.Page] each. */
    @JvmName("pages")
    fun pages(
        connection: String, entity: String, pageSize: Int? = null, filter: Any? = null,
        timeout: Duration? = null, headers: Map<String, String> = emptyMap(), maxAttempts: Int? = null, egress: String? = null,
    ): Flow<Event.Page> {
        val spec = connectionPagesSpec(connection, entity, pageSize, filter, CallOptions(timeout, headers, maxAttempts), egress)
        return api.events(spec).filterIsInstance()
    }
}

/** Agent runs through an [AcdHttpClient]. */
class Runs internal constructor(private val api: AcdHttpClient) {
    /** Creates a run of agent [agentId] with [input] (the core writes the body); the new run. */
    @JvmName("create")
    suspend fun create(
        agentId: String, input: JsonElement? = null, timeout: Duration? = null, headers: Map<String, String> = emptyMap(), maxAttempts: Int? = null,
    ): Run =
        runOf(
            api.response(
                spec("run_create", CallOptions(timeout, headers, maxAttempts)) {
                    put("agent_id", agentId)
                    input?.let { put("input", it) }
                },
            ).body,
        )

    /** Run [runId] as it is now. */
    @JvmName("get")
    suspend fun get(
        runId: String, timeout: Duration? = null, headers: Map<String, String> = emptyMap(), maxAttempts: Int? = null,
    ): Run = runOf(api.response(spec("run_get", CallOptions(timeout, headers, maxAttempts)) { put("run_id", runId) }).body)

    /**
     * Polls run [runId] every [interval] (the core's default when `null`)
     * until a terminal status; the final run. [timeout] bounds the whole
     * wait (the core's deadline when `null`).
     */
    @JvmName("wait")
    suspend fun wait(
        runId: String, interval: Duration? = null, timeout: Duration? = null, headers: Map<String, String> = emptyMap(), maxAttempts: Int? = null,
    ): Run {
        val spec =
            spec("run_wait", CallOptions(null, headers, maxAttempts)) {
                put("run_id", runId)
                interval?.let { put("interval_ms", it.inWholeMilliseconds) }
                timeout?.let { put("deadline_ms", it.inWholeMilliseconds) }
            }
        var last: Run? = null
        api.events(spec).collect { if (it is Event.RunStatus) last = it.run }
        return last ?: throw AcdException("run $runId ended without a status")
    }
}
