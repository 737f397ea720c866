package dev.sluice;

import java.nio.file.Path;

/**
 * Transport security for a client. {@link #toString()} shows file names only, never key material.
 *
 * @param trustCertificates PEM file of CA certificates to trust, or null for the system trust store
 * @param clientCertificateChain PEM certificate chain for mutual TLS, or null
 * @param clientPrivateKey PEM (PKCS#8) private key for mutual TLS, or null
 * @param serverNameOverride the name to expect in the server's certificate instead of the endpoint host, or null
 */
public record TlsConfig(Path trustCertificates, Path clientCertificateChain, Path clientPrivateKey,
                        String serverNameOverride) {
    /** Checks that a client certificate comes with its key. */
    public TlsConfig {
        if ((clientCertificateChain == null) != (clientPrivateKey == null)) {
            throw new IllegalArgumentException("mutual TLS needs both the client certificate chain and its private key");
        }
    }

    /**
     * TLS trusting the system's CAs.
     *
     * @return the config
     */
    public static TlsConfig systemTrust() {
        return new TlsConfig(null, null, null, null);
    }

    /**
     * TLS trusting the CAs in a PEM file.
     *
     * @param caPem the CA certificates
     * @return the config
     */
    public static TlsConfig trusting(Path caPem) {
        return new TlsConfig(caPem, null, null, null);
    }

    /**
     * Adds a client certificate and key for mutual TLS.
     *
     * @param certificateChainPem the client's certificate chain
     * @param privateKeyPem its PKCS#8 private key
     * @return a new config
     */
    public TlsConfig withClientCertificate(Path certificateChainPem, Path privateKeyPem) {
        return new TlsConfig(trustCertificates, certificateChainPem, privateKeyPem, serverNameOverride);
    }

    /**
     * Expects another name in the server's certificate.
     *
     * @param name the expected name
     * @return a new config
     */
    public TlsConfig withServerNameOverride(String name) {
        return new TlsConfig(trustCertificates, clientCertificateChain, clientPrivateKey, name);
    }

    @Override
    public String toString() {
        return "TlsConfig{trust=" + (trustCertificates == null ? "system" : trustCertificates.getFileName())
                + (clientCertificateChain != null ? ", clientCertificate=" + clientCertificateChain.getFileName()
                + ", clientKey=****" : "") + (serverNameOverride != null ? ", serverName=" + serverNameOverride : "") + '}';
    }
}
