// Bad input across the boundary from Kotlin: invalid UTF-8 bytes, huge
// values, negative and absurd times, one gate used from many threads at once.
// Each gives a typed error or a correct response, never a crash of the JVM.
package acdtest

import acd.AcdException
import acd.Decision
import acd.Gate
import acd.GateConfig
import acd.GateRequest
import acd.Header
import acd.ResourceAnswer
import java.util.concurrent.Callable
import java.util.concurrent.Executors
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith

fun statusOf(gate: Gate, req: GateRequest, now: Long = NOW): Int = finish(gate.decide(req, now)).status.toInt()

fun registerBoundaryTests(runner: Runner) {
    runner.test("invalid UTF-8 in target and headers is 400 or 401") {
        val gate = Gate.demo(GateConfig())
        val target = "/api/v1/tables/t?order_by=".toByteArray() + byteArrayOf(0xff.toByte(), 0xfe.toByte())
        assertEquals(400, statusOf(gate, GateRequest("GET", target, listOf(Header("X-API-Key", ADA.toByteArray())), DEFAULT_IP)))
        val key = "acd_live_".toByteArray() + byteArrayOf(0xff.toByte())
        assertEquals(401, statusOf(gate, GateRequest("GET", "/api/v1/tables/t".toByteArray(), listOf(Header("X-API-Key", key)), DEFAULT_IP)))
    }
    runner.test("strings that are not valid UTF-16 fail before crossing") {
        assertFailsWith<java.nio.charset.CharacterCodingException> { request("/api/v1", ip = "\uD800") }
        assertEquals(200, statusOf(Gate.demo(GateConfig()), request("/api/v1")))
    }
    runner.test("huge values are answered") {
        val gate = Gate.demo(GateConfig())
        assertEquals(200, statusOf(gate, request("/api/v1/tables/" + "t".repeat(16 shl 20), "X-API-Key" to ADA)))
        assertEquals(400, statusOf(gate, request("/api/v1/tables/t?order_by=" + "x".repeat(8 shl 20), "X-API-Key" to ADA)))
        assertEquals(401, statusOf(gate, request("/api/v1/tables/t", "X-API-Key" to "k".repeat(16 shl 20))))
        val many = (0 until 100_000).map { Header("X-$it", "v".toByteArray()) }
        assertEquals(200, statusOf(gate, GateRequest("GET", "/api/v1".toByteArray(), many, DEFAULT_IP)))
    }
    runner.test("negative times are a typed error") {
        val gate = Gate.demo(GateConfig())
        val error = assertFailsWith<AcdException.InvalidArgument> { gate.decide(request("/api/v1"), -1L) }
        assertEquals("now_ms must be Unix milliseconds from 0 to 9223372036854775807; got -1", error.message)
    }
    runner.test("absurd and backward times give responses") {
        val gate = Gate.demo(GateConfig())
        for (now in listOf(Long.MAX_VALUE, 0L, NOW, NOW - 3_600_000L)) assertEquals(200, statusOf(gate, request("/api/v1"), now))
    }
    runner.test("many threads share one gate and its limits") {
        val gate = Gate.demo(GateConfig())
        val pool = Executors.newFixedThreadPool(8)
        try {
            val tasks = (0 until 8).map {
                Callable { (0 until 50).map { statusOf(gate, request("/api/v1", ip = "198.51.100.1")) } }
            }
            val counts = pool.invokeAll(tasks).flatMap { it.get() }.groupingBy { it }.eachCount()
            assertEquals(mapOf(200 to 100, 429 to 300), counts)
        } finally {
            pool.shutdown()
        }
    }
    runner.test("admitted requests are answered from other threads") {
        val gate = Gate.demo(GateConfig())
        val admitted = (0 until 40).map {
            val req = request("/api/v1/connections/c$it/records?entity_id=e", "X-API-Key" to "acd_live_demo_bob")
            (gate.decide(req, NOW) as Decision.Resolve).admitted
        }
        val pool = Executors.newFixedThreadPool(8)
        try {
            val bodies = pool.invokeAll(admitted.map { a -> Callable { String(a.respond(ResourceAnswer.Found("[1]".toByteArray())).body) } })
                .map { it.get() }
            assertEquals(List(40) { "[1]" }, bodies)
        } finally {
            pool.shutdown()
        }
    }
}
