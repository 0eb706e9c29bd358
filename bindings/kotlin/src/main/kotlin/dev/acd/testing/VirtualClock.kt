// A clock in Unix ms that only moves when told or waited on: pass
// `clock = clock::now, delay = clock::delay` to AcdHttpClient outside
// kotlinx-coroutines-test (inside `runTest`, the test scheduler's
// `currentTime` and the default delay do the same).
package dev.acd.testing

import kotlin.time.Duration
/**
 * A clock that only moves when told (or when waited on).
 *
 * @param startMs the starting instant, Unix ms.
 */
class VirtualClock
    @JvmOverloads
    constructor(
        /** The starting instant, Unix ms. */ val startMs: Long = DEFAULT_START_MS,
    ) {
        /** The current instant, Unix ms. */
        @Volatile
        var nowMs: Long = startMs
            private set

        private val waitsMs = mutableListOf<Long>()

        /** Every wait asked for, in ms, in order. */
        val waits: List<Long> get() = synchronized(waitsMs) { waitsMs.toList() }

        /** Virtual ms since the start. */
        val elapsedMs: Long get() = nowMs - startMs

        /** The current instant (usable as `clock = clock::now`). */
        fun now(): Long = nowMs

        /**
         * Moves the clock [ms] forward.
         *
         * @throws IllegalArgumentException when [ms] is negative (a clock cannot go back).
         */
        fun advance(ms: Long) {
            require(ms >= 0) { "a virtual clock cannot go back; got $ms ms" }
            synchronized(waitsMs) { nowMs += ms }
        }

        /** Records the wait (in ms) and advances the clock by [duration] (usable as `delay = clock::delay`). */
        @JvmName("delay")
        suspend fun delay(duration: Duration) {
            val ms = duration.inWholeMilliseconds
            synchronized(waitsMs) { waitsMs += ms }
            advance(maxOf(0L, ms))
        }

        /** The current instant only. */
        override fun toString(): String = "VirtualClock(nowMs=$nowMs)"

        /** Defaults. */
        companion object {
            /** The default starting instant (2023-11-14T22:13:20Z). */
            const val DEFAULT_START_MS: Long = 1_700_000_000_000
        }
    }
