package dev.sluice.internal.transport;

import dev.sluice.TlsConfig;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;

/** Plaintext or TLS (system or custom trust, mutual TLS, server name override) for the client's channels. */
public final class TransportSecurity {
    private TransportSecurity() {
    }

    /**
     * Returns how to set up each channel builder.
     *
     * @param tls the settings, or null for plaintext
     * @return the setup
     * @throws IllegalArgumentException when a certificate or key file cannot be read
     */
    public static Consumer<NettyChannelBuilder> setup(TlsConfig tls) {
        if (tls == null) {
            return NettyChannelBuilder::usePlaintext;
        }
        SslContextBuilder ssl = GrpcSslContexts.forClient();
        try {
            if (tls.trustCertificates() != null) {
                ssl.trustManager(tls.trustCertificates().toFile());
            }
            if (tls.clientCertificateChain() != null) {
                ssl.keyManager(tls.clientCertificateChain().toFile(), tls.clientPrivateKey().toFile());
            }
            var context = ssl.build();
            return b -> {
                b.useTransportSecurity().sslContext(context);
                if (tls.serverNameOverride() != null) {
                    b.overrideAuthority(tls.serverNameOverride());
                }
            };
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot set up TLS with " + tls + ": " + e.getMessage(), e);
        }
    }
}
