// A Java caller, with the usual `import dev.acd.*;`: the README's Java line
// (a pager as an Iterable with `int` page sizes), a page as a
// CompletableFuture, a typed exception from a future, and the builders: a
// retry policy, a transport and per-call options (a timeout, headers,
// attempts) in java.time.Duration.
package acdtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.acd.*;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class JavaSdkTest {
    private static final String KEY = "acd_live_demo_ada";

    @Test
    void readsAPageAndIteratesAPagerFromJava() {
        try (FaultServer server = new FaultServer(n -> new Reply(200, Map.of(), n == 0 ? FaultServerKt.pageBody(1, 2) : FaultServerKt.pageBody(3), 0));
             AcdHttpClient api = new AcdHttpClient(KEY, server.getBaseUrl())) {
            List<AcdRecord> page = api.java().getTables().read("orders", 2).join();
            assertEquals(2, page.size());
            assertEquals(Long.valueOf(1), page.get(0).getLong("id"));

            List<Long> ids = new ArrayList<>();
            for (AcdRecord record : api.java().getTables().iter("orders", 500)) {
                ids.add(record.getLong("id"));
            }
            // The pager's first page is request 1 (id 3 only: a short page, so the last).
            assertEquals(List.of(3L), ids);
            assertEquals(2, server.getHits());
        }
    }

    @Test
    void aMissingTableIsANotFoundExceptionWithItsStatus() {
        String body = "{\"detail\": \"no table named nope\", \"status\": 404}";
        try (FaultServer server = new FaultServer(n -> new Reply(404, Map.of(), body, 0));
             AcdHttpClient api = new AcdHttpClient(KEY, server.getBaseUrl())) {
            CompletionException error = assertThrows(CompletionException.class, () -> api.java().getTables().read("nope").join());
            NotFoundException notFound = assertInstanceOf(NotFoundException.class, error.getCause());
            assertEquals(Integer.valueOf(404), notFound.getStatus());
            assertEquals("no table named nope", notFound.getDetail());
            assertEquals("not_found", notFound.getCategory());
        }
    }

    private static Reply busy() {
        return new Reply(503, Map.of(), FaultServerKt.errorBody(503, "busy"), 0);
    }

    @Test
    void aRetryPolicyFromItsBuilderRetriesAsItSays() {
        RetryPolicy policy = RetryPolicy.builder().maxAttempts(3).deadline(Duration.ofSeconds(30))
            .backoffBase(Duration.ofMillis(1)).backoffCap(Duration.ofMillis(2)).build();
        assertEquals(Duration.ofSeconds(30), policy.getDeadline());
        assertEquals(Duration.ofMillis(2), policy.getBackoffCap());
        assertEquals(Integer.valueOf(3), policy.getMaxAttempts());
        // 503 twice, then a page: the third attempt, the policy's last, reads it.
        try (FaultServer server = new FaultServer(n -> n < 2 ? busy() : new Reply(200, Map.of(), FaultServerKt.pageBody(7), 0));
             AcdHttpClient api = AcdHttpClient.builder().apiKey(KEY).baseUrl(server.getBaseUrl()).retry(policy).build()) {
            List<AcdRecord> page = api.java().getTables().read("orders").join();
            assertEquals(Long.valueOf(7), page.get(0).getLong("id"));
            assertEquals(3, server.getHits());
        }
        // Two attempts only: the second 503 is the answer.
        try (FaultServer server = new FaultServer(n -> busy());
             AcdHttpClient api = AcdHttpClient.builder().apiKey(KEY).baseUrl(server.getBaseUrl())
                 .retry(RetryPolicy.builder().maxAttempts(2).backoffBase(Duration.ofMillis(1)).backoffCap(Duration.ofMillis(1)).build())
                 .build()) {
            CompletionException error = assertThrows(CompletionException.class, () -> api.java().getTables().read("orders").join());
            assertInstanceOf(ServerException.class, error.getCause());
            assertEquals(2, server.getHits());
        }
    }

    @Test
    void perCallOptionsSetHeadersAttemptsAndATimeout() {
        CallOptions options = CallOptions.builder().header("Prefer", "code=503").maxAttempts(1).timeout(Duration.ofSeconds(20)).build();
        assertEquals(Duration.ofSeconds(20), options.getTimeout());
        try (FaultServer server = new FaultServer(n -> busy());
             AcdHttpClient api = new AcdHttpClient(KEY, server.getBaseUrl())) {
            CompletionException error = assertThrows(CompletionException.class,
                () -> api.java().getTables().read("orders", null, null, options).join());
            assertInstanceOf(ServerException.class, error.getCause());
            assertEquals(1, server.getHits(), "one attempt, as the call's options say (the default policy has more)");
            assertEquals("code=503", server.getSeen().get(0).get("prefer"));
        }
        // The server takes 10 s to answer; the call's timeout is 300 ms.
        try (FaultServer server = new FaultServer(n -> new Reply(200, Map.of(), FaultServerKt.pageBody(1), 10_000));
             AcdHttpClient api = new AcdHttpClient(KEY, server.getBaseUrl())) {
            CompletionException error = assertThrows(CompletionException.class,
                () -> api.java().getTables().read("orders", null, null, CallOptions.of(Duration.ofMillis(300), Map.of(), 1)).join());
            assertInstanceOf(AcdTimeoutException.class, error.getCause());
        }
    }

    @Test
    void aTransportFromItsBuilderWithAJavaTimeout() {
        try (JavaHttpTransport transport = JavaHttpTransport.builder().timeout(Duration.ofMillis(300)).build();
             FaultServer server = new FaultServer(n -> new Reply(200, Map.of(), FaultServerKt.pageBody(1), 10_000));
             AcdHttpClient api = AcdHttpClient.builder().apiKey(KEY).baseUrl(server.getBaseUrl()).transport(transport)
                 .retry(RetryPolicy.builder().maxAttempts(1).build()).build()) {
            assertEquals(Duration.ofMillis(300), transport.getTimeout());
            CompletionException error = assertThrows(CompletionException.class, () -> api.java().getTables().read("orders").join());
            assertInstanceOf(ConnectionException.class, error.getCause());
            assertEquals(1, server.getHits());
        }
        assertEquals(Duration.ofSeconds(30), new JavaHttpTransport().getTimeout());
    }
}
