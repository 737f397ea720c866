package dev.sluice.internal.bulk;

import dev.sluice.bulk.BulkWriteException;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.error.GrpcErrors;
import dev.sluice.internal.write.RegularWriter;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteOk;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A bulk writer's table creation, running while the caller fills the first batch: the writer opens its stream
 * once the table exists, and its first batch waits for the creation (bounded by the creation's timeout, counted
 * from the writer's opening). A failed creation fails that batch and every later one, and the writer's
 * {@code completed()}, with one error naming the table.
 */
final class TableCreation {
    private static final TableCreation NONE = new TableCreation(CompletableFuture.completedFuture(null), null, null,
            0, 0);

    private final CompletableFuture<Void> created;
    /** The CREATE TABLE request; cancelling it ends its call and gives its budget back. Null when none is sent. */
    private final CompletableFuture<?> request;
    private final String table;
    private final long timeoutMs;
    private final long deadline;
    /** Set once the creation is known to have succeeded: later batches do not look again. */
    private volatile boolean done;

    private TableCreation(CompletableFuture<Void> created, CompletableFuture<?> request, String table, long timeoutMs,
                          long deadline) {
        this.created = created;
        this.request = request;
        this.table = table;
        this.timeoutMs = timeoutMs;
        this.deadline = deadline;
        this.done = table == null;
    }

    /**
     * Returns the creation of a writer that creates no table: the table exists.
     *
     * @return the creation
     */
    static TableCreation none() {
        return NONE;
    }

    /**
     * Starts creating the table, without waiting for the answer.
     *
     * @param regular sends the DDL
     * @param schema the table
     * @param ctx table options as hints
     * @param timeoutMs how long the creation may take
     * @return the creation under way
     */
    static TableCreation start(RegularWriter regular, TableSchema schema, Context ctx, long timeoutMs) {
        String table = schema.tableName();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        CompletableFuture<Void> created = new CompletableFuture<>();
        // Compression on this call is gRPC message compression; the bulk codecs do not apply to DDL.
        CompletableFuture<Result<WriteOk, Err>> request = regular.createTable(schema,
                ctx.toBuilder().compression(Compression.None).build());
        request.whenComplete((r, t) -> {
            if (t != null) {
                Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
                created.completeExceptionally(new BulkWriteException("creating table '" + table + "' failed", null,
                        cause));
            } else if (!r.isOk()) {
                created.completeExceptionally(new BulkWriteException("could not create table '" + table
                        + "' before bulk writing: " + r.getErr().message(), r.getErr(), r.getErr().cause()));
            } else {
                created.complete(null);
            }
        });
        return new TableCreation(created, request, table, timeoutMs, deadline);
    }

    /**
     * Runs {@code action} once the table exists (at once when it does); never when the creation fails.
     *
     * @param action what to run, on the thread that completed the creation
     */
    void whenCreated(Runnable action) {
        created.thenRun(action);
    }

    /**
     * Waits for the table to exist, at most until the creation's deadline.
     *
     * @return null once it exists; else why the writer cannot write: the creation's error, a timeout
     *     ({@code DEADLINE_EXCEEDED}, retryable), or the reason given to {@link #stop}
     */
    BulkWriteException await() {
        if (done) {
            return null;
        }
        try {
            created.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            done = true;
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new BulkWriteException("interrupted while creating table '" + table + "'", null, e);
        } catch (TimeoutException e) {
            // No answer is a timeout, not a refusal: the error says so (DEADLINE_EXCEEDED, retryable), like a
            // write that is not answered in time, and names the table.
            String message = "creating table '" + table + "' did not finish in " + timeoutMs + " ms";
            BulkWriteException timedOut = new BulkWriteException(message, GrpcErrors.local(
                    StatusCode.Grpc.DEADLINE_EXCEEDED, message, true, List.of(table)), e);
            created.completeExceptionally(timedOut);
            return timedOut;
        } catch (ExecutionException e) {
            return e.getCause() instanceof BulkWriteException b ? b
                    : new BulkWriteException("creating table '" + table + "' failed", null, e.getCause());
        }
    }

    /**
     * Ends a wait in {@link #await()} at once with {@code why} (the writer is closed), unless the creation ended,
     * and ends the CREATE TABLE request if it is still unanswered: its call is cancelled and the client's budget
     * and in-flight count are given back before this returns (the table may or may not be created).
     *
     * @param why the reason
     */
    void stop(BulkWriteException why) {
        if (table != null) {
            created.completeExceptionally(why);
            request.cancel(false);
        }
    }
}
