package io.pqssh.mina.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.kex.KexProposalOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.mina.ServerSessionWatch;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.PqsshServer;

/**
 * Every signature key type as host key and as {@code publickey} user key over loopback, KEX mlkem768x25519-sha256.
 * One server holds a host key of every type (loaded from openssh-key-v1 files); login i asks for host key type i
 * and logs in with user key type i+1, so each type is used once per role.
 */
class PqKeyLoginMatrixTest {
    private static final List<SignatureKeyType> TYPES = Arrays.asList(SignatureKeyType.values());

    @Test
    void everyTypeAsHostKeyAndAsUserKey(@TempDir Path dir) throws Exception {
        List<Path> hostFiles = new ArrayList<>();
        List<KeyPair> users = new ArrayList<>();
        for (SignatureKeyType t : TYPES) {
            hostFiles.add(PqLogins.keyFile(dir, "host_" + t.name(), t));
            users.add(PqKeyPairs.load(PqLogins.keyFile(dir, "id_" + t.name(), t), null).get(0));
        }
        var auth = PqLogins.authorizedKeys(dir.resolve("authorized_keys"),
                users.stream().map(KeyPair::getPublic).toArray(java.security.PublicKey[]::new));
        try (PqsshServer server = PqLogins.server().hostKeyFiles(hostFiles).publickey(auth.publickey())
                .kex(List.of("mlkem768x25519-sha256")).start()) {
            ServerSessionWatch watch = ServerSessionWatch.on(server);
            List<String> done = new ArrayList<>();
            for (int i = 0; i < TYPES.size(); i++) {
                String hostType = TYPES.get(i).sshName();
                KeyPair user = users.get((i + 1) % TYPES.size());
                String userType = PqLogins.type(user);
                long t0 = System.nanoTime();
                try (PqsshClient client = PqsshClient.builder().serverKeyVerifier((s, a, k) -> true)
                        .kex(List.of("mlkem768x25519-sha256")).identity(user)
                        .preferredAuthentications(List.of("publickey")).start()) {
                    // this client asks for exactly one host key type, and can sign with the user key's type
                    client.sshClient().setSignatureFactories(List.of(PqLogins.factory(hostType),
                            PqLogins.factory(userType)));
                    try (ClientSession s = client.login("alice", "127.0.0.1", server.port())) {
                        assertTrue(s.isAuthenticated(), hostType + " / " + userType);
                        assertEquals(hostType, s.getNegotiatedKexParameter(KexProposalOption.SERVERKEYS));
                        assertEquals("mlkem768x25519-sha256",
                                s.getNegotiatedKexParameter(KexProposalOption.ALGORITHMS));
                        assertEquals(hostType, org.apache.sshd.common.config.keys.KeyUtils.getKeyType(
                                s.getServerKey()));
                    }
                } catch (Exception e) {
                    throw new AssertionError("login with host key " + hostType + " and user key " + userType
                            + " failed: " + PqLogins.causes(e), e);
                }
                done.add(String.format("%s/%s %d ms", hostType, userType, (System.nanoTime() - t0) / 1_000_000));
            }
            assertEquals(TYPES.size(), watch.sessions().stream().filter(s -> s.isAuthenticated()
                    || s.getUsername() != null).count(), "one server session per login");
            System.out.println("PQ key login matrix: " + done);
        }
    }
}
