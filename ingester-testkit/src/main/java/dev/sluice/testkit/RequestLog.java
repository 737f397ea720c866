package dev.sluice.testkit;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/** The last requests received (bounded), plus totals that are never dropped. */
final class RequestLog {
    private final int capacity;
    private final Deque<RecordedRequest> recent = new ArrayDeque<>();
    private final Deque<RecordedRequest> untaken = new ArrayDeque<>();
    private long total;

    RequestLog(int capacity) {
        this.capacity = capacity;
    }

    synchronized void add(RecordedRequest r) {
        total++;
        recent.addLast(r);
        untaken.addLast(r);
        if (recent.size() > capacity) {
            recent.removeFirst();
        }
        if (untaken.size() > capacity) {
            untaken.removeFirst();
        }
        notifyAll();
    }

    synchronized List<RecordedRequest> snapshot() {
        return List.copyOf(new ArrayList<>(recent));
    }

    synchronized RecordedRequest take(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (untaken.isEmpty()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return untaken.removeFirst();
    }

    synchronized long total() {
        return total;
    }

    synchronized void clear() {
        recent.clear();
        untaken.clear();
        total = 0;
    }
}
