package dev.sluice.bulk.threads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.ServerAndClientAccess;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.RowAppender;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Producer work handed from one thread to the next (tasks of a pool, one at a time): the first task failed after it
 * began a typed row, leaving it open, and ended. The next task, on another thread, gets the documented
 * {@link IllegalStateException} naming the table and the open row from {@code addRow} (and {@code writeNext} sends
 * the rows ended before it), never a wait without end; after {@code cancelRow()} it writes on.
 */
class ARowLeftOpenByAnEndedProducerThreadIsReportedToTheNextProducerThreadTest {
    private static final Duration BOUND = Duration.ofSeconds(10);

    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("v", DataType.Int64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    @ParameterizedTest
    @ValueSource(strings = {"addRow", "writeNext"})
    void theNextThreadIsToldAndWritesOnAfterCancelRow(String call) throws Exception {
        String table = "open_row_handed_over_" + call.toLowerCase();
        try (var sc = ServerAndClientAccess.start()) {
            try (BulkStreamWriter w = sc.db().bulkStreamWriter(schema(table), BulkWrite.Config.newBuilder().build(),
                    Context.newBuilder().build())) {
                TableBufferRoot batch = w.tableBufferRoot(16);
                RowAppender a = batch.appender();
                Thread first = new Thread(() -> {
                    a.setString(0, "h").setLong(1, 1L).setLong(2, 1L).endRow();
                    a.setString(0, "h").setLong(1, 2L); // the task fails here, leaving the row open
                }, "first-task");
                first.start();
                first.join(BOUND.toMillis());

                Function<Void, Object> next = "addRow".equals(call)
                        ? v -> batch.addRow("h", 3L, 3L) : v -> w.writeNext();
                CompletableFuture<Object> outcome = CompletableFuture.supplyAsync(() -> next.apply(null),
                        r -> daemon(r, "next-task"));
                Object result;
                try {
                    result = outcome.get(BOUND.toSeconds(), TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    a.cancelRow(); // lets the hung call go on
                    fail("the next task's " + call + " did not return within " + BOUND);
                    return;
                } catch (ExecutionException e) {
                    result = e.getCause();
                }
                if ("addRow".equals(call)) {
                    assertTrue(result instanceof IllegalStateException && ((Throwable) result).getMessage()
                            .contains(table), "addRow is refused naming the table and the open row: " + result);
                    a.cancelRow();
                    batch.addRow("h", 3L, 3L);
                    assertEquals(2, w.writeNext().get(BOUND.toSeconds(), TimeUnit.SECONDS));
                } else {
                    assertTrue(result instanceof CompletableFuture<?>, "writeNext sends: " + result);
                    assertEquals(1, ((CompletableFuture<?>) result).get(BOUND.toSeconds(), TimeUnit.SECONDS),
                            "the ended row is sent, the open one dropped");
                }
                w.completed();
                assertEquals("addRow".equals(call) ? 2 : 1, sc.server().rowCount(table),
                        "the server stores the ended rows and never the row left open");
            }
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
