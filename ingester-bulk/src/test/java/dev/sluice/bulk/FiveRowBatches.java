package dev.sluice.bulk;

import dev.sluice.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Batches of five rows {@code ("h", ts, ts)} for a (tag, Int64 field, time index) table, ts counting from 1. */
public final class FiveRowBatches {
    private FiveRowBatches() {
    }

    /**
     * Writes {@code batches} batches of five rows, one {@code writeNext()} each, and waits for every answer.
     *
     * @param w the writer
     * @param batches how many
     * @param bound the longest wait for each answer
     * @return the batches' futures, all done, in batch order
     */
    public static List<CompletableFuture<Integer>> writeAndAwait(BulkStreamWriter w, int batches, Duration bound) {
        TableBufferRoot batch = w.tableBufferRoot(8);
        List<CompletableFuture<Integer>> acks = new ArrayList<>();
        long ts = 1;
        for (int b = 0; b < batches; b++) {
            for (int i = 0; i < 5; i++, ts++) {
                batch.addRow("h", ts, ts);
            }
            acks.add(w.writeNext());
        }
        for (CompletableFuture<Integer> f : acks) {
            Await.until("every batch is answered", bound, f::isDone);
        }
        return acks;
    }
}
