// dev.acd.testing.SandboxClock against a real `acd-sandbox --clock manual`
// (the binary in ACD_SANDBOX_BIN, set by scripts/test-kotlin): the pager
// reads 23 rows past the 5-per-60 s table-read window with no 429, and its
// waits move the sandbox's clock instead of passing real time.
package acdtest

import dev.acd.AcdException
import dev.acd.AcdHttpClient
import dev.acd.JavaHttpTransport
import dev.acd.testing.SandboxClock
import kotlin.time.Duration.Companion.milliseconds
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assumptions.assumeTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.io.File
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class SandboxClockTest {
    private val bin: String = System.getenv("ACD_SANDBOX_BIN").orEmpty()

    private fun <T> withSandbox(
        args: List<String>,
        body: (String) -> T,
    ): T {
        val config = File.createTempFile("acd-sandbox-clock", ".json")
        val rows = (1..23).joinToString(",") { "{\"id\": $it}" }
        config.writeText("{\"tables\": [{\"id\": \"orders\", \"owner\": \"ada\", \"records\": [$rows]}]}")
        val process =
            ProcessBuilder(listOf(bin, "--listen", "127.0.0.1:0", "--log", "off", "--config", config.path) + args)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start()
        try {
            val first = process.inputStream.bufferedReader().readLine().orEmpty()
            return body(first.substringAfterLast(' '))
        } finally {
            process.destroy()
            process.waitFor()
            config.delete()
        }
    }

    @Test
    fun `a client pages past the window in the sandbox's time`() {
        assumeTrue(bin.isNotEmpty(), "no acd-sandbox binary: run through scripts/test-kotlin")
        withSandbox(listOf("--clock", "manual")) { url ->
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

    @Test
    fun `the clock moves only when told, and a system clock is named`() {
        assumeTrue(bin.isNotEmpty(), "no acd-sandbox binary: run through scripts/test-kotlin")
        withSandbox(listOf("--clock", "manual")) { url ->
            val clock = SandboxClock(url)
            val now = clock.now()
            assertEquals(now, clock.now())
            assertEquals(now + 1_500, clock.advance(1_500))
            assertEquals(1_700_000_000_000, clock.set(1_700_000_000_000))
            runBlocking { clock.delay(250.milliseconds) }
            assertEquals(1_700_000_000_250, clock.now())
            assertEquals(listOf(250L), clock.waits)
        }
        withSandbox(listOf("--admin")) { url ->
            val error = assertThrows<AcdException> { SandboxClock(url).advance(1) }
            assertEquals(409, error.status)
            assertTrue(error.message.orEmpty().contains("--clock manual"), error.message)
        }
    }
}
