package dev.sluice.internal.bulk.spi;

import java.io.InputStream;

/** One encoded message of a bulk call: the schema, or a batch with its request id. */
public interface BulkMessage {
    /**
     * Returns the encoded size.
     *
     * @return bytes
     */
    int size();

    /**
     * Returns what gRPC drains the message from; called once per send.
     *
     * @return the bytes, possibly from off-heap memory the transport takes without a copy
     */
    InputStream stream();

    /**
     * The owner lets go (after its last send, its answer, or when dropped); safe to call more than once. Memory the
     * transport still reads is freed when it lets go.
     */
    void release();
}
