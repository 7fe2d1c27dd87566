package io.pqssh.mina.keys;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.security.KeyPair;
import java.security.SignatureException;
import java.security.spec.InvalidKeySpecException;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

import org.apache.sshd.common.SshException;
import org.apache.sshd.common.config.keys.AuthorizedKeyEntry;
import org.apache.sshd.common.config.keys.PublicKeyEntryResolver;
import org.apache.sshd.common.config.keys.UnsupportedSshPublicKey;
import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.core.wire.SshWriter;
import io.pqssh.mina.ServerSessionWatch;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.PqsshServer;

/** Malformed PQ public key and signature blobs, offline and on the wire: clear errors, never a login. */
class MalformedPqKeyTest {
    private static final String MLDSA44 = "ssh-mldsa-44";
    private static SshSigningKey key;

    @BeforeAll
    static void setUp() {
        MinaPqKeys.ensureInstalled();
        key = SshSigningKey.generate(SignatureKeyType.MLDSA_44, PqLogins.RANDOM);
    }

    private static byte[] pk() {
        return key.publicKey().rawKey();
    }

    private static byte[] blob(String name, byte[] afterName) {
        return new SshWriter().putString(name).putRaw(afterName).toByteArray();
    }

    private static byte[] str(byte[] b) {
        return new SshWriter().putString(b).toByteArray();
    }

    private static String wireError(byte[] blob) {
        SshException e = assertThrows(SshException.class, () -> new ByteArrayBuffer(blob).getRawPublicKey());
        return PqLogins.causes(e);
    }

    @Test
    void wireBlobsAreCheckedStrictly() throws Exception {
        assertArrayEquals(key.publicKeyBlob(), ((PqPublicKey) new ByteArrayBuffer(key.publicKeyBlob())
                .getRawPublicKey()).blob(), "the good blob decodes");
        String shortKey = wireError(blob(MLDSA44, str(Arrays.copyOf(pk(), 1311))));
        assertTrue(shortKey.contains("must be 1312 bytes, got 1311"), shortKey);
        String longKey = wireError(blob(MLDSA44, str(Arrays.copyOf(pk(), 1313))));
        assertTrue(longKey.contains("got 1313"), longKey);
        byte[] truncated = Arrays.copyOf(blob(MLDSA44, str(pk())), 4 + MLDSA44.length() + 4 + 100);
        String trunc = wireError(truncated);
        assertTrue(trunc.contains("truncated") || trunc.contains("malformed"), trunc);
        String trailing = wireError(blob(MLDSA44, concat(str(pk()), new byte[] {0})));
        assertTrue(trailing.contains("ssh-mldsa-44"), trailing);
        String noData = wireError(blob(MLDSA44, new byte[0]));
        assertTrue(noData.contains("no key data"), noData);
        String wrongType = wireError(blob("ssh-mldsa44-ed25519@openssh.com", str(pk())));
        assertTrue(wrongType.contains("must be 1344 bytes"), wrongType);
        String unknown = wireError(blob("ssh-mldsa-99", str(pk())));
        assertTrue(unknown.contains("ssh-mldsa-99"), unknown);
    }

    @Test
    void badKnownHostsOrAuthorizedKeysLinesAreRejected() throws Exception {
        String bad = MLDSA44 + " " + Base64.getEncoder().encodeToString(blob(MLDSA44, str(Arrays.copyOf(pk(), 9))));
        AuthorizedKeyEntry e = AuthorizedKeyEntry.parseAuthorizedKeyEntry(bad);
        InvalidKeySpecException x = assertThrows(InvalidKeySpecException.class,
                () -> e.resolvePublicKey(null, PublicKeyEntryResolver.FAILING));
        assertTrue(x.getMessage().contains("must be 1312 bytes"), x.getMessage());
        String mislabelled = "ssh-mldsa-65 " + Base64.getEncoder().encodeToString(key.publicKeyBlob());
        assertThrows(InvalidKeySpecException.class, () -> AuthorizedKeyEntry.parseAuthorizedKeyEntry(mislabelled)
                .resolvePublicKey(null, PublicKeyEntryResolver.FAILING));
    }

