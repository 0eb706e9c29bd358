// A Java caller, with the usual `import dev.acd.*;`: the README's Java line
// (a pager as an Iterable with `int` page sizes), a page as a
// CompletableFuture, and a typed exception from a future.
package acdtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.acd.*;
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
}
