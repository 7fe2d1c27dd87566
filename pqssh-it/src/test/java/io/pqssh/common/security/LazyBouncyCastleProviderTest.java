package io.pqssh.common.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.Provider;
import java.security.Security;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import javax.crypto.Cipher;
import javax.crypto.KeyAgreement;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.junit.jupiter.api.Test;

/** The lazy {@code BC} provider: the same classes as Bouncy Castle's for its eager services, the full one for the rest. */
class LazyBouncyCastleProviderTest {
    private static final Provider FULL = new BouncyCastleProvider();

    @Test
    void eachEagerServiceIsTheClassBouncyCastlesOwnProviderUses() {
        LazyBouncyCastleProvider lazy = new LazyBouncyCastleProvider();
        for (String[] e : LazyBouncyCastleProvider.EAGER) {
            Provider.Service theirs = FULL.getService(e[0], e[1]);
            assertNotNull(theirs, "Bouncy Castle no longer offers " + e[0] + " " + e[1]);
            assertEquals(theirs.getClassName(), lazy.getService(e[0], e[1]).getClassName(), e[0] + " " + e[1]);
        }
        assertFalse(lazy.isFullProviderBuilt(), "eager services must not build the full provider");
    }

    @Test
    void eagerServicesWorkAndAgreeWithTheFullProvider() throws Exception {
        LazyBouncyCastleProvider lazy = new LazyBouncyCastleProvider();
        byte[] data = "lazy provider".getBytes(StandardCharsets.US_ASCII);
        assertArrayEquals(MessageDigest.getInstance("SHA-256", FULL).digest(data),
                MessageDigest.getInstance("SHA-256", lazy).digest(data));

        KeyPair ed = KeyPairGenerator.getInstance("Ed25519", lazy).generateKeyPair();
        Signature signer = Signature.getInstance("Ed25519", lazy);
        signer.initSign(ed.getPrivate());
        signer.update(data);
        byte[] sig = signer.sign();
        Signature verifier = Signature.getInstance("Ed25519", FULL);
        verifier.initVerify(KeyFactory.getInstance("Ed25519", FULL)
                .generatePublic(new X509EncodedKeySpec(ed.getPublic().getEncoded())));
        verifier.update(data);
        assertTrue(verifier.verify(sig), "an Ed25519 signature made through the lazy provider verifies with BC's");

        KeyPair a = KeyPairGenerator.getInstance("X25519", lazy).generateKeyPair();
        KeyPair b = KeyPairGenerator.getInstance("X25519", FULL).generateKeyPair();
        KeyAgreement ka = KeyAgreement.getInstance("X25519", lazy);
        ka.init(a.getPrivate());
        ka.doPhase(b.getPublic(), true);
        KeyAgreement kb = KeyAgreement.getInstance("X25519", FULL);
        kb.init(b.getPrivate());
        kb.doPhase(a.getPublic(), true);
        assertArrayEquals(kb.generateSecret(), ka.generateSecret());
        assertFalse(lazy.isFullProviderBuilt());
    }

    @Test
    void anyOtherServiceBuildsTheFullProviderOnce() throws Exception {
        LazyBouncyCastleProvider lazy = new LazyBouncyCastleProvider();
        Cipher c = Cipher.getInstance("AES/GCM/NoPadding", lazy);
        assertNotNull(c);
        assertTrue(lazy.isFullProviderBuilt());
        assertEquals(FULL.getVersionStr(), lazy.getVersionStr());
        assertTrue(lazy.getServices().size() >= FULL.getServices().size());
    }

    @Test
    void installLeavesAnInstalledBcProviderAlone() {
        Provider before = Security.getProvider("BC");
        boolean installed = LazyBouncyCastleProvider.install();
        Provider bc = Security.getProvider("BC");
        assertNotNull(bc);
        if (before != null) {
            assertFalse(installed);
            assertSame(before, bc);
        } else {
            assertTrue(installed);
            assertTrue(bc instanceof LazyBouncyCastleProvider);
        }
        assertFalse(LazyBouncyCastleProvider.install(), "a second install does nothing");
        assertSame(bc, Security.getProvider("BC"));
    }
}
