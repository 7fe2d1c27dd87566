package io.pqssh.core.kem;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.NamedParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.HexFormat;

import javax.crypto.KEM;
import javax.crypto.SecretKey;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Differential test: Bouncy Castle (through pqssh's {@link MlKem}) and the JDK 25 SunJCE ML-KEM provider agree on
 * keys, ciphertexts and secrets. Public keys cross the boundary as X.509 SubjectPublicKeyInfo built by prefixing the
 * fixed DER header of each parameter set (draft-ietf-lamps-kyber-certificates: AlgorithmIdentifier with absent
 * parameters, id-alg-ml-kem-N = 2.16.840.1.101.3.4.4.{1,2,3}).
 */
class MlKemJdkInteropTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final int ITERATIONS = 8;

    /** SEQUENCE { SEQUENCE { OID }, BIT STRING (0 unused bits) } header; the raw key follows. */
    static byte[] spkiHeader(KemAlgorithm a) {
        return HEX.parseHex(switch (a) {
            case MLKEM512 -> "30820332300b060960864801650304040103820321" + "00";
            case MLKEM768 -> "308204b2300b0609608648016503040402038204a1" + "00";
            case MLKEM1024 -> "30820632300b060960864801650304040303820621" + "00";
        });
    }

    static byte[] toSpki(KemAlgorithm a, byte[] raw) {
        assertEquals(a.publicKeyBytes(), raw.length);
        byte[] h = spkiHeader(a);
        byte[] out = Arrays.copyOf(h, h.length + raw.length);
        System.arraycopy(raw, 0, out, h.length, raw.length);
        return out;
    }

    static byte[] fromSpki(KemAlgorithm a, byte[] spki) {
        byte[] h = spkiHeader(a);
        assertEquals(h.length + a.publicKeyBytes(), spki.length, "SPKI length");
        assertArrayEquals(h, Arrays.copyOf(spki, h.length), "SPKI header");
        return Arrays.copyOfRange(spki, h.length, spki.length);
    }

    static PublicKey jdkPublic(KemAlgorithm a, byte[] raw) throws GeneralSecurityException {
        return KeyFactory.getInstance(a.fipsName()).generatePublic(new X509EncodedKeySpec(toSpki(a, raw)));
    }

    static NamedParameterSpec spec(KemAlgorithm a) {
        return switch (a) {
            case MLKEM512 -> NamedParameterSpec.ML_KEM_512;
            case MLKEM768 -> NamedParameterSpec.ML_KEM_768;
            case MLKEM1024 -> NamedParameterSpec.ML_KEM_1024;
        };
    }

    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void spkiHeaderLengthsAreConsistent(KemAlgorithm a) {
        byte[] h = spkiHeader(a);
        assertEquals(22, h.length);
        int total = ((h[2] & 0xff) << 8) | (h[3] & 0xff);
        int bits = ((h[19] & 0xff) << 8) | (h[20] & 0xff);
        assertEquals(a.publicKeyBytes() + 1, bits);
        assertEquals(13 + 4 + bits, total);
    }

    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void bcKeyJdkEncapsulateBcDecapsulate(KemAlgorithm a) throws Exception {
        SecureRandom rnd = new SecureRandom();
        KEM kem = KEM.getInstance("ML-KEM");
        for (int i = 0; i < ITERATIONS; i++) {
            KemKeyPair bc = MlKem.generate(a, rnd);
            PublicKey pub = jdkPublic(a, bc.publicKey());
            assertEquals("ML-KEM", pub.getAlgorithm());
            assertEquals(a.fipsName(), ((NamedParameterSpec) ((java.security.AsymmetricKey) pub).getParams())
                    .getName());
            // the JDK re-encodes to the same SPKI
            assertArrayEquals(toSpki(a, bc.publicKey()), pub.getEncoded());
            KEM.Encapsulated e = kem.newEncapsulator(pub).encapsulate();
            assertEquals(a.ciphertextBytes(), e.encapsulation().length);
            byte[] jdkSecret = e.key().getEncoded();
            assertEquals(32, jdkSecret.length);
            assertArrayEquals(jdkSecret, bc.decapsulate(e.encapsulation()));
            // and the seedless expanded form decapsulates the same
            assertArrayEquals(jdkSecret, MlKem.fromExpanded(a, bc.expandedSecretKey()).decapsulate(e.encapsulation()));
        }
    }

    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void jdkKeyBcEncapsulateJdkDecapsulate(KemAlgorithm a) throws Exception {
        SecureRandom rnd = new SecureRandom();
        KeyPairGenerator g = KeyPairGenerator.getInstance(a.fipsName());
        KEM kem = KEM.getInstance("ML-KEM");
        for (int i = 0; i < ITERATIONS; i++) {
            KeyPair kp = g.generateKeyPair();
            assertEquals("X.509", kp.getPublic().getFormat());
            byte[] raw = fromSpki(a, kp.getPublic().getEncoded());
            Encapsulation enc = MlKem.encapsulate(a, raw, rnd);
            assertEquals(a.ciphertextBytes(), enc.ciphertext().length);
            SecretKey k = kem.newDecapsulator(kp.getPrivate()).decapsulate(enc.ciphertext());
            assertArrayEquals(enc.sharedSecret(), k.getEncoded());
            enc.destroy();
        }
    }

    /** Same length, wrong bytes: both implementations apply the same implicit rejection (FIPS 203 K-bar). */
    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void implicitRejectionAgrees(KemAlgorithm a) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance(a.fipsName());
        KEM kem = KEM.getInstance("ML-KEM");
        KeyPair kp = g.generateKeyPair();
        byte[] raw = fromSpki(a, kp.getPublic().getEncoded());
        byte[] ct = MlKem.encapsulate(a, raw, new SecureRandom()).ciphertext();
        ct[7] ^= 0x10;
        byte[] jdk = kem.newDecapsulator(kp.getPrivate()).decapsulate(ct).getEncoded();
        // the JDK's private key encoding (JDK 25: OCTET STRING { OCTET STRING expandedKey }) carries the expanded
        // key; take it from the tail and decapsulate with BC
        byte[] p8 = kp.getPrivate().getEncoded();
        byte[] dk = Arrays.copyOfRange(p8, p8.length - a.expandedSecretKeyBytes(), p8.length);
        KemDecapsulationKey bc = MlKem.fromExpanded(a, dk);
        assertArrayEquals(raw, bc.publicKey());
        assertArrayEquals(jdk, bc.decapsulate(ct));
    }

    /**
     * FIPS 203 KeyGen(d, z) from the same 64-byte seed: the JDK draws d then z from its SecureRandom, so a
     * SecureRandom replaying the seed makes it derive from exactly that seed. Public and expanded private keys agree.
     */
    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void sameSeedSameKeysViaDeterministicRandom(KemAlgorithm a) throws Exception {
        for (int i = 0; i < 3; i++) {
            byte[] seed = new byte[64];
            new SecureRandom().nextBytes(seed);
            if (i == 0) {
                for (int j = 0; j < 64; j++) {
                    seed[j] = (byte) j;
                }
            }
            KeyPairGenerator g = KeyPairGenerator.getInstance(a.fipsName());
            Replay r = new Replay(seed);
            g.initialize(spec(a), r);
            KeyPair jdk = g.generateKeyPair();
            assertEquals(64, r.pos, "JDK drew " + r.pos + " bytes for key generation");
            KemKeyPair bc = MlKem.fromSeed(a, seed);
            assertArrayEquals(bc.publicKey(), fromSpki(a, jdk.getPublic().getEncoded()));
            byte[] p8 = jdk.getPrivate().getEncoded();
            byte[] dk = bc.expandedSecretKey();
            assertArrayEquals(dk, Arrays.copyOfRange(p8, p8.length - dk.length, p8.length));
        }
    }

    /** Deterministic encapsulation: the JDK fed m through its SecureRandom gives BC's Encaps_internal(pk, m). */
    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void sameMessageSameCiphertext(KemAlgorithm a) throws Exception {
        KemKeyPair bc = MlKem.generate(a, new SecureRandom());
        byte[] m = new byte[32];
        new SecureRandom().nextBytes(m);
        Replay r = new Replay(m);
        KEM.Encapsulated e = KEM.getInstance("ML-KEM").newEncapsulator(jdkPublic(a, bc.publicKey()), r)
                .encapsulate();
        assertEquals(32, r.pos);
        var b = org.bouncycastle.crypto.kems.MLKEMGenerator.internalGenerateEncapsulated(
                new org.bouncycastle.crypto.params.MLKEMPublicKeyParameters(a.parameters(), bc.publicKey()), m);
        assertArrayEquals(b.getEncapsulation(), e.encapsulation());
        assertArrayEquals(b.getSecret(), e.key().getEncoded());
    }

    @Test
    void jdkRejectsWrongLengthCiphertextLikeWeDo() throws Exception {
        KemAlgorithm a = KemAlgorithm.MLKEM768;
        KeyPair kp = KeyPairGenerator.getInstance(a.fipsName()).generateKeyPair();
        KEM.Decapsulator d = KEM.getInstance("ML-KEM").newDecapsulator(kp.getPrivate());
        assertThrows(Exception.class, () -> d.decapsulate(new byte[a.ciphertextBytes() - 1]));
        assertThrows(Exception.class, () -> d.decapsulate(new byte[a.ciphertextBytes() + 1]));
        KemKeyPair bc = MlKem.generate(a, new SecureRandom());
        assertThrows(IllegalArgumentException.class, () -> bc.decapsulate(new byte[a.ciphertextBytes() - 1]));
        assertThrows(IllegalArgumentException.class, () -> bc.decapsulate(new byte[a.ciphertextBytes() + 1]));
    }

    static final class Replay extends SecureRandom {
        private static final long serialVersionUID = 1L;
        private final byte[] data;
        int pos;

        Replay(byte[] data) {
            super(new byte[0]);
            this.data = data.clone();
        }

        @Override
        public synchronized void nextBytes(byte[] b) {
            if (pos + b.length > data.length) {
                throw new IllegalStateException("replay exhausted");
            }
            System.arraycopy(data, pos, b, 0, b.length);
            pos += b.length;
        }
    }
}
