package io.pqssh.mina.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.signature.Signature;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.keys.KeyFilePermissions;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.mina.LoopbackClient;
import io.pqssh.mina.LoopbackServer;

/**
 * Every signature key type as host key and as {@code publickey} user key between plain MINA peers with
 * {@code Pqssh.install}, KEX mlkem768x25519-sha256. Host keys are generated in memory, user keys go through an
 * openssh-key-v1 file and {@link PqKeyPairs#load}. One server holds a host key of every type; login i asks for host
 * key type i and logs in with user key type i+1, so each type is used once per role.
 */
class PqKeyLoginMatrixTest {
    private static final List<SignatureKeyType> TYPES = Arrays.asList(SignatureKeyType.values());
    private static final SecureRandom RANDOM = new SecureRandom();

    @Test
    void everyTypeAsHostKeyAndAsUserKey(@TempDir Path dir) throws Exception {
        List<KeyPair> hosts = new ArrayList<>();
        List<KeyPair> users = new ArrayList<>();
        for (SignatureKeyType t : TYPES) {
            hosts.add(PqKeyPairs.keyPair(SshSigningKey.generate(t, RANDOM)));
            SshSigningKey k = SshSigningKey.generate(t, RANDOM);
            Path f = dir.resolve("id_" + t.name());
            KeyFilePermissions.writePrivateKeyFile(f, OpenSshKeyV1.write(k, "id", null, RANDOM));
            users.add(PqKeyPairs.load(f, null).get(0));
        }
        try (LoopbackServer server = LoopbackServer.builder().hostKeys(PqKeyPairProvider.of(hosts))
                .publickey((u, k, s) -> "alice".equals(u)
                        && users.stream().anyMatch(kp -> KeyUtils.compareKeys(k, kp.getPublic())))
                .options(o -> o.kex(List.of("mlkem768x25519-sha256"))).start()) {
            List<String> done = new ArrayList<>();
            for (int i = 0; i < TYPES.size(); i++) {
                String hostType = TYPES.get(i).sshName();
                KeyPair user = users.get((i + 1) % TYPES.size());
                String userType = KeyUtils.getKeyType(user.getPublic());
                long t0 = System.nanoTime();
                try (LoopbackClient client = LoopbackClient.builder().identity(user)
                        .options(o -> o.kex(List.of("mlkem768x25519-sha256"))).start()) {
                    // this client asks for exactly one host key type, and can sign with the user key's type
                    client.sshClient().setSignatureFactories(List.of(factory(hostType), factory(userType)));
                    try (ClientSession s = client.login("alice", server.port())) {
                        assertTrue(s.isAuthenticated(), hostType + " / " + userType);
                        assertEquals(hostType, s.getNegotiatedKexParameter(KexProposalOption.SERVERKEYS));
                        assertEquals(hostType, KeyUtils.getKeyType(s.getServerKey()));
                        assertEquals("pq\n", client.exec(s, "pq"));
                    }
                } catch (Exception e) {
                    throw new AssertionError("login with host key " + hostType + " and user key " + userType
                            + " failed: " + e, e);
                }
                done.add(String.format("%s/%s %d ms", hostType, userType, (System.nanoTime() - t0) / 1_000_000));
            }
            assertEquals(TYPES.size(), server.sessions().stream().filter(s -> s.isAuthenticated()).count(),
                    "one authenticated server session per login");
            System.out.println("PQ key login matrix: " + done);
        }
    }

    private static NamedFactory<Signature> factory(String name) {
        NamedFactory<Signature> f = PqSignatureFactories.byName().get(name);
        if (f == null) {
            f = org.apache.sshd.common.signature.BuiltinSignatures.fromFactoryName(name);
        }
        if (f == null) {
            throw new IllegalArgumentException("no signature factory " + name);
        }
        return f;
    }
}