    @Test
    void malformedSignatureBlobsAreErrorsAndWrongSignaturesFalse() throws Exception {
        byte[] data = "data".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] good = key.sign(data);
        Signature v = PqSignatureFactories.byName().get(MLDSA44).create();
        PqPublicKey pub = PqPublicKey.of(key.publicKey());
        v.initVerifier(null, pub);
        v.update(null, data);
        assertTrue(v.verify(null, good));
        for (byte[] bad : List.of(Arrays.copyOf(good, good.length - 1), concat(good, new byte[] {1}),
                blob("ssh-mldsa-65", Arrays.copyOfRange(good, 4 + MLDSA44.length(), good.length)))) {
            v.initVerifier(null, pub);
            v.update(null, data);
            assertThrows(SignatureException.class, () -> v.verify(null, bad));
        }
        byte[] flipped = good.clone();
        flipped[flipped.length - 5] ^= 1;
        v.initVerifier(null, pub);
        v.update(null, data);
        assertFalse(v.verify(null, flipped));
        // and the key of another type is refused up front
        SshSigningKey other = SshSigningKey.generate(SignatureKeyType.FALCON_512, PqLogins.RANDOM);
        assertThrows(java.security.InvalidKeyException.class,
                () -> v.initVerifier(null, PqPublicKey.of(other.publicKey())));
        assertThrows(java.security.InvalidKeyException.class,
                () -> v.initSigner(null, PqKeyPairs.keyPair(other).getPrivate()));
    }

    @Test
    void malformedUserKeyOnTheWireDoesNotLogIn(@TempDir Path dir) throws Exception {
        KeyPair good = PqKeyPairs.keyPair(key);
        // the client sends a truncated ML-DSA-44 key (MINA writes UnsupportedSshPublicKey data verbatim)
        KeyPair bad = new KeyPair(new UnsupportedSshPublicKey(MLDSA44, str(Arrays.copyOf(pk(), 1000))),
                good.getPrivate());
        var auth = PqLogins.authorizedKeys(dir.resolve("ak"), good.getPublic());
        java.util.concurrent.atomic.AtomicInteger consulted = new java.util.concurrent.atomic.AtomicInteger();
        var authorizer = auth.publickey();
        try (PqsshServer server = PqLogins.server().hostKeyFiles(List.of(PqLogins.keyFile(dir, "h",
                SignatureKeyType.ED25519))).publickey((u, k, s) -> {
                    consulted.incrementAndGet();
                    return authorizer.authenticate(u, k, s);
                }).start()) {
            ServerSessionWatch w = ServerSessionWatch.on(server.sshd());
            try (PqsshClient c = PqsshClient.builder().serverKeyVerifier((s, a, k) -> true).identity(bad)
                    .preferredAuthentications(List.of("publickey")).timeout(java.time.Duration.ofSeconds(10))
                    .start()) {
                assertThrows(Exception.class, () -> c.login("alice", "127.0.0.1", server.port()));
            }
            assertFalse(w.sessions().isEmpty(), "the client reached the server");
            assertTrue(consulted.get() == 0, "the malformed key is refused while parsing, before authorization");
            assertFalse(w.anyAuthenticated());
        }
    }

    @Test
    void malformedHostKeyOnTheWireFailsTheKeyExchange(@TempDir Path dir) throws Exception {
        KeyPair good = PqKeyPairs.keyPair(key);
        KeyPair badHost = new KeyPair(new UnsupportedSshPublicKey(MLDSA44,
                concat(str(pk()), new byte[] {7, 7})), good.getPrivate());
        KeyPair user = PqKeyPairs.keyPair(SshSigningKey.generate(SignatureKeyType.MLDSA_44, PqLogins.RANDOM));
        var auth = PqLogins.authorizedKeys(dir.resolve("ak"), user.getPublic());
        try (PqsshServer server = PqLogins.server().hostKeys(PqKeyPairProvider.of(List.of(badHost)))
                .publickey(auth.publickey()).start()) {
            ServerSessionWatch w = ServerSessionWatch.on(server.sshd());
            try (PqsshClient c = PqsshClient.builder().serverKeyVerifier((s, a, k) -> true).identity(user)
                    .preferredAuthentications(List.of("publickey")).timeout(java.time.Duration.ofSeconds(10))
                    .start()) {
                Exception e = assertThrows(Exception.class, () -> c.login("alice", "127.0.0.1", server.port()));
                String why = PqLogins.causes(e);
                assertTrue(why.contains("ssh-mldsa-44"), why);
            }
            assertFalse(w.anyAuthenticated());
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
