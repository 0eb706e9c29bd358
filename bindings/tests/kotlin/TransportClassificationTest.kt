// How java.net.http's failures are handed to the core, by their facts: never
// sent (REFUSED, DNS, CONNECT_TIMEOUT, CONNECT: retried whatever the method);
// a timeout, a reset, a broken connection or an answer that is not HTTP after
// sending may have been processed.
package acdtest

import dev.acd.FailureKind
import dev.acd.transportFailureOf
import org.junit.jupiter.api.Test
import java.io.IOException
import java.net.ConnectException
import java.net.ProtocolException
import java.net.UnknownHostException
import java.net.SocketTimeoutException
import java.net.http.HttpConnectTimeoutException
import java.net.http.HttpTimeoutException
import java.nio.channels.UnresolvedAddressException
import kotlin.test.assertEquals
import kotlin.test.assertNull

class TransportClassificationTest {
    @Test
    fun `failures are named by their facts`() {
        assertEquals(FailureKind.CONNECT_TIMEOUT, transportFailureOf(HttpConnectTimeoutException("connect timed out"))?.kind)
        assertEquals(FailureKind.REFUSED, transportFailureOf(ConnectException("Connection refused"))?.kind)
        assertEquals(FailureKind.REFUSED, transportFailureOf(IOException("wrapped", ConnectException("Connection refused")))?.kind)
        assertEquals(FailureKind.CONNECT, transportFailureOf(ConnectException("No route to host"))?.kind)
        // java.net.http refuses with a ConnectException that has no message.
        assertEquals(FailureKind.REFUSED, transportFailureOf(IOException(null, ConnectException()))?.kind)
        assertEquals(FailureKind.DNS, transportFailureOf(IOException("wrapped", UnresolvedAddressException()))?.kind)
        assertEquals(FailureKind.DNS, transportFailureOf(ConnectException(null).apply { initCause(UnknownHostException("x.invalid")) })?.kind)
        assertEquals(FailureKind.TIMEOUT, transportFailureOf(HttpTimeoutException("request timed out"))?.kind)
        assertEquals(FailureKind.TIMEOUT, transportFailureOf(SocketTimeoutException("read timed out"))?.kind)
        assertEquals(FailureKind.RESET, transportFailureOf(IOException("Connection reset"))?.kind)
        assertEquals(FailureKind.PROTOCOL, transportFailureOf(ProtocolException("Invalid status line"))?.kind)
        assertEquals(FailureKind.INTERRUPTED, transportFailureOf(IOException("HTTP/1.1 header parser received no bytes"))?.kind)
        assertNull(transportFailureOf(IllegalStateException("not a transport failure")))
    }
}
