package dev.sluice.internal.write;

import com.google.protobuf.CodedOutputStream;
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
        int size = encoder.size();
        if (size <= EncodeBuffers.LARGEST_POOLED) {
            // Encode into a pooled array (no buffer allocated per request, and the array encoder skips the
            // per-write space checks of a stream encoder), then hand gRPC the bytes in one write.
            byte[] buffer = EncodeBuffers.take(size);
            try {
                CodedOutputStream out = CodedOutputStream.newInstance(buffer, 0, size);
                encoder.writeTo(out);
                out.checkNoSpaceLeft();
                target.write(buffer, 0, size);
            } finally {
                EncodeBuffers.give(buffer);
            }
            return size;
        }
        CodedOutputStream out = CodedOutputStream.newInstance(target, 64 * 1024);
        encoder.writeTo(out);
        out.flush();
        return size;
    }

    private InputStream materialised() throws IOException {
        if (fallback == null) {
            if (drained) {
                throw new IllegalStateException("request already consumed");
            }
            byte[] bytes = new byte[encoder.size()];
            CodedOutputStream out = CodedOutputStream.newInstance(bytes);
            encoder.writeTo(out);
            out.checkNoSpaceLeft();
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
