// The manual clock of a real acd-sandbox (started with `--clock manual`),
// read and moved over HTTP: pass `clock = clock::now, delay = clock::delay`
// to AcdHttpClient and the client's waits move the sandbox's time instead of
// passing real time.
package dev.acd.testing

import kotlin.time.Duration
import dev.acd.AcdException
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.longOrNull
import java.io.IOException
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse

/**
 * The clock of the acd-sandbox at [baseUrl], which must run with
 * `--clock manual`.
 *
 * @param baseUrl the sandbox's URL, e.g. `http://127.0.0.1:8080`.
 * @param adminToken the sandbox's `--admin-token`, when it is not on loopback.
 * @param timeoutMs the bound of each request to the sandbox.
 */
class SandboxClock
    @JvmOverloads
    constructor(
        baseUrl: String,
        private val adminToken: String? = null,
        private val timeoutMs: Long = 10_000,
    ) {
        /** The sandbox's URL, without a trailing slash. */
        val baseUrl: String = baseUrl.trimEnd('/')

        private val http: HttpClient = HttpClient.newBuilder().connectTimeout(java.time.Duration.ofMillis(timeoutMs)).build()
        private val waitsMs = mutableListOf<Long>()

        @Volatile
        private var lastReadMs: Long? = null

        /** Every wait asked for, in ms, in order. */
        val waits: List<Long> get() = synchronized(waitsMs) { waitsMs.toList() }

        private fun call(body: String?): Long {
            val builder =
                HttpRequest.newBuilder(URI.create("$baseUrl/_sandbox/clock"))
                    .timeout(java.time.Duration.ofMillis(timeoutMs))
                    .header("Content-Type", "application/json")
            adminToken?.let { builder.header("Authorization", "Bearer $it") }
            val request =
                if (body == null) builder.GET().build() else builder.POST(HttpRequest.BodyPublishers.ofString(body)).build()
            val response =
                try {
                    http.send(request, HttpResponse.BodyHandlers.ofString())
                } catch (error: IOException) {
                    throw AcdException("the sandbox at $baseUrl cannot be reached for its clock: $error", cause = error)
                }
            val status = response.statusCode()
            if (status != 200) {
                val hint = if (status == 404 || status == 409) " (start the sandbox with --clock manual)" else ""
                throw AcdException("the sandbox at $baseUrl refused its clock: $status ${response.body()}$hint", status = status)
            }
            val answer =
                try {
                    Json.parseToJsonElement(response.body()).jsonObject
                } catch (error: IllegalArgumentException) {
                    throw AcdException("the sandbox at $baseUrl answered its clock with no JSON object", cause = error)
                }
            if (answer["clock"]?.jsonPrimitive?.content != "manual") {
                throw AcdException("the sandbox at $baseUrl runs on the system clock; start it with --clock manual")
            }
            return answer["now_ms"]?.jsonPrimitive?.longOrNull
                ?: throw AcdException("the sandbox at $baseUrl answered its clock without now_ms")
        }

        /** The sandbox's current instant, Unix ms (usable as `clock = clock::now`). */
        fun now(): Long = call(null).also { lastReadMs = it }

        /**
         * Moves the sandbox's clock [ms] forward; returns the new instant.
         *
         * @throws IllegalArgumentException when [ms] is negative.
         */
        fun advance(ms: Long): Long {
            require(ms >= 0) { "the sandbox clock is moved forward only here; got $ms ms" }
            return call("{\"advance_ms\": $ms}").also { lastReadMs = it }
        }

        /** Sets the sandbox's clock to [nowMs] (Unix ms); returns it. */
        fun set(nowMs: Long): Long = call("{\"now_ms\": $nowMs}").also { lastReadMs = it }

        /**
         * Records the wait (in ms) and moves the sandbox's clock to the instant
         * it ends: [duration] after the clock was last read (the client reads
         * it just before it waits). A wait to an instant the sandbox has
         * already reached moves nothing, so concurrent waits to the same
         * instant move it once. Answers already on their way over loopback
         * are let in first (in the sandbox's time they come first). Usable as
         * `delay = clock::delay`; a client waits through it only for the
         * waits its core planned, never for its transport's time-outs.
         */
        @JvmName("delay")
        suspend fun delay(duration: Duration) {
            val ms = maxOf(0L, duration.inWholeMilliseconds)
            synchronized(waitsMs) { waitsMs += ms }
            withContext(Dispatchers.IO) {
                kotlinx.coroutines.delay(LOOPBACK_GRACE_MS)
                val target = (lastReadMs ?: now()) + ms
                val current = call(null)
                if (target > current) advance(target - current) else lastReadMs = current
            }
        }

        /** The URL only. */
        override fun toString(): String = "SandboxClock($baseUrl)"

        private companion object {
            /** Real time given to answers in flight over loopback before the clock moves. */
            const val LOOPBACK_GRACE_MS = 10L
        }
    }
