package dev.sluice.internal.bulk.spi;

import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One encoded message of a bulk call, as the codec lays it out and the client sends it: a head of heap bytes, then
 * a body of parts (buffers, possibly off-heap) each at its offset, zeros between them and after the last. The
 * client writes it into gRPC's output each time it is sent (a message kept for a resend is sent again from the same
 * memory), handing parts of at least the message's hand-off size to the transport without a copy where the
 * transport takes them ({@link DirectHandOff}), and copying the rest.
 *
 * <p>The memory the parts lie in is the message's: it is closed once the owner has {@linkplain #release() released}
 * the message and the transport has let go of every part handed to it, whichever comes last; then the
 * {@linkplain #whenFreed hook} runs. Nothing of the codec runs for that but the memory's own {@code close()}.
 */
public final class BulkMessage {
    /** Drains messages for gRPC: the request marshaller of a bulk call. */
    public static final MethodDescriptor.Marshaller<BulkMessage> MARSHALLER = new Marshaller();
    private static final byte[] ZEROS = new byte[8];
    private final byte[] head;
    private final ByteBuffer[] parts;
    private final long[] at;
    private final long body;
    private final int size;
    private final int handOffMin;
    private final DirectHandOff handOff;
    private final AutoCloseable memory;
    /** One for the owner until released, one per part the transport holds; the memory is closed at zero. */
    private final AtomicInteger holders = new AtomicInteger(1);
    private final AtomicBoolean released = new AtomicBoolean();
    private final Runnable unlent = this::drop;
    private volatile Runnable freed;

    /**
     * Lays out a message.
     *
     * @param head the bytes sent first (not copied: they must not change)
     * @param parts the body's buffers, each from position 0 to its limit, in body order (not copied: their bytes
     *              must not change until the memory is closed)
     * @param at where each part starts in the body, in bytes after the head, ascending and not overlapping
     * @param body the body's length: the message is {@code head.length + body} bytes
     * @param handOffMin parts at least this large go to the transport without a copy where it takes them
     * @param handOff the transport's hand-off ({@link DirectHandOff#NONE} copies every part)
     * @param memory what the parts lie in, closed once no one reads them; null for heap bytes
     * @throws IllegalArgumentException when the message would exceed 2 GiB
     */
    public BulkMessage(byte[] head, ByteBuffer[] parts, long[] at, long body, int handOffMin, DirectHandOff handOff,
                       AutoCloseable memory) {
        if (body > Integer.MAX_VALUE - 1024 - head.length) {
            throw new IllegalArgumentException("a bulk message of " + body + " bytes is too large for one message");
        }
        this.head = head;
        this.parts = parts;
        this.at = at;
        this.body = body;
        this.size = head.length + (int) body;
        this.handOffMin = Math.max(1, handOffMin);
        this.handOff = handOff;
        this.memory = memory;
    }

    /**
     * A message of heap bytes only (the schema, or a batch copied to the heap).
     *
     * @param bytes the message (not copied)
     * @return the message
     */
    public static BulkMessage ofBytes(byte[] bytes) {
        return new BulkMessage(bytes, new ByteBuffer[0], new long[0], 0, Integer.MAX_VALUE, DirectHandOff.NONE, null);
    }

    /**
     * Returns the encoded size.
     *
     * @return bytes
     */
    public int size() {
        return size;
    }

    /**
     * Runs {@code hook} once the message's memory is closed (on any thread); set by the owner before it sends or
     * releases the message.
     *
     * @param hook what to run
     */
    public void whenFreed(Runnable hook) {
        this.freed = hook;
    }

    /**
     * Returns what gRPC drains the message from; called once per send.
     *
     * @return the bytes, from off-heap memory the transport takes without a copy where it does
     */
    public InputStream stream() {
        return memory == null && parts.length == 0 ? new BytesStream(head) : new PartsStream(this);
    }

    /**
     * The owner lets go (after its last send, its answer, or when dropped); safe to call more than once. The memory
     * is closed now, or when the transport lets go of the last part handed to it.
     */
    public void release() {
        if (released.compareAndSet(false, true)) {
            drop();
        }
    }

    /**
     * Writes the message's bytes, handing large parts to the transport where it takes them.
     *
     * @param out the destination
     * @throws IOException from the destination
     */
    public void writeTo(OutputStream out) throws IOException {
        out.write(head);
        long written = 0;
        byte[] chunk = null;
        for (int i = 0; i < parts.length; i++) {
            written = pad(out, written, at[i]);
            ByteBuffer part = parts[i];
            int length = part.limit();
            if (length >= handOffMin && lend(out, part)) {
                written += length;
                continue;
            }
            if (chunk == null) {
                chunk = new byte[Math.min(64 * 1024, Math.max(8, size))];
            }
            for (int off = 0; off < length; off += chunk.length) {
                int n = Math.min(chunk.length, length - off);
                part.get(off, chunk, 0, n);
                out.write(chunk, 0, n);
            }
            written += length;
        }
        pad(out, written, body);
    }

    /**
     * Copies the message's bytes into {@code target} at its position, which moves past them; nothing is handed to
     * the transport.
     *
     * @param target a buffer with at least {@link #size()} bytes remaining
     */
    public void copyTo(ByteBuffer target) {
        int start = target.position();
        target.put(head);
        int bodyStart = target.position();
        long written = 0;
        for (int i = 0; i < parts.length; i++) {
            written = zero(target, bodyStart, written, at[i]);
            int length = parts[i].limit();
            target.put(bodyStart + (int) written, parts[i], 0, length);
            written += length;
        }
        zero(target, bodyStart, written, body);
        target.position(start + size);
    }

    private static long pad(OutputStream out, long written, long to) throws IOException {
        while (written < to) {
            int n = (int) Math.min(ZEROS.length, to - written);
            out.write(ZEROS, 0, n);
            written += n;
        }
        return written;
    }

    private static long zero(ByteBuffer target, int bodyStart, long written, long to) {
        for (long i = written; i < to; i++) {
            target.put(bodyStart + (int) i, (byte) 0);
        }
        return Math.max(written, to);
    }

    /** Hands one part to the transport, holding the memory until the transport lets go of it. */
    private boolean lend(OutputStream out, ByteBuffer part) {
        if (handOff == DirectHandOff.NONE) {
            return false;
        }
        int h;
        do {
            h = holders.get();
            if (h == 0) {
                throw new IllegalStateException("a bulk message was sent after its memory was freed");
            }
        } while (!holders.compareAndSet(h, h + 1));
        boolean taken = false;
        try {
            taken = handOff.handOff(out, part.duplicate(), unlent);
        } finally {
            if (!taken) {
                drop();
            }
        }
        return taken;
    }

    private void drop() {
        if (holders.decrementAndGet() == 0) {
            try {
                if (memory != null) {
                    memory.close();
                }
            } catch (Exception e) {
                throw new IllegalStateException("could not free a bulk message's memory", e);
            } finally {
                Runnable hook = freed;
                if (hook != null) {
                    hook.run();
                }
            }
        }
    }

    /** gRPC's view of messages: drained, never parsed. */
    private static final class Marshaller implements MethodDescriptor.Marshaller<BulkMessage> {
        @Override
        public InputStream stream(BulkMessage value) {
            return value.stream();
        }

        @Override
        public BulkMessage parse(InputStream stream) {
            throw new UnsupportedOperationException("the client never parses its own bulk messages");
        }
    }

    /** A byte array gRPC can size and copy in one go. */
    private static final class BytesStream extends ByteArrayInputStream implements KnownLength, Drainable {
        BytesStream(byte[] bytes) {
            super(bytes);
        }

        @Override
        public int drainTo(OutputStream target) throws IOException {
            int n = count - pos;
            target.write(buf, pos, n);
            pos = count;
            return n;
        }
    }

    /**
     * gRPC drains a message straight from its parts (inside {@code sendMessage}). Not {@code KnownLength}: gRPC
     * then drains it into a chain of buffers, which is what takes handed-off memory.
     */
    private static final class PartsStream extends InputStream implements Drainable {
        private final BulkMessage message;
        private boolean drained;

        PartsStream(BulkMessage message) {
            this.message = message;
        }

        @Override
        public int drainTo(OutputStream target) throws IOException {
            if (drained) {
                return 0;
            }
            drained = true;
            message.writeTo(target);
            return message.size;
        }

        @Override
        public int available() {
            return drained ? 0 : message.size;
        }

        @Override
        public int read() {
            throw new UnsupportedOperationException("drained by gRPC, never read");
        }
    }
}
