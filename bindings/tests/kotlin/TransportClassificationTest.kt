// How java.net.http's failures are handed to the core: a connection never
// made was never sent (CONNECT, retried whatever the method); a timeout or a
// broken connection after sending may have been processed.
package acdtest

import dev.acd.FailureKind
import dev.acd.transportFailureOf
import org.junit.jupiter.api.Test
import java.io.IOException
import java.net.ConnectException
import java.net.SocketTimeoutException
import java.net.http.HttpConnectTimeoutException
import java.net.http.HttpTimeoutException
import java.nio.channels.UnresolvedAddressException
import kotlin.test.assertEquals
import kotlin.test.assertNull

class TransportClassificationTest {
    @Test
    fun `connection failures are CONNECT, timeouts TIMEOUT, other I-O INTERRUPTED`() {
        assertEquals(FailureKind.CONNECT, transportFailureOf(HttpConnectTimeoutException("connect timed out"))?.kind)
        assertEquals(FailureKind.CONNECT, transportFailureOf(ConnectException("Connection refused"))?.kind)
        assertEquals(FailureKind.CONNECT, transportFailureOf(IOException("wrapped", ConnectException("Connection refused")))?.kind)
        assertEquals(FailureKind.CONNECT, transportFailureOf(IOException("wrapped", UnresolvedAddressException()))?.kind)
        assertEquals(FailureKind.TIMEOUT, transportFailureOf(HttpTimeoutException("request timed out"))?.kind)
        assertEquals(FailureKind.TIMEOUT, transportFailureOf(SocketTimeoutException("read timed out"))?.kind)
        assertEquals(FailureKind.INTERRUPTED, transportFailureOf(IOException("Connection reset"))?.kind)
        assertNull(transportFailureOf(IllegalStateException("not a transport failure")))
    }
}
