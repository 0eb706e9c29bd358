// AcdHttpClientBuilder: the client's settings one by one, in Java's types
// (java.time.Duration, java.util.function), for callers that cannot use the
// Kotlin constructor's named and default arguments.
package dev.acd

import java.net.http.HttpClient
import java.util.function.Consumer
import java.util.function.LongSupplier

/**
 * Builds an [AcdHttpClient] (`AcdHttpClient.builder()`); each setting left
 * unset keeps the constructor's default (the environment, the core's).
 */
class AcdHttpClientBuilder {
    private var apiKey: String? = null
    private var baseUrl: String? = null
    private var retry: RetryPolicy? = null
    private var http: HttpClient? = null
    private var onEvent: ((Event) -> Unit)? = null
    private var seed: Long? = null
    private var transport: Transport? = null
    private var clock: () -> Long = System::currentTimeMillis
    private var maxBodyBytes: Long? = null

    /** The API key (`ACD_API_KEY` when unset). */
    fun apiKey(value: String?): AcdHttpClientBuilder = apply { apiKey = value }

    /** The API's base URL (`ACD_BASE_URL` when unset, else the core's default). */
    fun baseUrl(value: String?): AcdHttpClientBuilder = apply { baseUrl = value }

    /** The retry policy (`RetryPolicy.builder()...build()`). */
    fun retry(value: RetryPolicy?): AcdHttpClientBuilder = apply { retry = value }

    /** A `java.net.http.HttpClient` of yours to send with (it stays yours). */
    fun http(value: HttpClient?): AcdHttpClientBuilder = apply { http = value }

    /** Called with every event as it happens (waits, retries, pages, ...). */
    fun onEvent(value: Consumer<Event>?): AcdHttpClientBuilder = apply { onEvent = value?.let { consumer -> { event: Event -> consumer.accept(event) } } }

    /** A fixed seed for jitter and idempotency keys (tests). */
    fun seed(value: Long?): AcdHttpClientBuilder = apply { seed = value }

    /** What requests go through instead of `java.net.http` (e.g. `JavaHttpTransport.builder()...build()`). */
    fun transport(value: Transport?): AcdHttpClientBuilder = apply { transport = value }

    /** The time in Unix ms (the system clock by default). */
    fun clock(value: LongSupplier): AcdHttpClientBuilder = apply { clock = value::getAsLong }

    /** The largest response body accepted (the core's default when unset). */
    fun maxBodyBytes(value: Long?): AcdHttpClientBuilder = apply { maxBodyBytes = value }

    /**
     * The client.
     *
     * @throws ConfigException when the core refuses the configuration.
     */
    fun build(): AcdHttpClient =
        AcdHttpClient(
            apiKey = apiKey, baseUrl = baseUrl, retry = retry, http = http, onEvent = onEvent, seed = seed, transport = transport,
            clock = clock, maxBodyBytes = maxBodyBytes,
        )

    /** No setting is shown (never a credential). */
    override fun toString(): String = "AcdHttpClientBuilder()"
}
