// The session loop of docs/driver-protocol.md ("Session") for AcdHttpClient:
// one coroutine drives at a time (polls, hands every transmit to its own
// coroutine at once, routes events to each call's queue), and wakes at the
// batch's timeout or at the next outcome, whichever is first; the other
// callers wait until it has delivered events. Nothing is decided here.
package dev.acd

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.launch
import kotlinx.coroutines.selects.select
import kotlinx.serialization.json.JsonObject
import kotlin.coroutines.ContinuationInterceptor
import kotlin.coroutines.CoroutineContext
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds

/**
 * The calls of one client over one [engine]: each transmit goes out through
 * [transport] as soon as the core hands it out, each outcome goes back to the
 * core as it arrives, and [delay] is used only for the waits the core planned
 * (a transport's own time-out is not a wait).
 */
internal class Session(
    private val engine: Engine,
    private val transport: Transport,
    private val clock: () -> Long,
    private val delay: suspend (Duration) -> Unit,
    private val scope: () -> CoroutineScope,
    private val checkOpen: () -> Unit,
    private val notify: (Event) -> Unit,
) {
    private val lock = Any()
    private val queues = HashMap<Long, ArrayDeque<Event>>()
    private var driving = false
    private var progress = CompletableDeferred<Unit>()
    private var arrived = CompletableDeferred<Unit>()
    private var failure: Throwable? = null
    private var inFlight = 0

    /** Starts the call [spec] describes, with its queue open before any poll can route its events. */
    fun start(spec: JsonObject): Long {
        checkOpen()
        val call = synchronized(lock) { engine.start(spec).also { queues[it] = ArrayDeque() } }
        wake()
        return call
    }

    /** Closes [call]'s queue and drops the call in the core (its answer in flight, if any, is still observed). */
    fun finish(call: Long) {
        val wasOpen = synchronized(lock) { queues.remove(call) != null }
        if (wasOpen) engine.cancel(call)
    }

    /** Drops every open call (the client closes) and wakes the driving coroutine so it sees it. */
    fun cancelAll() {
        val calls = synchronized(lock) { queues.keys.toList().also { queues.clear() } }
        calls.forEach(engine::cancel)
        wake()
    }

    /** The next data event of open [call], or `null` once it is done; throws if it failed. */
    suspend fun next(call: Long): Event? {
        while (true) {
            checkOpen()
            while (true) {
                val event = synchronized(lock) { queues[call]?.removeFirstOrNull() } ?: break
                when (event) {
                    is Event.Done -> return null
                    is Event.Failed -> throw event.error
                    is Event.Response, is Event.Page, is Event.RunStatus -> return event
                    else -> {} // notices went to onEvent and the log when they arrived
                }
            }
            step()
        }
    }

    /** One turn: drive if nobody does, else wait until the driving coroutine has delivered events. */
    private suspend fun step() {
        val waitFor =
            synchronized(lock) {
                if (driving) {
                    progress
                } else {
                    driving = true
                    null
                }
            }
        if (waitFor != null) {
            waitFor.await()
            return
        }
        try {
            drive()
        } finally {
            val delivered = synchronized(lock) { progress.also { driving = false; progress = CompletableDeferred() } }
            delivered.complete(Unit)
        }
    }

    /** Polls until a batch delivers events to an open call; sends every transmit at once; sleeps to the next wake-up or outcome. */
    private suspend fun drive() {
        val exchanges = exchangeContext(currentCoroutineContext())
        while (true) {
            checkOpen()
            val now = clock()
            val signal = CompletableDeferred<Unit>()
            var progressed = false
            var busy = false
            val (batch, sending) =
                synchronized(lock) {
                    failure?.let { failure = null; throw it }
                    arrived = signal
                    val batch = engine.poll(now)
                    for (event in batch.events) queues[event.call]?.let { it.addLast(event); progressed = true }
                    val sending = batch.transmits.filter { it.call in queues }
                    inFlight += sending.size
                    // Read with the poll: an outcome that lands after it completes `signal`.
                    busy = inFlight > 0
                    batch to sending
                }
            batch.events.forEach(notify)
            for (transmit in sending) scope().launch(exchanges) { exchange(transmit) }
            if (progressed) return
            if (sending.isNotEmpty()) continue // sent: poll again, as the protocol asks after each step
            val wake = batch.timeout
            if (wake == null) {
                if (!busy) throw AcdException(NO_PROGRESS)
                signal.await()
            } else {
                sleepUntil(wake, signal)
            }
        }
    }

    /** Waits until [wake] (Unix ms, through the injected delay) or until [signal], whichever is first. */
    private suspend fun sleepUntil(wake: Long, signal: CompletableDeferred<Unit>) {
        val ms = wake - clock()
        if (ms <= 0) return
        coroutineScope {
            val sleeper = async { delay(ms.milliseconds) }
            select<Unit> {
                sleeper.onAwait {}
                signal.onAwait {}
            }
            sleeper.cancel()
        }
    }

    /** Sends one transmit and hands its outcome to the core as it arrives, then wakes the driver. */
    private suspend fun exchange(transmit: Transmit) {
        try {
            when (val outcome = send(transmit)) {
                is Response -> engine.respond(transmit.call, outcome, clock())
                is FailureKind -> engine.fail(transmit.call, outcome, clock())
            }
        } catch (cancelled: CancellationException) {
            throw cancelled
        } catch (error: Throwable) {
            synchronized(lock) { failure = error } // raised by the driving coroutine, as a blocking send would raise it
        } finally {
            synchronized(lock) { inFlight -= 1 }
            wake()
        }
    }

    /**
     * One exchange: its [Response], or how it failed ([FailureKind]). The
     * transport bounds it by the transmit's `timeout_at` (passed as
     * [Request.timeoutMs], in real time: a virtual clock does not shorten a
     * real exchange, and a scripted transport keeps its own time).
     */
    private suspend fun send(transmit: Transmit): Any =
        try {
            val at = transmit.timeoutAt
            val request = if (at == null) transmit.request else transmit.request.copy(timeoutMs = (at - clock()).coerceAtLeast(1))
            transport.send(request)
        } catch (failure: TransportFailureException) {
            failure.kind
        }

    private fun wake() {
        synchronized(lock) { arrived }.complete(Unit)
    }
}

/**
 * Where exchanges run: the driving caller's dispatcher (so a test
 * dispatcher's virtual time covers a scripted transport's delays), except a
 * `runBlocking` loop, which stops when its block returns while an exchange
 * may still be in flight: those go to `Dispatchers.IO`.
 */
private fun exchangeContext(caller: CoroutineContext): CoroutineContext {
    val interceptor = caller[ContinuationInterceptor]
    return if (interceptor == null || interceptor.javaClass.name == "kotlinx.coroutines.BlockingEventLoop") Dispatchers.IO else interceptor
}
