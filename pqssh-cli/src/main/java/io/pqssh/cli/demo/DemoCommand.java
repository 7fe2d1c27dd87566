package io.pqssh.cli.demo;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.Callable;

import org.apache.sshd.client.keyverifier.KnownHostsServerKeyVerifier;
import org.apache.sshd.client.keyverifier.RejectAllServerKeyVerifier;
import org.apache.sshd.client.keyverifier.ServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.keyprovider.KeyPairProvider;

import io.pqssh.core.auth.KemCredential;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.PqsshServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Starts an embedded server on loopback and logs in once with each authentication method, printing what each
 * login cost on the wire. Everything is real: keys are generated, the host key is checked, bytes are counted by a
 * relay between client and server.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Start an embedded server on loopback, log in with each method, print a table.")
public final class DemoCommand implements Callable<Integer> {
    @Option(names = "--kex", defaultValue = "mlkem768x25519-sha256", description = "Key exchange (default: ${DEFAULT-VALUE}).")
    String kex;

    private final PrintStream out;

    public DemoCommand() {
        this(System.out);
    }

    DemoCommand(PrintStream out) {
        this.out = out;
    }

    record Row(String method, String credential, String kex, long c2s, long s2c, double millis, String result) {
    }

    @Override
    public Integer call() throws Exception {
        SecureRandom rnd = new SecureRandom();
        KeyPair hostKey = KeyUtils.generateKeyPair("ssh-ed25519", 256);
        KeyPair userEd = KeyUtils.generateKeyPair("ssh-ed25519", 256);
        List<KemKeyPair> kemKeys = new ArrayList<>();
        for (KemAlgorithm a : KemAlgorithm.values()) {
            kemKeys.add(MlKem.generate(a, rnd));
        }
        KemServerSettings kemSettings = KemServerSettings.builder()
                .allowedAlgorithms(EnumSet.allOf(KemAlgorithm.class))
                .authorizer((String user, KemCredential c, String addr) -> "demo".equals(user)
                        && kemKeys.stream().anyMatch(k -> c.samePublicKey(k.publicKey())))
                .build();
        String password = "demo-" + Long.toHexString(rnd.nextLong());
        List<Row> rows = new ArrayList<>();
        java.nio.file.Path knownHosts = java.nio.file.Files.createTempFile("pqssh-demo-known_hosts", "");
        try {
            // the demo pins the host key like a real client: known_hosts holds the embedded server's key
            rows.addAll(runAll(hostKey, userEd, kemKeys, kemSettings, password, knownHosts));
        } finally {
            java.nio.file.Files.deleteIfExists(knownHosts);
            kemKeys.forEach(KemKeyPair::destroy);
        }
        print(rows);
        return rows.stream().allMatch(r -> r.result().equals("ok")) ? 0 : 1;
    }

    private List<Row> runAll(KeyPair hostKey, KeyPair userEd, List<KemKeyPair> kemKeys,
            KemServerSettings kemSettings, String password, java.nio.file.Path knownHosts) throws Exception {
        List<Row> rows = new ArrayList<>();
        record Case(String method, String credential, String serverMethods, KemClientIdentity kem, KeyPair sig,
                String password) {
        }
        List<Case> cases = new ArrayList<>();
        for (KemKeyPair k : kemKeys) {
            cases.add(new Case("publickey-kem", k.algorithm().sshName(), "publickey-kem", KemClientIdentity.of(k),
                    null, null));
        }
        KemKeyPair k768 = kemKeys.get(KemAlgorithm.MLKEM768.ordinal());
        cases.add(new Case("publickey-kem-and", "ssh-ed25519 + mlkem768", "publickey-kem-and",
                new KemClientIdentity(k768, null, userEd), null, null));
        cases.add(new Case("publickey,publickey-kem", "ssh-ed25519, mlkem768", "publickey,publickey-kem",
                KemClientIdentity.of(k768), userEd, null));
        cases.add(new Case("publickey", "ssh-ed25519", "publickey", null, userEd, null));
        cases.add(new Case("password", "password", "password", null, null, password));
        for (Case c : cases) {
            try (PqsshServer server = PqsshServer.builder().systemShell().sftp(true).host("127.0.0.1").port(0)
                    .hostKeys(KeyPairProvider.wrap(hostKey)).kem(kemSettings).kex(List.of(kex))
                    .publickey((u, key, s) -> "demo".equals(u) && KeyUtils.compareKeys(key, userEd.getPublic()))
                    .password((u, p, s) -> "demo".equals(u) && password.equals(p))
                    .authenticationMethods(c.serverMethods()).start();
                    ByteCountingRelay relay = new ByteCountingRelay(
                            new InetSocketAddress("127.0.0.1", server.port()))) {
                pinHostKey(knownHosts, relay.port(), hostKey);
                ServerKeyVerifier verifier = new KnownHostsServerKeyVerifier(RejectAllServerKeyVerifier.INSTANCE,
                        knownHosts);
                PqsshClient.Builder b = PqsshClient.builder().serverKeyVerifier(verifier).kex(List.of(kex))
                        .kemIdentity(c.kem());
                if (c.sig() != null) {
                    b.identity(c.sig());
                }
                if (c.password() != null) {
                    b.password(c.password());
                }
                try (PqsshClient client = b.start()) {
                    long t0 = System.nanoTime();
                    String result;
                    String negotiated = "?";
                    try (ClientSession s = client.login("demo", "127.0.0.1", relay.port())) {
                        negotiated = s.getNegotiatedKexParameter(KexProposalOption.ALGORITHMS);
                        int rc = PqsshClient.exec(s, "true", new java.io.ByteArrayOutputStream(),
                                new java.io.ByteArrayOutputStream(), Duration.ofSeconds(20));
                        result = rc == 0 ? "ok" : "exit " + rc;
                    } catch (Exception e) {
                        result = "FAILED: " + e.getMessage();
                    }
                    double ms = (System.nanoTime() - t0) / 1e6;
                    waitForQuiet(relay);
                    rows.add(new Row(c.method(), c.credential(), negotiated, relay.clientToServerBytes(),
                            relay.serverToClientBytes(), ms, result));
                }
            }
        }
        return rows;
    }

    private static void pinHostKey(java.nio.file.Path knownHosts, int port, KeyPair hostKey) throws Exception {
        String line = "[127.0.0.1]:" + port + " " + org.apache.sshd.common.config.keys.PublicKeyEntry
                .toString(hostKey.getPublic()) + "\n";
        java.nio.file.Files.writeString(knownHosts, line);
    }

    /** The relay counts asynchronously: wait (bounded) until both counters stop moving. */
    private static void waitForQuiet(ByteCountingRelay relay) throws InterruptedException {
        long last = -1;
        for (int i = 0; i < 50; i++) {
            long now = relay.clientToServerBytes() + relay.serverToClientBytes();
            if (now == last) {
                return;
            }
            last = now;
            Thread.sleep(20);
        }
    }

    private void print(List<Row> rows) {
        String fmt = "%-24s %-24s %-22s %9s %9s %9s  %s%n";
        out.printf(fmt, "method", "credential", "key exchange", "C->S B", "S->C B", "time ms", "result");
        for (Row r : rows) {
            out.printf(fmt, r.method(), r.credential(), r.kex(), r.c2s(), r.s2c(),
                    String.format("%.1f", r.millis()), r.result());
        }
        out.println();
        out.println("Bytes are TCP payload through a loopback relay for connect + login + exec 'true' + close;"
                + " times include JVM warm-up for the first rows.");
    }
}
