// The easy path against a real acd-sandbox over java.net.http (started by
// scripts/test-kotlin with 5 table reads per 3 s per user, its URL in the
// `acd.sandbox.url` system property): the pager waits for the window
// instead of meeting a 429, and every row arrives once.
package acdtest

import dev.acd.AcdHttpClient
import dev.acd.JavaHttpTransport
import dev.acd.NotFoundException
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assumptions.assumeTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import kotlin.test.assertEquals

private const val SANDBOX_KEY = "acd_live_demo_ada"

class SandboxEasyPathTest {
    private val url: String = System.getProperty("acd.sandbox.url").orEmpty()

    @Test
    fun `ada's 8 orders in pages of 1 take 9 reads past a 5 per 3 s window, none a 429`() {
        assumeTrue(url.isNotEmpty(), "no acd-sandbox: run through scripts/test-kotlin")
        val transport = RecordingTransport(JavaHttpTransport(), System::currentTimeMillis)
        val api = AcdHttpClient(SANDBOX_KEY, url, transport = transport)

        val rows = runBlocking { api.tables.iter("orders", pageSize = 1).toList() }

        assertEquals((1L..8L).toList(), rows.map { it.long("id") })
        // 8 full pages, then an empty one that ends the pager; the 6th read
        // waited for the next window instead of meeting a 429.
        assertEquals(List(9) { 200 }, transport.statuses)
    }

    @Test
    fun `the index and a missing table, through the Java face`() {
        assumeTrue(url.isNotEmpty(), "no acd-sandbox: run through scripts/test-kotlin")
        val api = AcdHttpClient(SANDBOX_KEY, url).java()

        assertEquals("v1", api.index().join().version)
        val error = assertThrows<java.util.concurrent.CompletionException> { api.tables.read("no_such_table").join() }
        assertEquals(404, (error.cause as NotFoundException).status)
    }
}
