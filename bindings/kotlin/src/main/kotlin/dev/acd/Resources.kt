// The resources of AcdHttpClient: tables, connections and runs. Reads are
// request specs by parameter role (the catalogue names them on the wire);
// pagers are the core's, flowing page by page.
package dev.acd

import acd.ParamRole
import acd.RequestSpec
import acd.RoleParam
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow

/** [this] spec with a role parameter for every non-null value, in order. */
internal fun RequestSpec.withRoles(vararg roles: Pair<ParamRole, Any?>): RequestSpec =
    copy(roles = this.roles + roles.mapNotNull { (role, value) -> value?.let { RoleParam(role, it.toString()) } })

/** The records of a list response (an empty list for any other). */
private fun Event.Response.recordsOrEmpty(): List<Record> = records.orEmpty()

/** Every record of the pages of the call [start] starts, each once, in order. */
private fun AcdHttpClient.pageRecords(start: () -> Long): Flow<Record> =
    flow { events(start).collect { event -> if (event is Event.Page) event.records.forEach { emit(it) } } }

/** Table records through an [AcdHttpClient]. */
class Tables internal constructor(private val api: AcdHttpClient) {
    /**
     * One page of [table]'s records.
     *
     * @param limit records per page (the API's default when `null`).
     * @param offset records to skip.
     * @param orderBy the column to order by.
     * @param direction `asc` or `desc`.
     * @param after the lower bound of the [orderBy] column.
     */
    suspend fun read(
        table: String,
        limit: Long? = null,
        offset: Long? = null,
        orderBy: String? = null,
        direction: String? = null,
        after: String? = null,
    ): List<Record> {
        val spec =
            acd.specListTableRecords(table).withRoles(
                ParamRole.LIMIT to limit,
                ParamRole.OFFSET to offset,
                ParamRole.ORDER_BY to orderBy,
                ParamRole.DIRECTION to direction,
                ParamRole.AFTER to after,
            )
        return api.response { api.client.startSpec(spec) }.recordsOrEmpty()
    }

    /**
     * Every record of [table], page by page, each exactly once; the core's
     * throttle spaces the pages so the rate limits are not hit.
     */
    fun iter(
        table: String,
        pageSize: Long? = null,
        orderBy: String? = null,
        descending: Boolean = false,
        uniqueOrder: Boolean = false,
    ): Flow<Record> = api.pageRecords { api.client.startTablePager(table, pageSize, orderBy, descending, uniqueOrder) }
}

/** Connection records through an [AcdHttpClient]. */
class Connections internal constructor(private val api: AcdHttpClient) {
    /** One page of the records of [entityId] in [connection]; [filter] is JSON text. */
    suspend fun read(
        connection: String,
        entityId: String,
        limit: Long? = null,
        offset: Long? = null,
        filter: String? = null,
    ): List<Record> {
        val spec =
            acd.specListConnectionRecords(connection, entityId).withRoles(
                ParamRole.LIMIT to limit,
                ParamRole.OFFSET to offset,
                ParamRole.FILTER to filter,
            )
        return api.response { api.client.startSpec(spec) }.recordsOrEmpty()
    }

    /** Every record of [entityId] in [connection], page by page, each once. */
    fun iter(
        connection: String,
        entityId: String,
        pageSize: Long? = null,
        filter: String? = null,
    ): Flow<Record> = api.pageRecords { api.client.startConnectionPager(connection, entityId, pageSize, filter) }
}

/** Agent runs through an [AcdHttpClient]. */
class Runs internal constructor(private val api: AcdHttpClient) {
    /**
     * Polls run [runId] until a terminal status and returns the final run.
     *
     * @param intervalMs the first interval between polls (the core's default when `null`).
     * @param deadlineMs how long to poll before giving up (the core's default when `null`).
     */
    suspend fun await(
        runId: String,
        intervalMs: Long? = null,
        deadlineMs: Long? = null,
    ): Record {
        var last: Record? = null
        api.events { api.client.startRunPoller(runId, intervalMs, deadlineMs) }.collect { event ->
            if (event is Event.RunStatus) last = event.run
        }
        return last ?: throw AcdException("run $runId ended without a status")
    }
}
