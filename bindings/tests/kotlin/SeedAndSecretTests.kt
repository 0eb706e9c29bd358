// Randomness and secrets across the boundary: two default clients (no seed,
// so the ffi seeds them from OS entropy) draw different retry jitter, while
// one explicit seed repeats itself exactly; no printed or default-serialised
// form of a request or its headers shows the API key, and only the named wire
// form carries it.
package acdtest

import acd.Client
import acd.ClientConfig
import acd.CredentialKind
import acd.HttpResponse
import kotlin.test.assertEquals
import kotlin.test.assertNotEquals
import kotlin.test.assertTrue

private const val SECRET_KEY = "acd_live_demo_ada"
private const val BUSY = """{"detail":"busy","status":503}"""

private fun clientOf(configJson: String): Client =
    Client(ClientConfig.fromJson(configJson).withCredential("main", CredentialKind.API_KEY, SECRET_KEY, "ada"))

/** The instants of every wait of one table read answered 503 until the client gives up. */
private fun backoffWaits(configJson: String): List<Long> {
    val client = clientOf(configJson)
    client.startTablePager("orders", """{"page_size": 1}""")
    val busy = HttpResponse(503.toUShort(), emptyList(), BUSY.toByteArray())
    val (seen, _) = driveVirtual(client, NOW) { _, _ -> busy }
    assertEquals("failed", seen.last().type, "last event: ${seen.last()}")
    return seen.filter { it.type == "waiting" }.map { it.event["until"].long() }
}

fun registerSeedAndSecretTests(runner: Runner) {
    runner.test("two default clients draw different retry jitter") {
        val first = backoffWaits("{}")
        val second = backoffWaits("{}")
        assertTrue(first.isNotEmpty(), "a 503 storm must make the client wait before retrying")
        assertEquals(first.size, second.size)
        assertNotEquals(first, second, "two unseeded clients waited at exactly the same instants")
    }

    runner.test("one explicit seed draws the same jitter every time") {
        val first = backoffWaits("""{"seed": 42}""")
        assertTrue(first.isNotEmpty())
        assertEquals(first, backoffWaits("""{"seed": 42}"""))
    }

    runner.test("no printed or default-serialised request shows the key; the wire form carries it") {
        val client = clientOf("""{"seed": 1}""")
        client.startTablePager("orders", """{"page_size": 1}""")
        val request = client.pollTransmit(NOW)?.request ?: error("nothing to send")
        val shown = listOf(
            request.toString(),
            request.headers().toString(),
            request.headers().joinToString { "${it.name}: ${it.value}" },
            request.toJson(),
            client.toString(),
        )
        for (text in shown) check(!text.contains("demo_ada")) { "a secret is shown: $text" }
        assertTrue(request.toWireJson().contains(SECRET_KEY), "the wire form must keep the exact key")
        assertTrue(request.wireHeaders().any { it.value == SECRET_KEY }, "the wire headers must keep the exact key")
    }
}
