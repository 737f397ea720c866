package dev.sluice.testkit.internal;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import io.grpc.Codec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** The testkit's {@code grpc-encoding: zstd} codec: the server accepts zstd-compressed messages on every service. */
public final class ZstdCodec implements Codec {
    /** The shared instance (stateless). */
    public static final ZstdCodec INSTANCE = new ZstdCodec();

    private ZstdCodec() {
    }

    @Override
    public String getMessageEncoding() {
        return "zstd";
    }

    @Override
    public OutputStream compress(OutputStream os) throws IOException {
        return new ZstdOutputStreamNoFinalizer(os);
    }

    @Override
    public InputStream decompress(InputStream is) throws IOException {
        return new ZstdInputStreamNoFinalizer(is);
    }
}
