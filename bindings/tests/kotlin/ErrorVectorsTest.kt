// tests/vectors/client-errors.json replayed through the core and dev.acd's
// table: each case's error (the vector's input) becomes the driver
// protocol's flat error object in the core (the ffi's client_error_json),
// and the exception dev.acd makes of it must be the class the vector lists
// for Kotlin (core's table, ErrorCategory::classes). No test here names the
// category it asserts: the category comes from the core.
package acdtest

import dev.acd.AcdApiException
import dev.acd.AcdException
import dev.acd.BadRequestException
import dev.acd.ConfigException
import dev.acd.RequestException
import dev.acd.exceptionOf
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.longOrNull
import kotlinx.serialization.json.put
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestFactory
import java.io.File
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue

class ErrorVectorsTest {
    @TestFactory
    fun `client-errors json`(): List<DynamicTest> {
        val file = File(System.getProperty("acd.vectors") ?: "tests/vectors", "client-errors.json")
        val cases = Json.parseToJsonElement(file.readText()).jsonObject["cases"]!!.jsonArray
        assertTrue(cases.size >= 30, "${cases.size} cases")
        return cases.map { case ->
            val name = case.jsonObject["name"]!!.jsonPrimitive.content
            DynamicTest.dynamicTest(name) {
                val input = case.jsonObject["input"]!!.jsonObject
                val expect = case.jsonObject["expect"]!!.jsonObject
                val error = Json.parseToJsonElement(acd.clientErrorJson(input.toString())).jsonObject
                for (member in listOf("category", "message", "status", "sent", "retry_at_ms")) {
                    expect[member]?.let { assertEquals(it, error[member], "$name: $member") }
                }
                val exception = exceptionOf(error)
                (expect["classes"] as? JsonObject)?.let { classes ->
                    assertEquals(classes["kotlin"]!!.jsonPrimitive.content, exception::class.simpleName, name)
                }
                assertEquals(error["message"]!!.jsonPrimitive.content, exception.message)
                assertEquals(error["status"]?.jsonPrimitive?.longOrNull?.toInt(), exception.status)
            }
        }
    }

    @Test
    fun `every category of the core's list maps to the class the core names`() {
        val table = Json.parseToJsonElement(acd.errorCategoriesJson()).jsonArray
        assertTrue(table.size >= 13)
        for (row in table) {
            val category = row.jsonObject["category"]!!.jsonPrimitive.content
            val exception = exceptionOf(buildJsonObject { put("category", category); put("message", "m") })
            assertEquals(row.jsonObject["kotlin"]!!.jsonPrimitive.content, exception::class.simpleName, category)
        }
    }

    @Test
    fun `api errors are AcdApiExceptions and config and request errors are not`() {
        val teapot = Json.parseToJsonElement(
            acd.clientErrorJson("""{"type":"api","status":418,"detail":"teapot","extra":{"hint":1}}"""),
        ).jsonObject
        val exception = exceptionOf(teapot)
        assertTrue(exception is BadRequestException && exception is AcdApiException)
        assertEquals<JsonElement?>(Json.parseToJsonElement("""{"detail":"teapot","status":418,"hint":1}"""), exception.body)
        val config = exceptionOf(buildJsonObject { put("category", "config"); put("message", "m") })
        val request = exceptionOf(buildJsonObject { put("category", "invalid_request"); put("message", "m") })
        assertTrue(config is ConfigException && request is RequestException)
        assertFalse((config as AcdException) is AcdApiException)
        assertFalse((request as AcdException) is AcdApiException)
        assertEquals(JsonPrimitive(true), teapot["sent"])
    }
}
