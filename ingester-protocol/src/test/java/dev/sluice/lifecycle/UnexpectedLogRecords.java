package dev.sluice.lifecycle;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;

/** Records what gRPC and Netty log through java.util.logging with an exception, or at SEVERE. */
final class UnexpectedLogRecords extends Handler {
    final ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();

    @Override
    public void publish(LogRecord r) {
        if (r.getThrown() != null || r.getLevel().intValue() >= Level.SEVERE.intValue()) {
            seen.add(r.getLoggerName() + " " + r.getLevel() + " " + r.getMessage() + " " + r.getThrown());
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }
}
