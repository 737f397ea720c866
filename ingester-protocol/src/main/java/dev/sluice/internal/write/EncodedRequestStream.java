package dev.sluice.internal.write;

import io.grpc.Drainable;
import io.grpc.KnownLength;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Hands an encoded request to gRPC: gRPC drains it straight into its own buffers through {@link Drainable};
 * plain reads (which gRPC does not normally use) fall back to a materialised copy.
 */
final class EncodedRequestStream extends InputStream implements Drainable, KnownLength {
    private final RequestEncoder encoder;
    private InputStream fallback;
    private boolean drained;

    EncodedRequestStream(RequestEncoder encoder) {
        this.encoder = encoder;
    }

    @Override
    public int drainTo(OutputStream target) throws IOException {
        if (fallback != null || drained) {
            throw new IllegalStateException("request already consumed");
        }
        drained = true;
        // Encoded into a pooled array (no buffer allocated per request): a request that fits goes to gRPC in one
        // write, a larger one in pieces of the array's size.
        byte[] scratch = EncodeBuffers.take(Math.min(encoder.size(), EncodeBuffers.LARGEST_POOLED));
        try {
            encoder.writeTo(target, scratch);
        } finally {
            EncodeBuffers.give(scratch);
        }
        return encoder.size();
    }

    private InputStream materialised() throws IOException {
        if (fallback == null) {
            if (drained) {
                throw new IllegalStateException("request already consumed");
            }
            byte[] bytes = new byte[encoder.size()];
            encoder.encode(bytes);
            fallback = new ByteArrayInputStream(bytes);
        }
        return fallback;
    }

    @Override
    public int read() throws IOException {
        return materialised().read();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        return materialised().read(b, off, len);
    }

    @Override
    public int available() throws IOException {
        if (drained) {
            return 0;
        }
        return fallback == null ? encoder.size() : fallback.available();
    }
}
