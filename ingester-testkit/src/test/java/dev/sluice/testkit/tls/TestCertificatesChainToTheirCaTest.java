package dev.sluice.testkit.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.TestCertificates;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS material of {@link TestCertificates}, checked with the JDK's own PKIX validation: a leaf signed by the CA
 * validates against it and carries its subject alternative names and its key; a self-signed one does not validate.
 */
class TestCertificatesChainToTheirCaTest {
    @Test
    void aLeafSignedByTheCaValidatesAgainstItAndASelfSignedOneDoesNot(@TempDir Path dir) throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        X509Certificate ca = certificates(certs.ca()).get(0);
        assertTrue(ca.getBasicConstraints() >= 0, "the CA is a CA");
        Path[] server = certs.leaf("server", "localhost", "dns:localhost,ip:127.0.0.1", true);
        List<X509Certificate> chain = certificates(server[0]);
        assertEquals(2, chain.size(), "the leaf, then the CA");
        assertEquals(ca, chain.get(1));
        X509Certificate leaf = chain.get(0);
        assertEquals(-1, leaf.getBasicConstraints(), "a leaf is no CA");
        assertEquals("CN=localhost", leaf.getSubjectX500Principal().getName());
        assertEquals(List.of(List.of(2, "localhost"), List.of(7, "127.0.0.1")), List.copyOf(leaf.getSubjectAlternativeNames()));
        validate(leaf, ca);
        assertTrue(matches(leaf, key(server[1])), "the key file holds the certificate's private key");

        Path[] stranger = certs.leaf("stranger", "stranger", "dns:stranger", false);
        X509Certificate self = certificates(stranger[0]).get(0);
        assertEquals(self.getSubjectX500Principal(), self.getIssuerX500Principal());
        assertThrows(CertPathValidatorException.class, () -> validate(self, ca));

        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(dir.resolve("server.p12"))) {
            ks.load(in, "changeit".toCharArray());
        }
        assertEquals(leaf, ks.getCertificate("server"));
    }

    @Test
    void aLeafToBeSignedBeforeTheCaIsMadeIsRefused(@TempDir Path dir) {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new TestCertificates(dir).leaf("server", "localhost", "dns:localhost", true));
        assertTrue(e.getMessage().contains("ca()"), e.getMessage());
    }

    static List<X509Certificate> certificates(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return CertificateFactory.getInstance("X.509").generateCertificates(in).stream()
                    .map(c -> (X509Certificate) c).toList();
        }
    }

    static void validate(X509Certificate leaf, X509Certificate ca) throws Exception {
        PKIXParameters p = new PKIXParameters(Set.of(new TrustAnchor(ca, null)));
        p.setRevocationEnabled(false);
        CertPathValidator.getInstance("PKIX").validate(
                CertificateFactory.getInstance("X.509").generateCertPath(List.of(leaf)), p);
    }

    static PrivateKey key(Path pem) throws Exception {
        String b64 = Files.readString(pem).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return java.security.KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(b64)));
    }

    static boolean matches(X509Certificate cert, PrivateKey key) throws Exception {
        Signature s = Signature.getInstance("SHA256withECDSA");
        s.initSign(key);
        s.update(new byte[] {1, 2, 3});
        byte[] sig = s.sign();
        s.initVerify(cert.getPublicKey());
        s.update(new byte[] {1, 2, 3});
        return s.verify(sig);
    }
}
