package dev.sluice.internal.compression;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import io.grpc.Codec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** gRPC message compression with Zstandard ({@code grpc-encoding: zstd}), which GreptimeDB accepts. */
public final class ZstdGrpcCodec implements Codec {
    /** The shared instance; the codec holds no state. */
    public static final ZstdGrpcCodec INSTANCE = new ZstdGrpcCodec();

    private ZstdGrpcCodec() {
    }

    @Override
    public String getMessageEncoding() {
        return "zstd";
    }

    @Override
    public OutputStream compress(OutputStream os) throws IOException {
        return new ZstdOutputStreamNoFinalizer(os, 3);
    }

    @Override
    public InputStream decompress(InputStream is) throws IOException {
        return new ZstdInputStreamNoFinalizer(is);
    }
}
