package io.pqssh.mina.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.List;

import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.keyverifier.KnownHostsServerKeyVerifier;
import org.apache.sshd.client.keyverifier.RejectAllServerKeyVerifier;
import org.apache.sshd.client.keyverifier.ServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.kex.KexProposalOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.client.PqsshClient;
import io.pqssh.client.keys.CompositeKeyConversion;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshPublicKey;
import io.pqssh.mina.ServerSessionWatch;
import io.pqssh.server.FileKeyAuthorizers;
import io.pqssh.server.PqsshServer;

/**
 * OpenSSH 10.6's {@code ssh-mldsa44-ed25519} beside 10.4/10.5's {@code ssh-mldsa44-ed25519@openssh.com}, pqssh
 * client to pqssh server: one server holding a host key of each name, user keys of each name (one of them OpenSSH
 * 10.5's own key converted by {@code pqssh keygen --convert-to}), authorized_keys and known_hosts lines of each name.
 * The names never stand in for each other: a key authorized or known under one name is not accepted under the other.
 */
class OpenSsh106CompositeLoginTest {
    private static final String IETF = "ssh-mldsa44-ed25519";
    private static final String OLD = "ssh-mldsa44-ed25519@openssh.com";
    private static final char[] PASS = PqLogins.VECTOR_PASSPHRASE.toCharArray();

    private static PqsshClient client(ServerKeyVerifier v, KeyPair user, Path orderFrom) {
        PqsshClient.Builder b = PqsshClient.builder().serverKeyVerifier(v).identity(user)
                .preferredAuthentications(List.of("publickey"));
        if (orderFrom != null) {
            b.hostKeyOrderFrom(orderFrom);
        }
        return b.start();
    }

    private static SshPublicKey pub(Path keyFile, char[] pass) throws Exception {
        return ((PqPublicKey) PqKeyPairs.load(keyFile, pass).get(0).getPublic()).sshPublicKey();
    }

