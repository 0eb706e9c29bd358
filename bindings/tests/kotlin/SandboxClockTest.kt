// dev.acd.testing.SandboxClock against a real `acd-sandbox --clock manual`
// (the binary in ACD_SANDBOX_BIN, set by scripts/test-kotlin): the pager
// reads 23 rows past the 5-per-60 s table-read window with no 429, and its
// waits move the sandbox's clock instead of passing real time.
package acdtest

import dev.acd.AcdException
import dev.acd.AcdHttpClient
import dev.acd.JavaHttpTransport
import dev.acd.testing.AcdSandbox
import dev.acd.testing.AcdSandboxExtension
import dev.acd.testing.AcdSandboxOptions
import dev.acd.testing.SandboxClock
import kotlin.time.Duration.Companion.milliseconds
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.api.extension.ExtendWith
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** The 23 rows of the sandbox's `orders`. */
private const val ORDERS = "{\"tables\": [{\"id\": \"orders\", \"owner\": \"ada\", \"records\": [" +
    "{\"id\": 1},{\"id\": 2},{\"id\": 3},{\"id\": 4},{\"id\": 5},{\"id\": 6},{\"id\": 7},{\"id\": 8},{\"id\": 9},{\"id\": 10}," +
    "{\"id\": 11},{\"id\": 12},{\"id\": 13},{\"id\": 14},{\"id\": 15},{\"id\": 16},{\"id\": 17},{\"id\": 18},{\"id\": 19},{\"id\": 20}," +
    "{\"id\": 21},{\"id\": 22},{\"id\": 23}]}]}"

// The sandboxes come from the SDK's JUnit 5 extension (dev.acd.testing.AcdSandboxExtension).
@ExtendWith(AcdSandboxExtension::class)
@AcdSandboxOptions(config = ORDERS)
class SandboxClockTest {
    @Test
    fun `a client pages past the window in the sandbox's time`(sandbox: AcdSandbox) {
        sandbox.url.let { url ->
            val clock = SandboxClock(url)
            val start = clock.now()
            val transport = RecordingTransport(JavaHttpTransport(), System::currentTimeMillis)
            val api =
                AcdHttpClient(
                    "acd_live_demo_ada", url, transport = transport,
                    clock = clock::now, delay = clock::delay,
                )
            val startedNs = System.nanoTime()
            val rows = runBlocking { api.tables.iter("orders", pageSize = 2).toList() }
            val realMs = (System.nanoTime() - startedNs) / 1_000_000

            assertEquals((1L..23L).toList(), rows.map { it.long("id") })
            // Never a 429: the pager waited for each new window.
            assertTrue(transport.statuses.all { it == 200 }, "${transport.statuses}")
            assertTrue(clock.waits.size >= 2, "${clock.waits}")
            assertTrue(clock.now() - start >= 60_000, "${clock.now() - start}")
            // Waiting for real would take two minutes.
            assertTrue(realMs < 30_000, "$realMs ms")
        }
    }

    /** Issue 47's "done when": 7 reads at once at the default 5 per 60 s, 1 s before a window ends, end in the next window. */
    @Test
    fun `seven concurrent reads take one extra window, not two`(sandbox: AcdSandbox) {
        val clock = SandboxClock(sandbox.url)
        val start = clock.set(1_700_000_039_000)
        val transport = RecordingTransport(JavaHttpTransport(), System::currentTimeMillis)
        AcdHttpClient("acd_live_demo_ada", sandbox.url, transport = transport, clock = clock::now, delay = clock::delay).use { api ->
            val pages = runBlocking { (1..7).map { async { api.tables.read("orders", pageSize = 2) } }.awaitAll() }
            assertEquals(List(7) { listOf(1L, 2L) }, pages.map { page -> page.map { it.long("id") } })
        }
        assertEquals(List(7) { 200 }, transport.statuses)
        val elapsed = clock.now() - start
        // 5 go at once; 2 once the window has ended (1 s) plus at most 1 s of jitter.
        assertTrue(elapsed in 1_000..2_500, "$elapsed ms of sandbox time")
    }

    /** The same through the Java futures: all 7 started before any is joined. */
    @Test
    fun `seven concurrent reads from Java futures take one extra window`(sandbox: AcdSandbox) {
        val clock = SandboxClock(sandbox.url)
        val start = clock.set(1_700_000_039_000)
        AcdHttpClient("acd_live_demo_ada", sandbox.url, clock = clock::now, delay = clock::delay).use { api ->
            val futures = (1..7).map { api.java().tables.read("orders", 2) }
            assertEquals(List(7) { 2 }, futures.map { it.get(60, java.util.concurrent.TimeUnit.SECONDS).size })
        }
        val elapsed = clock.now() - start
        assertTrue(elapsed in 1_000..2_500, "$elapsed ms of sandbox time")
    }

    @Test
    fun `the clock moves only when told, and a system clock is named`(sandbox: AcdSandbox) {
        sandbox.url.let { url ->
            val clock = SandboxClock(url)
            val now = clock.now()
            assertEquals(now, clock.now())
            assertEquals(now + 1_500, clock.advance(1_500))
            assertEquals(1_700_000_000_000, clock.set(1_700_000_000_000))
            runBlocking { clock.delay(250.milliseconds) }
            assertEquals(1_700_000_000_250, clock.now())
            assertEquals(listOf(250L), clock.waits)
        }
        AcdSandbox.start(args = listOf("--admin"), clock = "system").use { system ->
            val error = assertThrows<AcdException> { SandboxClock(system.url).advance(1) }
            assertEquals(409, error.status)
            assertTrue(error.message.orEmpty().contains("--clock manual"), error.message)
        }
    }
}
