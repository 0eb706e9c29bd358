// A Java caller of the blocking API: AcdHttpClient.newBlocking(...) reading a
// page, iterating a pager with for-each, and catching a typed exception.
package acdtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.acd.AcdHttpClient;
import dev.acd.BlockingAcdHttpClient;
import dev.acd.NotFoundException;
import dev.acd.Record;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BlockingJavaTest {
    private static final String KEY = "acd_live_demo_ada";

    @Test
    void readsAPageAndIteratesAPagerFromJava() {
        try (FaultServer server = new FaultServer(n -> new Reply(200, Map.of(), n == 0 ? FaultServerKt.pageBody(1, 2) : FaultServerKt.pageBody(3), 0))) {
            BlockingAcdHttpClient api = AcdHttpClient.newBlocking(KEY, server.getBaseUrl());

            List<Record> page = api.getTables().read("orders", 2L);
            assertEquals(2, page.size());
            assertEquals(Long.valueOf(1), page.get(0).getLong("id"));

            List<Long> ids = new ArrayList<>();
            for (Record record : api.getTables().iter("orders", 2L)) {
                ids.add(record.getLong("id"));
            }
            // The pager's first page is request 1 (ids 3 only: a short page, so the last).
            assertEquals(List.of(3L), ids);
            assertEquals(2, server.getHits());
        }
    }

    @Test
    void aMissingTableIsANotFoundExceptionWithItsStatus() {
        String body = "{\"detail\": \"no table named nope\", \"status\": 404}";
        try (FaultServer server = new FaultServer(n -> new Reply(404, Map.of(), body, 0))) {
            BlockingAcdHttpClient api = AcdHttpClient.newBlocking(KEY, server.getBaseUrl());

            NotFoundException error = assertThrows(NotFoundException.class, () -> api.getTables().read("nope"));
            assertEquals(Integer.valueOf(404), error.getStatus());
            assertEquals("no table named nope", error.getDetail());
        }
    }
}