    @Test
    void bothNamesAsHostKeysUserKeysAndKnownHosts(@TempDir Path dir) throws Exception {
        Path hostOld = PqLogins.vector(dir, "id_mldsa44_ed25519");
        Path hostNew = PqLogins.keyFile(dir, "host_ietf", SignatureKeyType.MLDSA44_ED25519_IETF);
        SshPublicKey hostOldPub = pub(hostOld, null);
        SshPublicKey hostNewPub = pub(hostNew, null);
        assertEquals(OLD, hostOldPub.name());
        assertEquals(IETF, hostNewPub.name());

        Path oldUserFile = PqLogins.vector(dir, "id_mldsa44_ed25519_encrypted");
        Path convertedFile = dir.resolve("id_converted");
        CompositeKeyConversion.convert(oldUserFile, convertedFile, SignatureKeyType.MLDSA44_ED25519_IETF, PASS, null);
        KeyPair oldUser = PqKeyPairs.load(oldUserFile, PASS).get(0);
        KeyPair converted = PqKeyPairs.load(convertedFile, null).get(0);
        KeyPair freshUser = PqKeyPairs.load(PqLogins.keyFile(dir, "id_ietf", SignatureKeyType.MLDSA44_ED25519_IETF),
                null).get(0);
        assertEquals(IETF, PqLogins.type(converted));
        assertEquals(OLD, PqLogins.type(oldUser));

        // authorized_keys: the 10.5 key under its own name and the fresh 10.6 key; the converted key is not in it
        FileKeyAuthorizers auth = PqLogins.authorizedKeys(dir.resolve("ak"), oldUser.getPublic(),
                freshUser.getPublic());
        try (PqsshServer server = PqLogins.server().hostKeyFiles(List.of(hostOld, hostNew)).publickey(auth.publickey())
                .start()) {
            int port = server.port();
            // nothing known: the 10.6 name comes first in pqssh's list, as it is OpenSSH 10.6's default
            try (PqsshClient c = client(AcceptAllServerKeyVerifier.INSTANCE, freshUser, dir.resolve("none"));
                    ClientSession s = c.login("alice", "127.0.0.1", port)) {
                assertTrue(s.isAuthenticated());
                assertEquals(IETF, s.getNegotiatedKexParameter(KexProposalOption.SERVERKEYS));
                assertEquals(hostNewPub, ((PqPublicKey) s.getServerKey()).sshPublicKey());
            }
            // the 10.5 user key still logs in beside it
            try (PqsshClient c = client(AcceptAllServerKeyVerifier.INSTANCE, oldUser, dir.resolve("none"));
                    ClientSession s = c.login("alice", "127.0.0.1", port)) {
                assertTrue(s.isAuthenticated());
            }
            // the same seeds under the new name are another key: not authorized by the 10.5 line
            ServerSessionWatch w = ServerSessionWatch.on(server.sshd());
            try (PqsshClient c = client(AcceptAllServerKeyVerifier.INSTANCE, converted, dir.resolve("none"))) {
                assertThrows(Exception.class, () -> c.login("alice", "127.0.0.1", port));
            }
            assertFalse(w.anyAuthenticated(), "a key authorized under one name must not log in under the other");

            // known_hosts of either name: the known key's name is asked for, and the strict check passes
            for (SshPublicKey known : List.of(hostOldPub, hostNewPub)) {
                Path kh = dir.resolve("known_hosts_" + known.name().replace('@', '_'));
                Files.writeString(kh, "[127.0.0.1]:" + port + " " + known.toOpenSsh(null) + "\n");
                KnownHostsServerKeyVerifier strict = new KnownHostsServerKeyVerifier(
                        RejectAllServerKeyVerifier.INSTANCE, kh);
                try (PqsshClient c = client(strict, oldUser, kh);
                        ClientSession s = c.login("alice", "127.0.0.1", port)) {
                    assertTrue(s.isAuthenticated());
                    assertEquals(known.name(), s.getNegotiatedKexParameter(KexProposalOption.SERVERKEYS));
                    assertEquals(known, ((PqPublicKey) s.getServerKey()).sshPublicKey());
                }
            }
        }

        // the converted key logs in once its own 10.6 line is authorized; and accept-new writes a 10.6 line
        FileKeyAuthorizers auth2 = PqLogins.authorizedKeys(dir.resolve("ak2"), converted.getPublic());
        Path kh = dir.resolve("known_hosts");
        try (PqsshServer server = PqLogins.server().hostKeyFiles(List.of(hostNew)).publickey(auth2.publickey())
                .start()) {
            try (PqsshClient c = client(new KnownHostsServerKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE, kh),
                    converted, kh); ClientSession s = c.login("alice", "127.0.0.1", server.port())) {
                assertTrue(s.isAuthenticated());
            }
            String line = Files.readAllLines(kh).stream().filter(l -> !l.isBlank()).findFirst().orElseThrow();
            assertEquals(hostNewPub, SshPublicKey.parseOpenSsh(line.split(" ", 2)[1]));
            assertTrue(line.split(" ", 2)[1].startsWith(IETF + " "), line);
        }
    }

    /** A known_hosts line under the old name does not vouch for the same key bytes under the new name. */
    @Test
    void knownHostsLineOfTheOtherNameDoesNotMatch(@TempDir Path dir) throws Exception {
        Path hostOld = PqLogins.vector(dir, "id_mldsa44_ed25519");
        Path hostConverted = dir.resolve("host_converted");
        CompositeKeyConversion.convert(hostOld, hostConverted, SignatureKeyType.MLDSA44_ED25519_IETF, null, null);
        KeyPair user = PqKeyPairs.load(PqLogins.keyFile(dir, "id", SignatureKeyType.MLDSA_44), null).get(0);
        FileKeyAuthorizers auth = PqLogins.authorizedKeys(dir.resolve("ak"), user.getPublic());
        Path kh = dir.resolve("known_hosts");
        try (PqsshServer server = PqLogins.server().hostKeyFiles(List.of(hostConverted)).publickey(auth.publickey())
                .start()) {
            Files.writeString(kh, "[127.0.0.1]:" + server.port() + " " + pub(hostOld, null).toOpenSsh(null) + "\n");
            ServerSessionWatch w = ServerSessionWatch.on(server.sshd());
            try (PqsshClient c = client(new KnownHostsServerKeyVerifier(RejectAllServerKeyVerifier.INSTANCE, kh),
                    user, kh)) {
                assertThrows(Exception.class, () -> c.login("alice", "127.0.0.1", server.port()));
            }
            assertFalse(w.anyAuthenticated());
        }
    }
}
