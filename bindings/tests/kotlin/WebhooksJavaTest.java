// Webhooks from Java with plain names: Webhooks.sign / verify / unwrap as
// static methods, java.time arguments, WebhookVerificationException.getCode().
package acdtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.acd.*;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class WebhooksJavaTest {
    private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    @Test
    void signsVerifiesAndUnwrapsFromJava() {
        String body = "{\"type\":\"run.queued\",\"timestamp\":\"t\",\"data\":{\"run\":{\"id\":\"run_5\",\"status\":\"queued\"}}}";
        Instant at = Instant.ofEpochSecond(1_700_000_000L);
        SignedWebhook signed = Webhooks.sign(body, SECRET, "msg_java", at);
        WebhookEvent plain = Webhooks.verify(signed.getBody(), signed.getHeaders(), List.of(SECRET), null, at);
        assertEquals("msg_java", plain.getId());
        assertNull(plain.getRun());
        WebhookEvent typed = Webhooks.unwrap(body, signed.getHeaders(), SECRET, Duration.ofMinutes(1), at.plusSeconds(60));
        assertEquals("run_5", typed.getRun().getId());
        WebhookVerificationException error = assertThrows(WebhookVerificationException.class,
            () -> Webhooks.verify(body + " ", signed.getHeaders(), SECRET, null, at));
        assertEquals("no_matching_signature", error.getCode());
    }
}
