package dev.sluice.internal.bulk.spi;

import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * Gives off-heap memory to the transport while gRPC drains a message ({@code io.grpc.Drainable#drainTo}), in place
 * of copying its bytes into the transport's own buffers. The transport reads the memory when it writes the
 * message to the socket, possibly long after {@code drainTo} returned, and says when it is done with it.
 */
@FunctionalInterface
public interface DirectHandOff {
    /** A transport that takes nothing: every byte is copied. */
    DirectHandOff NONE = (target, memory, released) -> false;

    /**
     * Appends the remaining bytes of {@code memory} to the message being drained into {@code target}, after
     * everything written to {@code target} so far, without copying them.
     *
     * @param target the stream gRPC passed to {@code drainTo}
     * @param memory a direct buffer; its bytes from position to limit are sent, and must not change until
     *               {@code released} runs
     * @param released runs exactly once, on any thread, when the transport no longer reads the memory (sent,
     *                 or dropped with its call); never runs when this returns false
     * @return true when the transport took the memory; false when the caller must write the bytes to
     *         {@code target} itself (another transport, gRPC compression, or a gRPC version this does not know)
     */
    boolean handOff(OutputStream target, ByteBuffer memory, Runnable released);
}
