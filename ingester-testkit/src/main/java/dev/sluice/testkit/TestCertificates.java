package dev.sluice.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Throw-away TLS material for tests: a CA and certificates signed by it (or self-signed), made with the JDK's
 * own {@code keytool} and written as PEM files that both the testkit and a client accept. Nothing to install.
 *
 * <pre>{@code
 * TestCertificates certs = new TestCertificates(tempDir);
 * Path ca = certs.ca();
 * Path[] server = certs.leaf("server", "localhost", "dns:localhost,ip:127.0.0.1", true);
 * GreptimeTestServer.builder().tls(server[0], server[1], null).start();
 * // client: TlsConfig.newBuilder().trustCertificates(ca).build()
 * }</pre>
 */
public final class TestCertificates {
    private static final String PASS = "changeit";
    private final Path dir;

    /**
     * Uses a directory for the files.
     *
     * @param dir an existing, writable directory (a test's temporary directory)
     */
    public TestCertificates(Path dir) {
        this.dir = dir;
    }

    private void keytool(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("keytool " + String.join(" ", args) + " failed: " + out);
        }
    }

    private void keypair(String alias, String dname, String... ext) throws Exception {
        List<String> a = new ArrayList<>(List.of("-genkeypair", "-alias", alias, "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", dname, "-validity", "2", "-keystore", alias + ".p12", "-storetype", "PKCS12",
                "-storepass", PASS, "-keypass", PASS));
        for (String e : ext) {
            a.add("-ext");
            a.add(e);
        }
        keytool(a.toArray(new String[0]));
    }

    /**
     * Makes the CA (valid two days).
     *
     * @return the CA certificate, PEM
     * @throws Exception when keytool fails
     */
    public Path ca() throws Exception {
        keypair("ca", "CN=sluice-test-ca", "bc:c");
        keytool("-exportcert", "-alias", "ca", "-keystore", "ca.p12", "-storepass", PASS, "-rfc", "-file", "ca.pem");
        return dir.resolve("ca.pem");
    }

    /**
     * Makes a certificate signed by the CA made by {@link #ca()}, or self-signed.
     *
     * @param alias a file name stem, unique per certificate
     * @param cn the subject's common name
     * @param san subject alternative names, e.g. {@code dns:localhost,ip:127.0.0.1}
     * @param signedByCa false for a self-signed certificate no one trusts
     * @return {certificate chain PEM, PKCS#8 private key PEM}
     * @throws Exception when keytool fails
     */
    public Path[] leaf(String alias, String cn, String san, boolean signedByCa) throws Exception {
        keypair(alias, "CN=" + cn);
        Path chain = dir.resolve(alias + "-chain.pem");
        if (signedByCa) {
            keytool("-certreq", "-alias", alias, "-keystore", alias + ".p12", "-storepass", PASS, "-file", alias + ".csr");
            keytool("-gencert", "-alias", "ca", "-keystore", "ca.p12", "-storepass", PASS, "-infile", alias + ".csr",
                    "-outfile", alias + ".pem", "-rfc", "-validity", "2", "-ext", "SAN=" + san);
            Files.writeString(chain, Files.readString(dir.resolve(alias + ".pem")) + Files.readString(dir.resolve("ca.pem")));
        } else {
            keytool("-exportcert", "-alias", alias, "-keystore", alias + ".p12", "-storepass", PASS, "-rfc", "-file",
                    chain.getFileName().toString());
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(dir.resolve(alias + ".p12"))) {
            ks.load(in, PASS.toCharArray());
        }
        Key key = ks.getKey(alias, PASS.toCharArray());
        Path keyPem = dir.resolve(alias + "-key.pem");
        Files.writeString(keyPem, "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded())
                + "\n-----END PRIVATE KEY-----\n");
        return new Path[] {chain, keyPem};
    }
}
