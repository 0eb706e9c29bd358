// tests/vectors/client-driver.json replayed through the ffi crate's Driver,
// the one surface dev.acd drives: each step's start/respond/fail/poll, each
// batch compared with the hand-written one as JSON values (call ids written
// as their aliases, credential header values as "<redacted>"), and every
// event of every batch decoded strictly by dev.acd (never Unknown).
package acdtest

import dev.acd.Event
import dev.acd.eventOf
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.TestFactory
import java.io.File
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue
import kotlin.test.fail

private val SECRET_HEADERS = setOf("x-api-key", "authorization")

/** [batch] with call ids as their aliases and credential values redacted. */
private fun normalised(batch: JsonElement, aliases: Map<Long, String>): JsonElement =
    when (batch) {
        is JsonObject ->
            JsonObject(
                batch.mapValues { (name, value) ->
                    if (name == "call" && value is JsonPrimitive && !value.isString) JsonPrimitive(aliases[value.long] ?: "${value.long}") else normalised(value, aliases)
                },
            )
        is JsonArray ->
            if (batch.size == 2 && batch.all { it is JsonPrimitive && it.isString } && batch[0].jsonPrimitive.content.lowercase() in SECRET_HEADERS) {
                JsonArray(listOf(batch[0], JsonPrimitive("<redacted>")))
            } else {
                JsonArray(batch.map { normalised(it, aliases) })
            }
        else -> batch
    }

class DriverVectorsTest {
    @TestFactory
    fun `client-driver json`(): List<DynamicTest> {
        val file = File(System.getProperty("acd.vectors") ?: "tests/vectors", "client-driver.json")
        val cases = Json.parseToJsonElement(file.readText()).jsonObject["cases"]!!.jsonArray
        assertTrue(cases.size >= 9, "${cases.size} cases")
        return cases.map { element ->
            val case = element.jsonObject
            DynamicTest.dynamicTest(case["name"]!!.jsonPrimitive.content) { replay(case) }
        }
    }

    private fun replay(case: JsonObject) {
        val driver = acd.Driver(case["config"]!!.toString().encodeToByteArray())
        val ids = HashMap<String, Long>()
        val aliases = HashMap<Long, String>()
        for (element in case["steps"]!!.jsonArray) {
            val step = element.jsonObject
            val at = step["at"]!!.jsonPrimitive.long
            when {
                "start" in step -> {
                    val start = { driver.start(step["start"]!!.toString().encodeToByteArray()).toLong() }
                    val error = step["error"] as? JsonObject
                    if (error == null) {
                        val id = start()
                        val alias = step["as"]!!.jsonPrimitive.content
                        ids[alias] = id
                        aliases[id] = alias
                    } else {
                        try {
                            start()
                            fail("starting ${step["start"]} must be refused")
                        } catch (refused: acd.DriverException.Call) {
                            val got = Json.parseToJsonElement(refused.json).jsonObject
                            error.forEach { (name, value) -> assertEquals(value, got[name], "member $name of $got") }
                        }
                    }
                }
                "respond" in step -> {
                    val respond = step["respond"]!!.jsonObject
                    val body = respond["body"]?.takeIf { it != JsonNull }?.toString()?.encodeToByteArray() ?: ByteArray(0)
                    val call = ids[respond["call"]!!.jsonPrimitive.content]!!
                    driver.respond(call.toULong(), respond["status"]!!.jsonPrimitive.long.toInt().toUShort(), respond["headers"]?.jsonPrimitive?.content.orEmpty(), body, at)
                }
                "fail" in step -> {
                    val failure = step["fail"]!!.jsonObject
                    driver.fail(ids[failure["call"]!!.jsonPrimitive.content]!!.toULong(), failure["kind"]!!.jsonPrimitive.content, at)
                }
                "poll" in step -> {
                    val batch = Json.parseToJsonElement(driver.poll(at))
                    assertEquals(step["poll"], normalised(batch, aliases), "poll at $at")
                    for (event in batch.jsonObject["events"]!!.jsonArray) {
                        assertFalse(eventOf(event.jsonObject) is Event.Unknown, "$event")
                    }
                }
                else -> fail("a step this replay does not know: $step")
            }
        }
    }
}
