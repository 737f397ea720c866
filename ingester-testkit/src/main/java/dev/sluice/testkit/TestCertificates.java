package dev.sluice.testkit;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * Throw-away TLS material for tests: a CA and certificates signed by it (or self-signed), made in the test's own JVM
 * with the JDK's key and signature classes (EC keys on secp256r1, signed with SHA256withECDSA, valid two days) and
 * written as PEM files that both the testkit and a client accept. Nothing to install, no process to start.
 *
 * <pre>{@code
 * TestCertificates certs = new TestCertificates(tempDir);
 * Path ca = certs.ca();
 * Path[] server = certs.leaf("server", "localhost", "dns:localhost,ip:127.0.0.1", true);
 * GreptimeTestServer.builder().tls(server[0], server[1], null).start();
 * // client: TlsConfig.newBuilder().trustCertificates(ca).build()
 * }</pre>
 *
 * <p>Each certificate's key and chain are also written to {@code <alias>.p12}, a PKCS#12 key store with the password
 * {@code changeit}, for servers configured through a {@link KeyStore}.
 */
public final class TestCertificates {
    private static final String PASS = "changeit";
    private static final String CA_NAME = "sluice-test-ca";
    private static final Duration VALIDITY = Duration.ofDays(2);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path dir;
    private KeyPair caKeys;
    private X509Certificate caCert;

    /**
     * Uses a directory for the files.
     *
     * @param dir an existing, writable directory (a test's temporary directory)
     */
    public TestCertificates(Path dir) {
        this.dir = dir;
    }

    /**
     * Makes the CA (valid two days), written to {@code ca.pem}.
     *
     * @return the CA certificate, PEM
     * @throws Exception when the JDK cannot make an EC key or sign with it
     */
    public Path ca() throws Exception {
        caKeys = keyPair();
        caCert = certificate(CA_NAME, CA_NAME, caKeys.getPublic(), caKeys.getPrivate(), true, List.of());
        Path pem = dir.resolve("ca.pem");
        Files.writeString(pem, pem("CERTIFICATE", caCert.getEncoded()));
        return pem;
    }

    /**
     * Makes a certificate signed by the CA made by {@link #ca()}, or self-signed.
     *
     * @param alias a file name stem, unique per certificate
     * @param cn the subject's common name
     * @param san subject alternative names, e.g. {@code dns:localhost,ip:127.0.0.1}
     * @param signedByCa false for a self-signed certificate no one trusts
     * @return {certificate chain PEM, PKCS#8 private key PEM}
     * @throws IllegalStateException when {@code signedByCa} is true and {@link #ca()} was not called first
     * @throws Exception when the JDK cannot make an EC key or sign with it
     */
    public Path[] leaf(String alias, String cn, String san, boolean signedByCa) throws Exception {
        if (signedByCa && caKeys == null) {
            throw new IllegalStateException("certificate '" + alias + "' is to be signed by the CA: call ca() first");
        }
        KeyPair keys = keyPair();
        List<byte[]> names = subjectAltNames(san);
        X509Certificate cert = signedByCa
                ? certificate(cn, CA_NAME, keys.getPublic(), caKeys.getPrivate(), false, names)
                : certificate(cn, cn, keys.getPublic(), keys.getPrivate(), false, names);
        Certificate[] chain = signedByCa ? new Certificate[] {cert, caCert} : new Certificate[] {cert};
        StringBuilder chainPem = new StringBuilder();
        for (Certificate c : chain) {
            chainPem.append(pem("CERTIFICATE", c.getEncoded()));
        }
        Path chainFile = dir.resolve(alias + "-chain.pem");
        Files.writeString(chainFile, chainPem);
        Path keyFile = dir.resolve(alias + "-key.pem");
        Files.writeString(keyFile, pem("PRIVATE KEY", keys.getPrivate().getEncoded()));
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry(alias, keys.getPrivate(), PASS.toCharArray(), chain);
        try (OutputStream out = Files.newOutputStream(dir.resolve(alias + ".p12"))) {
            ks.store(out, PASS.toCharArray());
        }
        return new Path[] {chainFile, keyFile};
    }

