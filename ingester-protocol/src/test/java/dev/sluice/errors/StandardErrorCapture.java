package dev.sluice.errors;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Collects what is printed to standard error while it is open: the tests' SLF4J binding (slf4j-simple) writes
 * every log line there, looking {@code System.err} up at each line.
 */
public final class StandardErrorCapture implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    /** Starts capturing (and still echoes to the original stream). */
    public StandardErrorCapture() {
        PrintStream copy = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        System.setErr(new PrintStream(new java.io.OutputStream() {
            @Override
            public void write(int b) {
                copy.write(b);
                original.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                copy.write(b, off, len);
                original.write(b, off, len);
            }
        }, true, StandardCharsets.UTF_8));
    }

    /**
     * Returns what was printed so far.
     *
     * @return the text
     */
    public synchronized String text() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /**
     * Counts the lines holding a piece of text.
     *
     * @param piece the text
     * @return lines that contain it
     */
    public long linesContaining(String piece) {
        return text().lines().filter(l -> l.contains(piece)).count();
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
