// tests/vectors/client-errors.json replayed through the core and the one
// table of Errors.kt: each case's error (the vector's input) becomes the
// driver protocol's error object in the core (the ffi's client_error_json),
// whose category and sentence must be the vector's; dev.acd then makes it
// the class written below by hand for that category, sentence unchanged.
package acdtest

import dev.acd.AcdException
import dev.acd.AcdTimeoutException
import dev.acd.AuthenticationException
import dev.acd.BadRequestException
import dev.acd.ConfigException
import dev.acd.ConnectionException
import dev.acd.NotFoundException
import dev.acd.PermissionException
import dev.acd.RateLimitException
import dev.acd.RequestException
import dev.acd.ServerException
import dev.acd.exceptionOf
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.longOrNull
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.TestFactory
import java.io.File
import kotlin.reflect.KClass
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** The class of each category (docs/sdk.md's error table), by hand. */
private fun expectedClass(category: String, status: Long?): KClass<out AcdException> =
    when (category) {
        "config" -> ConfigException::class
        "request" -> if (status == null) RequestException::class else BadRequestException::class
        "authentication" -> AuthenticationException::class
        "permission" -> PermissionException::class
        "not_found" -> NotFoundException::class
        "rate_limit" -> RateLimitException::class
        "server" -> ServerException::class
        "connection", "interrupted" -> ConnectionException::class
        "timeout" -> AcdTimeoutException::class
        else -> AcdException::class // protocol, cancelled
    }

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
                val category = expect["category"]!!.jsonPrimitive.content
                val message = expect["message"]!!.jsonPrimitive.content
                val error = Json.parseToJsonElement(acd.clientErrorJson(input.toString())).jsonObject
                assertEquals(JsonPrimitive(category), error["category"], name)
                assertEquals(JsonPrimitive(message), error["message"], name)
                val status = error["status"]?.jsonPrimitive?.longOrNull
                val exception = exceptionOf(error)
                assertEquals(expectedClass(category, status), exception::class, name)
                assertEquals(message, exception.message)
                assertEquals(category, exception.category)
                assertEquals(status?.toInt(), exception.status)
            }
        }
    }
}
