// Webhooks through dev.acd.Webhooks: every verify case of
// tests/vectors/webhooks.json (signatures computed with the Standard
// Webhooks reference library) through verify and unwrap, the reference
// signatures of its sign cases reproduced by Webhooks.sign, and the
// facade's contract (headers as strings or lists, java.time, the code).
// The delivery-schedule cases are the sender's: the planner is not exposed
// to Kotlin (a receiver never plans deliveries), so Rust replays them.
package acdtest

import dev.acd.AcdException
import dev.acd.WebhookVerificationException
import dev.acd.Webhooks
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestFactory
import java.io.File
import java.time.Duration
import java.time.Instant
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertNull
import kotlin.test.assertTrue

private const val SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
private const val BODY = """{"type":"run.succeeded","timestamp":"2023-11-14T22:13:20.000Z","data":{"run":{"id":"run_1","status":"succeeded"}}}"""

class WebhooksTest {
    private val vector: JsonObject =
        Json.parseToJsonElement(File(System.getProperty("acd.vectors") ?: "tests/vectors", "webhooks.json").readText()).jsonObject

    @TestFactory
    fun `webhooks json verify cases`(): List<DynamicTest> {
        val cases = vector["verify"]!!.jsonArray
        assertTrue(cases.size >= 25, "${cases.size} cases")
        return cases.map { element ->
            val case = element.jsonObject
            val name = case["name"]!!.jsonPrimitive.content
            DynamicTest.dynamicTest(name) {
                val headers = case["headers"]!!.jsonObject.mapValues { it.value.jsonPrimitive.content }
                val secrets = case["secrets"]!!.jsonArray.map { it.jsonPrimitive.content }
                val body = case["body"]!!.jsonPrimitive.content
                val now = Instant.ofEpochMilli(case["now_ms"]!!.jsonPrimitive.long)
                val tolerance = case["tolerance_ms"]?.jsonPrimitive?.long?.let(Duration::ofMillis)
                val expect = case["expect"]!!.jsonObject
                val error = expect["error"]?.jsonPrimitive?.content
                if (error != null) {
                    for (typed in listOf(false, true)) {
                        val thrown = assertFailsWith<WebhookVerificationException>(name) {
                            if (typed) Webhooks.unwrap(body, headers, secrets, tolerance, now) else Webhooks.verify(body, headers, secrets, tolerance, now)
                        }
                        assertEquals(error, thrown.code, name)
                        assertTrue(thrown is AcdException && thrown.message!!.isNotEmpty())
                    }
                } else {
                    val want = expect["ok"]!!.jsonObject
                    val plain = Webhooks.verify(body.encodeToByteArray(), headers, secrets, tolerance, now)
                    val typed = Webhooks.unwrap(body, headers, secrets, tolerance, now)
                    for (event in listOf(plain, typed)) {
                        assertEquals(want["id"]!!.jsonPrimitive.content, event.id)
                        assertEquals(want["webhook_timestamp"]!!.jsonPrimitive.long, event.webhookTimestamp)
                        assertEquals(want["type"]!!.jsonPrimitive.content, event.type)
                    }
                    assertNull(plain.run)
                    assertEquals(want["run_id"]!!.jsonPrimitive.content, typed.run!!.id)
                    assertEquals(want["run_status"]!!.jsonPrimitive.content, typed.run!!.status)
                }
            }
        }
    }

    @TestFactory
    fun `webhooks json sign cases reproduce the reference signatures`(): List<DynamicTest> =
        vector["sign"]!!.jsonArray.map { element ->
            val case = element.jsonObject
            val id = case["id"]!!.jsonPrimitive.content
            DynamicTest.dynamicTest(id) {
                val signed = Webhooks.sign(
                    case["body"]!!.jsonPrimitive.content, case["secret"]!!.jsonPrimitive.content, id,
                    Instant.ofEpochSecond(case["timestamp"]!!.jsonPrimitive.long),
                )
                assertEquals(
                    mapOf(
                        "webhook-id" to id,
                        "webhook-timestamp" to case["timestamp"]!!.jsonPrimitive.content,
                        "webhook-signature" to case["signature"]!!.jsonPrimitive.content,
                    ),
                    signed.headers,
                )
                assertEquals(case["body"]!!.jsonPrimitive.content, signed.bodyText())
            }
        }

    @Test
    fun `signed for a handler test then unwrapped from list-valued headers with a rotation`() {
        val old = "whsec_" + "QUJD".repeat(8)
        val at = Instant.ofEpochSecond(1_700_000_000)
        val signed = Webhooks.sign(BODY.encodeToByteArray(), listOf(SECRET, old), "msg_7", at)
        assertEquals(2, signed.headers.getValue("webhook-signature").split(" ").size)
        val listed: Map<String, List<String>> = signed.headers.mapValues { listOf(it.value) } + ("X-Other" to listOf("a", "b"))
        val event = Webhooks.unwrap(signed.body, listed, old, now = at.plusSeconds(299))
        assertEquals("msg_7", event.id)
        assertEquals("run_1", event.run!!.id)
        val late = assertFailsWith<WebhookVerificationException> {
            Webhooks.verify(signed.body, signed.headers, SECRET, Duration.ZERO, at.plusSeconds(1))
        }
        assertEquals("timestamp_out_of_tolerance", late.code)
    }

    @Test
    fun `the tolerance defaults to the core's and now to the wall clock`() {
        val signed = Webhooks.sign(BODY, SECRET, "msg_1", Instant.ofEpochSecond(1_700_000_000))
        Webhooks.verify(signed.body, signed.headers, SECRET, now = Instant.ofEpochSecond(1_700_000_300))
        val late = assertFailsWith<WebhookVerificationException> {
            Webhooks.verify(signed.body, signed.headers, SECRET, now = Instant.ofEpochSecond(1_700_000_301))
        }
        assertEquals("timestamp_out_of_tolerance", late.code)
        assertEquals("timestamp_out_of_tolerance", assertFailsWith<WebhookVerificationException> { Webhooks.verify(signed.body, signed.headers, SECRET) }.code)
        val fresh = Webhooks.sign(BODY, SECRET)
        assertTrue(fresh.headers.getValue("webhook-id").matches(Regex("msg_[0-9a-f]{24}")))
        assertEquals("run.succeeded", Webhooks.unwrap(fresh.body, fresh.headers, SECRET).type)
    }

    @Test
    fun `unwrap refuses a run event without a run and a bad secret has the core's code`() {
        val bare = Webhooks.sign("""{"type":"run.failed","timestamp":"t","data":{}}""", SECRET, null, Instant.ofEpochSecond(1))
        assertEquals("run.failed", Webhooks.verify(bare.body, bare.headers, SECRET, now = Instant.ofEpochSecond(1)).type)
        assertEquals(
            "bad_payload",
            assertFailsWith<WebhookVerificationException> { Webhooks.unwrap(bare.body, bare.headers, SECRET, now = Instant.ofEpochSecond(1)) }.code,
        )
        assertEquals("bad_secret", assertFailsWith<WebhookVerificationException> { Webhooks.sign(BODY, "not-a-secret") }.code)
    }
}