    private static KeyPair keyPair() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        return g.generateKeyPair();
    }

    // Object identifiers (RFC 5280, RFC 5758).
    private static final int[] ECDSA_WITH_SHA256 = {1, 2, 840, 10045, 4, 3, 2};
    private static final int[] COMMON_NAME = {2, 5, 4, 3};
    private static final int[] BASIC_CONSTRAINTS = {2, 5, 29, 19};
    private static final int[] SUBJECT_ALT_NAME = {2, 5, 29, 17};

    /** An X.509 v3 certificate, DER-encoded as RFC 5280 lays it out, signed by {@code signer}. */
    private static X509Certificate certificate(String subject, String issuer, PublicKey key, PrivateKey signer,
                                               boolean isCa, List<byte[]> altNames) throws Exception {
        byte[] algorithm = seq(oid(ECDSA_WITH_SHA256));
        Instant now = Instant.now();
        List<byte[]> extensions = new ArrayList<>();
        if (isCa) { // critical, cA TRUE
            extensions.add(seq(oid(BASIC_CONSTRAINTS), tlv(0x01, new byte[] {(byte) 0xFF}),
                    tlv(0x04, seq(tlv(0x01, new byte[] {(byte) 0xFF})))));
        }
        if (!altNames.isEmpty()) {
            extensions.add(seq(oid(SUBJECT_ALT_NAME), tlv(0x04, seq(altNames.toArray(new byte[0][])))));
        }
        List<byte[]> tbs = new ArrayList<>(List.of(
                tlv(0xA0, integer(BigInteger.TWO)), // version v3
                integer(new BigInteger(63, RANDOM).add(BigInteger.ONE)),
                algorithm,
                name(issuer),
                seq(utcTime(now.minus(Duration.ofMinutes(5))), utcTime(now.plus(VALIDITY))),
                name(subject),
                key.getEncoded())); // SubjectPublicKeyInfo, as the JDK encodes it
        if (!extensions.isEmpty()) {
            tbs.add(tlv(0xA3, seq(extensions.toArray(new byte[0][]))));
        }
        byte[] toSign = seq(tbs.toArray(new byte[0][]));
        Signature s = Signature.getInstance("SHA256withECDSA");
        s.initSign(signer, RANDOM);
        s.update(toSign);
        byte[] signature = s.sign();
        byte[] bits = new byte[signature.length + 1]; // no unused bits
        System.arraycopy(signature, 0, bits, 1, signature.length);
        byte[] der = seq(toSign, algorithm, tlv(0x03, bits));
        return (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new java.io.ByteArrayInputStream(der));
    }

    /** GeneralNames entries from {@code dns:a,ip:b}: dNSName [2] and iPAddress [7]. */
    private static List<byte[]> subjectAltNames(String san) throws Exception {
        List<byte[]> names = new ArrayList<>();
        if (san == null || san.isBlank()) {
            return names;
        }
        for (String entry : san.split(",")) {
            String e = entry.trim();
            int colon = e.indexOf(':');
            String kind = colon < 0 ? "" : e.substring(0, colon).toLowerCase(Locale.ROOT);
            String value = e.substring(colon + 1);
            switch (kind) {
                case "dns" -> names.add(tlv(0x82, value.getBytes(StandardCharsets.US_ASCII)));
                case "ip" -> names.add(tlv(0x87, InetAddress.getByName(value).getAddress()));
                default -> throw new IllegalArgumentException("subject alternative name '" + e
                        + "': write dns:<name> or ip:<address>");
            }
        }
        return names;
    }

    private static byte[] name(String cn) {
        return seq(tlv(0x31, seq(oid(COMMON_NAME), tlv(0x0C, cn.getBytes(StandardCharsets.UTF_8)))));
    }

    private static byte[] utcTime(Instant t) {
        String s = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC).format(t);
        return tlv(0x17, s.getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] integer(BigInteger v) {
        return tlv(0x02, v.toByteArray());
    }

    private static byte[] oid(int[] arcs) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(40 * arcs[0] + arcs[1]);
        for (int i = 2; i < arcs.length; i++) {
            int v = arcs[i];
            int shift = 28;
            while (shift > 0 && (v >>> shift) == 0) {
                shift -= 7;
            }
            for (; shift > 0; shift -= 7) {
                b.write(0x80 | ((v >>> shift) & 0x7F));
            }
            b.write(v & 0x7F);
        }
        return tlv(0x06, b.toByteArray());
    }

    private static byte[] seq(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return tlv(0x30, b.toByteArray());
    }

    /** One DER element: tag, definite length, contents. */
    private static byte[] tlv(int tag, byte[] content) {
        ByteArrayOutputStream b = new ByteArrayOutputStream(content.length + 6);
        b.write(tag);
        int n = content.length;
        if (n < 0x80) {
            b.write(n);
        } else {
            int bytes = (32 - Integer.numberOfLeadingZeros(n) + 7) / 8;
            b.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                b.write(n >>> (8 * i));
            }
        }
        b.writeBytes(content);
        return b.toByteArray();
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
