package io.pqssh.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.server.login.Account;
import io.pqssh.server.login.AccountSource;
import io.pqssh.server.login.LoginPolicy;
import io.pqssh.server.session.RawAuthClient;
import io.pqssh.server.session.RawAuthClient.Reply;

/**
 * User enumeration on the wire: the same requests for an unknown name, a real account without the key or password,
 * and a locked account whose authorized_keys and password file hold exactly the key and password sent, get
 * byte-identical replies in the same order (no PK_OK, no KEM challenge, the same keyboard-interactive prompt, the
 * same USERAUTH_FAILURE). The timing side is measured by bench/auth-timing.sh, not asserted here.
 */
class UnknownUserRepliesTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final KemKeyPair KEM = MlKem.generate(KemAlgorithm.MLKEM768, RANDOM);
    private static final Map<String, String> SHADOW = Map.of(
            "alice", "alice:*:19000:0:99999:7:::",
            "locked", "locked:!:19000:0:99999:7:::");

    @TempDir
    static Path dir;
    private static KeyPair key;
    private static PqsshServer server;
    private static FileKeyAuthorizers files;

    @BeforeAll
    static void start() throws Exception {
        key = KeyUtils.generateKeyPair("ssh-ed25519", 256);
        for (String u : List.of("alice", "locked")) {
            Files.createDirectories(dir.resolve(u).resolve(".ssh"));
        }
        // the locked account holds the very key and password the client sends; alice holds other ones
        Files.writeString(dir.resolve("locked/.ssh/authorized_keys"),
                PublicKeyEntry.toString(key.getPublic()) + "\n" + new KemPublicKey(KemAlgorithm.MLKEM768,
                        KEM.publicKey()).toLine("k") + "\n");
        KeyPair other = KeyUtils.generateKeyPair("ssh-ed25519", 256);
        Files.writeString(dir.resolve("alice/.ssh/authorized_keys"), PublicKeyEntry.toString(other.getPublic()) + "\n");
        Path passwords = dir.resolve("passwords");
        Files.writeString(passwords, PasswordFile.hashLine("alice", "other".toCharArray()) + "\n"
                + PasswordFile.hashLine("locked", "right".toCharArray()) + "\n");

        AccountSource accounts = new AccountSource() {
            @Override
            public Optional<Account> byName(String name) {
                return SHADOW.containsKey(name)
                        ? Optional.of(new Account(name, 2000, 2000, dir.resolve(name), "/bin/sh"))
                        : Optional.empty();
            }

            @Override
            public Optional<String> shadowEntry(String name) {
                return Optional.ofNullable(SHADOW.get(name));
            }
        };
        files = new FileKeyAuthorizers(".ssh/authorized_keys", "none", false,
                u -> accounts.byName(u).map(Account::home), msg -> { });
        PasswordFile pw = new PasswordFile(passwords);
        server = PqsshServer.builder().host("127.0.0.1").port(0)
                .hostKeys(KeyPairProvider.wrap(KeyUtils.generateKeyPair("ssh-ed25519", 256)))
                .publickey(files.publickey())
                .kem(KemServerSettings.builder().allowedAlgorithms(EnumSet.of(KemAlgorithm.MLKEM768))
                        .authorizer(files.kem()).build())
                .kemAnd(false).password(pw).keyboardInteractive(pw).maxAuthTries(100)
                .validUser(u -> accounts.byName(u).isPresent())
                .logins(LoginPolicy.switchingUsers(accounts)).start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void unknownLockedAndWrongKeyUsersGetTheSameBytes() throws Exception {
        List<byte[]> ghost = exchange("ghost" + RANDOM.nextInt(1000));
        List<byte[]> alice = exchange("alice");
        List<byte[]> locked = exchange("locked");
        assertEquals(ghost.size(), alice.size(), "number of replies");
        for (int i = 0; i < ghost.size(); i++) {
            assertArrayEquals(alice.get(i), ghost.get(i), "reply " + i + " unknown user vs real account");
            assertArrayEquals(alice.get(i), locked.get(i), "reply " + i + " locked account vs real account");
        }
        // the exchange itself went as a failed login does: prompts where expected, the rest FAILURE
        assertEquals(SshConstants.SSH_MSG_USERAUTH_INFO_REQUEST, alice.get(4)[0]);
        for (int i : new int[] {0, 1, 2, 3, 5, 6, 7}) {
            assertEquals(SshConstants.SSH_MSG_USERAUTH_FAILURE, alice.get(i)[0], "reply " + i);
        }
    }

    @Test
    void lockedHoldsTheKeysAndPasswordSentAndAliceDoesNot() throws Exception {
        // so the identical replies above come from the refusal, not from files that would refuse anyway
        ByteArrayBuffer blob = new ByteArrayBuffer();
        blob.putRawPublicKey(key.getPublic());
        assertTrue(files.keysFor("locked").find(blob.getCompactData(), "127.0.0.1", java.time.Instant.now())
                .isPresent());
        assertTrue(files.keysFor("locked").findKem(KemAlgorithm.MLKEM768, KEM.publicKey(), "127.0.0.1",
                java.time.Instant.now()).isPresent());
        assertFalse(files.keysFor("alice").find(blob.getCompactData(), "127.0.0.1", java.time.Instant.now())
                .isPresent());
        PasswordFile pw = new PasswordFile(dir.resolve("passwords"));
        assertTrue(pw.authenticate("locked", "right", null));
        assertFalse(pw.authenticate("alice", "right", null));
        assertFalse(pw.authenticate("nobody-here", "right", null));
    }

    /** Eight requests, each answered; the replies' raw payloads (message number first). */
    private static List<byte[]> exchange(String user) throws Exception {
        List<byte[]> out = new ArrayList<>();
        try (RawAuthClient c = RawAuthClient.connect(user, server.port(), null)) {
            c.none(user);
            out.add(payload(c.next()));
            c.request(user, "publickey", b -> publicKey(b, key, false));
            out.add(payload(c.next()));
            c.request(user, "publickey", b -> publicKey(b, key, true));
            out.add(payload(c.next()));
            c.password(user, "right");
            out.add(payload(c.next()));
            c.request(user, "keyboard-interactive", b -> {
                b.putString("");
                b.putString("");
            });
            out.add(payload(c.next()));
            c.raw(SshConstants.SSH_MSG_USERAUTH_INFO_RESPONSE, b -> {
                b.putInt(1);
                b.putString("right");
            });
            out.add(payload(c.next()));
            c.kem(user, "mlkem768", KEM.publicKey());
            out.add(payload(c.next()));
            c.password(user, "wrong");
            out.add(payload(c.next()));
        }
        return out;
    }

    private static void publicKey(org.apache.sshd.common.util.buffer.Buffer b, KeyPair k, boolean withSignature) {
        b.putBoolean(withSignature);
        b.putString("ssh-ed25519");
        b.putPublicKey(k.getPublic());
        if (withSignature) {
            ByteArrayBuffer sig = new ByteArrayBuffer();
            sig.putString("ssh-ed25519");
            sig.putBytes(new byte[64]);
            b.putBytes(sig.getCompactData());
        }
    }

    private static byte[] payload(Reply r) {
        assertFalse(r.closed(), "the server closed the connection: " + r);
        byte[] p = r.payload();
        byte[] out = new byte[p.length + 1];
        out[0] = (byte) r.cmd();
        System.arraycopy(p, 0, out, 1, p.length);
        return out;
    }
}
