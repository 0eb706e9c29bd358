// A real acd-sandbox for a user's tests: AcdSandbox.start() runs the shipped
// binary (ACD_SANDBOX_BIN, else `acd-sandbox` on PATH) on a free loopback
// port, reads its address from the banner and stops it on close(); the
// JUnit 5 extension AcdSandboxExtension hands one to each test that asks.
package dev.acd.testing

import java.io.File
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import java.util.concurrent.TimeUnit

/** The first line acd-sandbox prints once it listens. */
private const val BANNER = "acd-sandbox listening on "

/**
 * A running acd-sandbox: its [url], its manual [clock] and its admin routes
 * ([advance], [reset], [requests]). [close] stops it.
 */
class AcdSandbox private constructor(private val process: Process, private val directory: Path, /** The base URL, `http://127.0.0.1:PORT`. */ val url: String) :
    AutoCloseable {
    /** The published demo key the default data accepts. */
    val apiKey: String = DEMO_API_KEY

    /** The sandbox's manual clock, as an AcdHttpClient's `clock` and `delay`. */
    val clock: SandboxClock by lazy { SandboxClock(url) }

    private val http: HttpClient = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()

    /** Moves the sandbox's clock [ms] forward; the new instant (Unix ms). */
    fun advance(ms: Long): Long = clock.advance(ms)

    /** Clears every rate-limit counter and every run; the answer's JSON text. */
    fun reset(): String = admin("POST", "/_sandbox/reset")

    /** The requests recorded, oldest first (`GET /_sandbox/requests`), as JSON text. */
    fun requests(): String = admin("GET", "/_sandbox/requests")

    private fun admin(method: String, route: String): String {
        val request =
            HttpRequest.newBuilder(URI.create(url + route)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .method(method, if (method == "POST") HttpRequest.BodyPublishers.ofString("") else HttpRequest.BodyPublishers.noBody())
                .build()
        val response = http.send(request, HttpResponse.BodyHandlers.ofString())
        check(response.statusCode() in 200..299) { "$method $route answered ${response.statusCode()}: ${response.body()}" }
        return response.body()
    }

    /** Stops the sandbox (SIGTERM, then a kill after 10 s) and removes its scratch files. */
    override fun close() {
        process.destroy()
        if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly().waitFor()
        directory.toFile().deleteRecursively()
    }

    /** No state shown but the address. */
    override fun toString(): String = "AcdSandbox($url)"

    /** Starting one. */
    companion object {
        /** The acd-sandbox to start: `ACD_SANDBOX_BIN`, else `acd-sandbox` on `PATH`. */
        @JvmStatic
        fun binary(): String {
            System.getenv("ACD_SANDBOX_BIN")?.takeIf { it.isNotEmpty() }?.let { return it }
            val found =
                System.getenv("PATH").orEmpty().split(File.pathSeparator).filter { it.isNotEmpty() }
                    .map { File(it, "acd-sandbox") }.firstOrNull { it.canExecute() }
            return found?.path
                ?: throw IllegalStateException("AcdSandbox needs the acd-sandbox binary: put it on PATH or name it in ACD_SANDBOX_BIN")
        }

        /**
         * Starts `acd-sandbox --listen 127.0.0.1:0 --clock CLOCK` with [config]
         * (its configuration's JSON text, `null`: the built-in demo data) and
         * extra [args]; [clock] is `manual` (the admin routes on) or `system`.
         */
        @JvmStatic
        @JvmOverloads
        fun start(config: String? = null, args: List<String> = emptyList(), clock: String = "manual"): AcdSandbox {
            val directory = Files.createTempDirectory("acd-sandbox-")
            val command = mutableListOf(binary(), "--listen", "127.0.0.1:0", "--log", "off", "--clock", clock)
            if (config != null) {
                val file = directory.resolve("sandbox.json")
                Files.writeString(file, config)
                command += listOf("--config", file.toString())
            }
            command += args
            val errors = directory.resolve("stderr.txt").toFile()
            val process = ProcessBuilder(command).redirectError(errors).start()
            val stdout = process.inputStream.bufferedReader()
            val line = stdout.readLine().orEmpty()
            if (!line.startsWith(BANNER)) {
                process.destroyForcibly().waitFor()
                val why = errors.readText().trim().ifEmpty { line }
                directory.toFile().deleteRecursively()
                throw IllegalStateException("acd-sandbox did not start (${command.joinToString(" ")}): $why")
            }
            // The rest of the banner, drained so the pipe never fills.
            Thread({ stdout.readText() }, "acd-sandbox-stdout").apply { isDaemon = true }.start()
            return AcdSandbox(process, directory, line.removePrefix(BANNER).trim())
        }
    }
}
