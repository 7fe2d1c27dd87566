package io.pqssh.lab.handshake;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;

import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.client.PqsshClient;

/**
 * The lab's pqssh client agent, run inside the client namespace. Reads one request per line:
 * {@code RUN host port kex1,kex2 hostkey auth [user keyfile]}; for each it builds a fresh {@link PqsshClient}, connects, authenticates
 * as {@link LabServer#USER}, runs {@code true} and closes, then answers
 * {@code OK localPort tConnectStart tConnected tAuth tDone exitStatus kex hostKey written read}
 * ({@link System#nanoTime()} values: the same CLOCK_MONOTONIC as the link emulator's ruler; written/read are the
 * TCP payload bytes MINA's transport wrote and read on the connection, see {@link MinaByteCounter}) or
 * {@code ERR message}. Keys are made before the clock starts.
 */
public final class LabClient {
    /**
     * The servers' last KEXINITs, kept across this agent's logins like {@code pqssh ssh}'s file beside known_hosts:
     * the first login to a server does not guess the first KEX packet, later ones guess right.
     */
    private static final io.pqssh.client.kex.ServerProposalCache KEX_GUESS_CACHE =
            io.pqssh.client.kex.ServerProposalCache.inMemory();

    private LabClient() {
    }

    public static void main(String[] args) throws Exception {
        MinaByteCounter.install();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.out.println("READY");
        System.out.flush();
        for (String line; (line = in.readLine()) != null;) {
            String[] f = line.trim().split(" ");
            if ((f.length != 6 && f.length != 8) || !f[0].equals("RUN")) {
                System.out.println("ERR bad request");
                System.out.flush();
                continue;
            }
            try {
                System.out.println(run(f[1], Integer.parseInt(f[2]), List.of(f[3].split(",")), f[4], f[5],
                        f.length == 8 ? f[6] : LabServer.USER, f.length == 8 ? java.nio.file.Path.of(f[7]) : null));
            } catch (Exception e) {
                System.out.println("ERR " + String.valueOf(e.getMessage()).replace('\n', ' '));
            }
            System.out.flush();
        }
    }

    /**
     * One login. {@code keyFile} (an OpenSSH private key) replaces the lab's own key for {@code auth} and {@code user}
     * the lab user: that is how the agent logs in to the OpenSSH peer's sshd.
     */
    static String run(String host, int port, List<String> kex, String hostKey, String auth, String user,
            java.nio.file.Path keyFile) throws Exception {
        PqsshClient.Builder b = PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE)
                .warningSink(w -> { }).kex(kex).timeout(Duration.ofSeconds(60)).kexGuessCache(KEX_GUESS_CACHE)
                // the lab's figures compare clients on OpenSSH's publickey flow (query, PK_OK, signed request), as
                // the paper's: pqssh ssh signs at once by default, the lab only with -Dpqssh.client.pubkeySignDirectly
                .pubkeySignDirectly(Boolean.getBoolean("pqssh.client.pubkeySignDirectly"));
        Credentials cred = keyFile == null ? Credentials.of(auth)
                : new Credentials(List.of("publickey"), io.pqssh.mina.keys.PqKeyPairs.load(keyFile, null), null, false);
        b.preferredAuthentications(cred.methods);
        if (cred.password) {
            b.password(LabServer.PASSWORD);
        }
        try (PqsshClient client = b.start()) {
            // like a returning user whose known_hosts holds the host key: its algorithm first (HostKeyAlgorithmOrder)
            String hostKeyType = HandshakeConfig.SIG_TYPES.get(hostKey);
            if (hostKeyType != null) {
                client.sshClient().setSignatureFactories(io.pqssh.mina.internal.keys.HostKeyAlgorithmOrder.order(
                        client.sshClient().getSignatureFactories(), java.util.Set.of(hostKeyType)));
            }
            long t0 = System.nanoTime();
            ClientSession s = client.sshClient().connect(user, host, port).verify(Duration.ofSeconds(60))
                    .getSession();
            long t1 = System.nanoTime();
            MinaByteCounter.Counted counted = MinaByteCounter.of(s.getIoSession());
            if (counted == null) {
                throw new IllegalStateException("MINA transport is not the counting one: " + s.getIoSession());
            }
            String result;
            try (s) {
                if (cred.password) {
                    s.addPasswordIdentity(LabServer.PASSWORD);
                }
                if (cred.kem != null) {
                    s.setAttribute(io.pqssh.mina.auth.ClientKemUserAuthFactory.IDENTITY, cred.kem);
                }
                for (KeyPair k : cred.keys) {
                    s.addPublicKeyIdentity(k);
                }
                // -Dpqssh.client.earlyChannelOpen=true (also read by the PqsshClient builder): CHANNEL_OPEN behind
                // the KEM response, for pqssh servers (io.pqssh.client.EarlyExec)
                io.pqssh.client.EarlyExec early = Boolean.getBoolean("pqssh.client.earlyChannelOpen")
                        ? new io.pqssh.client.EarlyExec("true", new ByteArrayOutputStream(),
                                new ByteArrayOutputStream())
                        : null;
                if (early != null) {
                    early.install(s);
                }
                s.auth().verify(Duration.ofSeconds(60));
                long t2 = System.nanoTime();
                int rc = early != null && early.used() ? early.awaitExit(Duration.ofSeconds(60))
                        : PqsshClient.exec(s, "true", new ByteArrayOutputStream(), new ByteArrayOutputStream(),
                                Duration.ofSeconds(60));
                long t3 = System.nanoTime();
                int localPort = ((java.net.InetSocketAddress) s.getIoSession().getLocalAddress()).getPort();
                String hk = s.getNegotiatedKexParameter(org.apache.sshd.common.kex.KexProposalOption.SERVERKEYS);
                String kx = s.getNegotiatedKexParameter(org.apache.sshd.common.kex.KexProposalOption.ALGORITHMS);
                result = "OK " + localPort + " " + t0 + " " + t1 + " " + t2 + " " + t3 + " " + rc + " " + kx + " "
                        + hk;
            }
            if (!counted.awaitClosed(5000)) {
                throw new IllegalStateException("MINA transport did not report the connection closed within 5 s");
            }
            return result + " " + counted.bytesWritten() + " " + counted.bytesRead();
        }
    }

    /**
     * What the client holds and which methods it tries, in order, for an auth label (see {@link HandshakeConfig}):
     * one method, {@code sig+kem} (publickey-kem-and) or comma-separated steps, whose keys are registered in step
     * order (MINA's publickey then offers them in that order, as {@code ssh -i a -i b} does).
     */
    record Credentials(List<String> methods, List<KeyPair> keys, KemClientIdentity kem, boolean password) {
        static Credentials of(String auth) {
            List<String> methods = new ArrayList<>();
            List<KeyPair> keys = new ArrayList<>();
            KemClientIdentity kem = null;
            boolean password = false;
            for (String step : auth.split(",")) {
                String m = HandshakeConfig.stepMethod(step);
                if (!methods.contains(m)) {
                    methods.add(m);
                }
                if (m.equals("password")) {
                    password = true;
                } else if (m.equals(HandshakeConfig.KEM_AND)) {
                    String[] p = step.split("\\+", 2);
                    kem = new KemClientIdentity(LabKeys.kem(p[1]), null, LabKeys.signature(p[0]));
                } else if (m.equals("publickey-kem")) {
                    kem = KemClientIdentity.of(LabKeys.kem(step));
                } else {
                    keys.add(LabKeys.signature(step));
                }
            }
            return new Credentials(List.copyOf(methods), List.copyOf(keys), kem, password);
        }
    }
}
