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

import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshPublicKey;
import io.pqssh.mina.ServerSessionWatch;
import io.pqssh.client.PqsshClient;
import io.pqssh.mina.internal.keys.HostKeyAlgorithmOrder;
import io.pqssh.server.FileKeyAuthorizers;
import io.pqssh.server.PqsshServer;

/** known_hosts with PQ host keys through MINA's KnownHostsServerKeyVerifier, and the host key algorithm order. */
class PqKnownHostsTest {
    private static PqsshClient client(ServerKeyVerifier v, KeyPair user, Path orderFrom) {
        PqsshClient.Builder b = PqsshClient.builder().serverKeyVerifier(v).identity(user)
                .preferredAuthentications(List.of("publickey"));
        if (orderFrom != null) {
            b.hostKeyOrderFrom(orderFrom);
        }
        return b.start();
    }

    @Test
    void acceptNewWritesThePqKeyThenChecksItAndRefusesAChangedOne(@TempDir Path dir) throws Exception {
        KeyPair user = PqKeyPairs.load(PqLogins.keyFile(dir, "id", SignatureKeyType.MLDSA_44), null).get(0);
        FileKeyAuthorizers auth = PqLogins.authorizedKeys(dir.resolve("ak"), user.getPublic());
        Path hostFile = PqLogins.keyFile(dir, "host1", SignatureKeyType.MLDSA_65);
        Path otherHostFile = PqLogins.keyFile(dir, "host2", SignatureKeyType.MLDSA_65);
        SshPublicKey hostPub = ((PqPublicKey) PqKeyPairs.load(hostFile, null).get(0).getPublic()).sshPublicKey();
        Path kh = dir.resolve("known_hosts");
        int port;
        try (PqsshServer server = PqLogins.server().hostKeyFiles(List.of(hostFile)).publickey(auth.publickey())
                .start()) {
            port = server.port();
            // accept-new: unknown host, key accepted and written
            try (PqsshClient c = client(new KnownHostsServerKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE, kh),
                    user, kh); ClientSession s = c.login("alice", "127.0.0.1", port)) {
                assertTrue(s.isAuthenticated());
            }
            List<String> lines = Files.readAllLines(kh).stream().filter(l -> !l.isBlank()).toList();
            assertEquals(1, lines.size(), String.valueOf(lines));
            String[] f = lines.get(0).split(" ", 2);
            assertEquals("[127.0.0.1]:" + port, f[0]);
            assertEquals(hostPub, SshPublicKey.parseOpenSsh(f[1]), "known_hosts line must hold the OpenSSH blob");
            assertTrue(f[1].startsWith("ssh-mldsa-65 "), f[1]);
            // strict: the written line is the only way in
            try (PqsshClient c = client(new KnownHostsServerKeyVerifier(RejectAllServerKeyVerifier.INSTANCE, kh),
                    user, kh); ClientSession s = c.login("alice", "127.0.0.1", port)) {
                assertTrue(s.isAuthenticated());
            }
        }
        // same host and port, different ML-DSA-65 key: refused even in accept-new mode, nothing authenticated
        String before = Files.readString(kh);
        try (PqsshServer server = PqLogins.server().port(port).hostKeyFiles(List.of(otherHostFile))
                .publickey(auth.publickey()).start()) {
            ServerSessionWatch w = ServerSessionWatch.on(server.sshd());
            try (PqsshClient c = client(new KnownHostsServerKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE, kh),
                    user, kh)) {
                Exception e = assertThrows(Exception.class, () -> c.login("alice", "127.0.0.1", port));
                assertTrue(PqLogins.causes(e).toLowerCase(java.util.Locale.ROOT).contains("server key"),
                        PqLogins.causes(e));
            }
            assertFalse(w.anyAuthenticated());
        }
        assertEquals(before, Files.readString(kh), "a changed key must not be written");
    }

    @Test
    void knownPqHostKeyIsAskedForFirst(@TempDir Path dir) throws Exception {
        KeyPair user = PqKeyPairs.load(PqLogins.keyFile(dir, "id", SignatureKeyType.ED25519), null).get(0);
        FileKeyAuthorizers auth = PqLogins.authorizedKeys(dir.resolve("ak"), user.getPublic());
        Path ed = PqLogins.keyFile(dir, "host_ed25519", SignatureKeyType.ED25519);
        Path comp = PqLogins.keyFile(dir, "host_comp", SignatureKeyType.MLDSA44_ED25519);
        SshPublicKey compPub = ((PqPublicKey) PqKeyPairs.load(comp, null).get(0).getPublic()).sshPublicKey();
        try (PqsshServer server = PqLogins.server().hostKeyFiles(List.of(ed, comp)).publickey(auth.publickey())
                .start()) {
            int port = server.port();
            // nothing known: the default order (classical first, as OpenSSH 10.5) gives Ed25519
            try (PqsshClient c = client(AcceptAllServerKeyVerifier.INSTANCE, user, dir.resolve("none"));
                    ClientSession s = c.login("alice", "127.0.0.1", port)) {
                assertEquals("ssh-ed25519", s.getNegotiatedKexParameter(KexProposalOption.SERVERKEYS));
            }
            Path kh = dir.resolve("known_hosts");
            Files.writeString(kh, "[127.0.0.1]:" + port + " " + compPub.toOpenSsh(null) + "\n");
            KnownHostsServerKeyVerifier strict = new KnownHostsServerKeyVerifier(RejectAllServerKeyVerifier.INSTANCE,
                    kh);
            // the known composite key moves its algorithm to the front, so the strict check passes
            try (PqsshClient c = client(strict, user, kh); ClientSession s = c.login("alice", "127.0.0.1", port)) {
                assertEquals("ssh-mldsa44-ed25519@openssh.com",
                        s.getNegotiatedKexParameter(KexProposalOption.SERVERKEYS));
                assertTrue(s.isAuthenticated());
            }
            // without the ordering the server offers Ed25519, which known_hosts does not hold: refused
            try (PqsshClient c = client(new KnownHostsServerKeyVerifier(RejectAllServerKeyVerifier.INSTANCE, kh),
                    user, null)) {
                assertThrows(Exception.class, () -> c.login("alice", "127.0.0.1", port));
            }
        }
    }

    @Test
    void orderPutsKnownPqTypesFirstThenKnownClassicalThenTheRest() {
        var base = PqSignatureFactories.withPq(org.apache.sshd.client.ClientBuilder.builder().build()
                .getSignatureFactories());
        var ordered = HostKeyAlgorithmOrder.order(base, java.util.Set.of("ssh-rsa", "ssh-falcon512"));
        List<String> names = ordered.stream().map(org.apache.sshd.common.NamedResource::getName).toList();
        // a known key's certificate algorithms come with it, as OpenSSH asks for certificates first
        assertEquals(List.of("ssh-falcon512-cert-v01@openssh.com", "ssh-falcon512"), names.subList(0, 2),
                String.valueOf(names));
        assertEquals(List.of("rsa-sha2-512-cert-v01@openssh.com", "rsa-sha2-256-cert-v01@openssh.com"),
                names.subList(2, 4), String.valueOf(names));
        assertTrue(names.subList(4, 7).containsAll(List.of("rsa-sha2-512", "rsa-sha2-256", "ssh-rsa")),
                String.valueOf(names));
        assertEquals(base.size(), names.size());
        assertEquals(base.stream().map(org.apache.sshd.common.NamedResource::getName).toList(),
                HostKeyAlgorithmOrder.order(base, java.util.Set.of()).stream()
                        .map(org.apache.sshd.common.NamedResource::getName).toList());
    }
}
