package dev.sluice.importer.internal.target;

import dev.sluice.importer.internal.failure.ImportFailure;
import dev.sluice.sink.internal.SinkSettings;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The import's client: created on a thread of its own while the inputs are sampled and the table is looked up over
 * HTTP (loading gRPC, Netty and Arrow takes a few hundred milliseconds that need not wait for them), taken once the
 * setup is done, closed at the end.
 */
public final class Connecting implements AutoCloseable {
    private final Supplier<SinkSettings> settings;
    private final boolean bulk;
    private final int timeoutSeconds;
    private CompletableFuture<Client> early;
    /** Completes once the early client's bulk writers are ready ({@code GreptimeDB.prepareBulk}); null if not started. */
    private CompletableFuture<Void> prepared;
    private Client client;

    /**
     * Readies the connecting; nothing starts yet.
     *
     * @param settings the client's settings, read when the client is created
     * @param bulk whether the bulk path writes (its writers' classes are loaded early)
     * @param timeoutSeconds {@code --timeout}
     */
    public Connecting(Supplier<SinkSettings> settings, boolean bulk, int timeoutSeconds) {
        this.settings = settings;
        this.bulk = bulk;
        this.timeoutSeconds = timeoutSeconds;
    }

    /**
     * Runs a task on a daemon thread of its own.
     *
     * @param name the thread's name
     * @param task what it computes
     * @param <T> the result's type
     * @return completes with the task's result or failure
     */
    public static <T> CompletableFuture<T> inBackground(String name, java.util.function.Supplier<T> task) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(task.get());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return f;
    }

    /**
     * Waits for a background task, within {@code --timeout} plus a minute.
     *
     * @param f the task
     * @param what what it does, for the errors ("creating the client")
     * @param <T> the result's type
     * @return its result
     * @throws RuntimeException the task's own failure, or an {@link ImportFailure} when it fails otherwise or runs late
     */
    public <T> T await(CompletableFuture<T> f, String what) {
        long limit = timeoutSeconds + 60L;
        try {
            return f.get(limit, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new ImportFailure(what + " failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ImportFailure("interrupted while " + what, e);
        } catch (TimeoutException e) {
            throw new ImportFailure(what + " took over " + limit + " s", e);
        }
    }

    /**
     * Starts creating the client on a thread of its own (and, for the bulk path, loading its bulk writers' classes);
     * {@link #connect()} takes it.
     */
    public void start() {
        SinkSettings t = settings.get();
        early = inBackground("sluice-import-connect", () -> new Client(t));
        if (bulk) {
            // The bulk writers' classes load while the setup goes on; the transfer starts once they have loaded.
            prepared = early.thenAcceptAsync(Client::prepareBulk, task -> {
                Thread th = new Thread(task, "sluice-import-prepare");
                th.setDaemon(true);
                th.start();
            });
        }
    }

    /**
     * Waits (up to --timeout) for the bulk writers' classes to load, so that the transfer starts with a client ready
     * to write, as a program that prepared its client would: the workers would otherwise wait for the same loading
     * when they open their writers. A failed preparation is left to the first writer, which reports it.
     */
    public void awaitPrepared() {
        if (prepared == null) {
            return;
        }
        try {
            prepared.get(timeoutSeconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // the writers meet the same problem and report it
        }
    }

    /**
     * Returns the client: the one {@link #start()} created, or a new one; the same client on every call.
     *
     * @return the client
     */
    public Client connect() {
        if (client == null) {
            client = early == null ? new Client(settings.get()) : await(early, "creating the client");
        }
        return client;
    }

    /** Closes the client, or the one still being created once it is. */
    @Override
    public void close() {
        if (client != null) {
            client.close();
        } else if (early != null) {
            early.thenAccept(Client::close);
        }
    }
}
