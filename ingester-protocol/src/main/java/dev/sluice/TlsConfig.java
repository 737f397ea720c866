package dev.sluice;

import java.nio.file.Path;

/**
 * Transport security for a client. Immutable; build with {@link #newBuilder()}: with nothing set it trusts the
 * system's CAs. {@link #toString()} shows file names only, never key material.
 *
 * <pre>{@code
 * TlsConfig tls = TlsConfig.newBuilder().trustCertificates(Path.of("ca.pem"))
 *         .clientCertificate(Path.of("client.pem"), Path.of("client.key")).build();
 * }</pre>
 */
public final class TlsConfig {
    private final Path trustCertificates;
    private final Path clientCertificateChain;
    private final Path clientPrivateKey;
    private final String serverNameOverride;

    private TlsConfig(Builder b) {
        this.trustCertificates = b.trustCertificates;
        this.clientCertificateChain = b.clientCertificateChain;
        this.clientPrivateKey = b.clientPrivateKey;
        this.serverNameOverride = b.serverNameOverride;
    }

    /**
     * Starts a config that trusts the system's CAs, with no client certificate.
     *
     * @return a builder
     */
    public static Builder newBuilder() {
        return new Builder();
    }

    /**
     * Starts a builder holding this config's values.
     *
     * @return a builder
     */
    public Builder toBuilder() {
        Builder b = new Builder().trustCertificates(trustCertificates).serverNameOverride(serverNameOverride);
        return clientCertificateChain == null ? b : b.clientCertificate(clientCertificateChain, clientPrivateKey);
    }

    /** @return the PEM file of CA certificates to trust, or null for the system trust store */
    public Path trustCertificates() {
        return trustCertificates;
    }

    /** @return the PEM certificate chain for mutual TLS, or null */
    public Path clientCertificateChain() {
        return clientCertificateChain;
    }

    /** @return the PEM (PKCS#8) private key for mutual TLS, or null */
    public Path clientPrivateKey() {
        return clientPrivateKey;
    }

    /** @return the name expected in the server's certificate instead of the endpoint host, or null */
    public String serverNameOverride() {
        return serverNameOverride;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TlsConfig t && java.util.Objects.equals(t.trustCertificates, trustCertificates)
                && java.util.Objects.equals(t.clientCertificateChain, clientCertificateChain)
                && java.util.Objects.equals(t.clientPrivateKey, clientPrivateKey)
                && java.util.Objects.equals(t.serverNameOverride, serverNameOverride);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(trustCertificates, clientCertificateChain, clientPrivateKey, serverNameOverride);
    }

    @Override
    public String toString() {
        return "TlsConfig{trust=" + (trustCertificates == null ? "system" : trustCertificates.getFileName())
                + (clientCertificateChain != null ? ", clientCertificate=" + clientCertificateChain.getFileName()
                + ", clientKey=****" : "") + (serverNameOverride != null ? ", serverName=" + serverNameOverride : "") + '}';
    }

    /** Builder for {@link TlsConfig}. */
    public static final class Builder {
        private Path trustCertificates;
        private Path clientCertificateChain;
        private Path clientPrivateKey;
        private String serverNameOverride;

        private Builder() {
        }

        /**
         * Trusts the CAs in a PEM file instead of the system's.
         *
         * @param caPem the CA certificates, or null for the system trust store (the default)
         * @return this
         * @throws IllegalArgumentException when the path is empty
         */
        public Builder trustCertificates(Path caPem) {
            this.trustCertificates = named(caPem, "the CA certificates' file");
            return this;
        }

        /**
         * Presents a client certificate for mutual TLS.
         *
         * @param certificateChainPem the client's certificate chain
         * @param privateKeyPem its PKCS#8 private key
         * @return this
         * @throws IllegalArgumentException when only one is given, or a path is empty
         */
        public Builder clientCertificate(Path certificateChainPem, Path privateKeyPem) {
            named(certificateChainPem, "the client certificate chain's file");
            named(privateKeyPem, "the client private key's file");
            if ((certificateChainPem == null) != (privateKeyPem == null)) {
                throw new IllegalArgumentException("mutual TLS needs both the client certificate chain and its"
                        + " private key");
            }
            this.clientCertificateChain = certificateChainPem;
            this.clientPrivateKey = privateKeyPem;
            return this;
        }

        /**
         * Expects another name in the server's certificate than the endpoint's host.
         *
         * @param name the expected name, or null for the endpoint's host (the default)
         * @return this
         * @throws IllegalArgumentException when the name is empty or blank
         */
        public Builder serverNameOverride(String name) {
            if (name != null && name.isBlank()) {
                throw new IllegalArgumentException("the expected server name is empty: give the name in the server's"
                        + " certificate, or none to expect the host's own");
            }
            this.serverNameOverride = name;
            return this;
        }

        /** An empty path names no file (it would read the working directory): refused, naming what it is for. */
        private static Path named(Path file, String what) {
            if (file != null && file.toString().isBlank()) {
                throw new IllegalArgumentException(what + " is empty: give the path of a PEM file");
            }
            return file;
        }

        /**
         * Builds the config.
         *
         * @return the config
         */
        public TlsConfig build() {
            return new TlsConfig(this);
        }
    }
}
