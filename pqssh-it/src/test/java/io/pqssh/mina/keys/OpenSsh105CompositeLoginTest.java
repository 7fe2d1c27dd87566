package io.pqssh.mina.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.List;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.kex.KexProposalOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.keys.WrongPassphraseException;
import io.pqssh.core.sig.SshPublicKey;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.PqsshServer;

/**
 * The ssh-mldsa44-ed25519@openssh.com keys made by OpenSSH 10.5 ({@code ssh-keygen -t mldsa44-ed25519}), taken
 * unchanged: the plain one and the encrypted one (bcrypt + aes256-ctr) as host key and as user key, authorized by
 * OpenSSH's own {@code .pub} line.
 */
class OpenSsh105CompositeLoginTest {
    private static final String COMPOSITE = "ssh-mldsa44-ed25519@openssh.com";
    private static final char[] PASS = PqLogins.VECTOR_PASSPHRASE.toCharArray();

    @Test
    void openSshKeysAsHostKeyAndUserKey(@TempDir Path dir) throws Exception {
        Path plain = PqLogins.vector(dir, "id_mldsa44_ed25519");
        Path encrypted = PqLogins.vector(dir, "id_mldsa44_ed25519_encrypted");
        SshPublicKey plainPub = SshPublicKey.parseOpenSsh(
                Files.readString(PqLogins.VECTORS.resolve("id_mldsa44_ed25519.pub")));
        SshPublicKey encPub = SshPublicKey.parseOpenSsh(
                Files.readString(PqLogins.VECTORS.resolve("id_mldsa44_ed25519_encrypted.pub")));
        assertEquals(PqLogins.VECTOR_FINGERPRINT, plainPub.fingerprintSha256());

        KeyPair plainKp = PqKeyPairs.load(plain, null).get(0);
        KeyPair encKp = PqKeyPairs.load(encrypted, PASS).get(0);
        assertEquals(plainPub.toOpenSsh(null), ((PqPublicKey) plainKp.getPublic()).sshPublicKey().toOpenSsh(null));
        assertEquals(PqLogins.VECTOR_FINGERPRINT, KeyUtils.getFingerPrint(plainKp.getPublic()));

        // authorized_keys holds OpenSSH's own .pub lines
        Path ak = dir.resolve("authorized_keys");
        Files.writeString(ak, Files.readString(PqLogins.VECTORS.resolve("id_mldsa44_ed25519.pub"))
                + Files.readString(PqLogins.VECTORS.resolve("id_mldsa44_ed25519_encrypted.pub")));
        var auth = new io.pqssh.server.FileKeyAuthorizers(ak.toString(), "none");

        // encrypted key as host key, plain key as user key; then the other way round (host key through hostKeyFiles)
        try (PqsshServer server = PqLogins.server().hostKeys(PqKeyPairProvider.fromFiles(List.of(encrypted), PASS))
                .publickey(auth.publickey()).start()) {
            login(server, plainKp, encPub);
        }
        try (PqsshServer server = PqLogins.server().hostKeyFiles(List.of(plain)).publickey(auth.publickey())
                .start()) {
            login(server, encKp, plainPub);
        }
    }

    private static void login(PqsshServer server, KeyPair user, SshPublicKey expectedHostKey) throws IOException {
        try (PqsshClient client = PqsshClient.builder().serverKeyVerifier((s, a, k) -> true).identity(user)
                .preferredAuthentications(List.of("publickey")).start();
                ClientSession s = client.login("alice", "127.0.0.1", server.port())) {
            assertTrue(s.isAuthenticated());
            assertEquals(COMPOSITE, s.getNegotiatedKexParameter(KexProposalOption.SERVERKEYS));
            assertEquals("mlkem768x25519-sha256", s.getNegotiatedKexParameter(KexProposalOption.ALGORITHMS));
            assertEquals(expectedHostKey, ((PqPublicKey) s.getServerKey()).sshPublicKey());
        }
    }

    @Test
    void encryptedKeyNeedsTheRightPassphrase(@TempDir Path dir) throws Exception {
        Path encrypted = PqLogins.vector(dir, "id_mldsa44_ed25519_encrypted");
        assertThrows(WrongPassphraseException.class, () -> PqKeyPairs.load(encrypted, "wrong".toCharArray()));
        IOException e = assertThrows(IOException.class,
                () -> PqKeyPairProvider.fromFiles(List.of(encrypted), null));
        assertTrue(e.getMessage().contains(encrypted.toString()) && e.getMessage().contains("passphrase"),
                e.getMessage());
    }
}
