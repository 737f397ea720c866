package dev.sluice.testkit.wire;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.memory.ArrowBuf;

/** A DoPut listener keeping each answer's {@code app_metadata} JSON in arrival order, and how the stream ended. */
public final class PutAnswers implements FlightClient.PutListener {
    /** Every answer so far, oldest first. */
    public final BlockingQueue<JsonObject> answers = new LinkedBlockingQueue<>();
    /** Completed when the server ends the stream, exceptionally with its error. */
    public final CompletableFuture<Void> done = new CompletableFuture<>();

    @Override
    public void getResult() {
    }

    @Override
    public void onNext(PutResult val) {
        ArrowBuf b = val.getApplicationMetadata();
        byte[] bytes = new byte[(int) b.readableBytes()];
        b.getBytes(0, bytes);
        answers.add(JsonParser.parseString(new String(bytes, StandardCharsets.UTF_8)).getAsJsonObject());
    }

    @Override
    public void onError(Throwable t) {
        done.completeExceptionally(t);
    }

    @Override
    public void onCompleted() {
        done.complete(null);
    }
}
