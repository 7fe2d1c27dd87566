package io.pqssh.lab.handshake;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.mina.keys.PqKeyPairProvider;
import io.pqssh.server.PqsshServer;

/**
 * The lab's pqssh server, run inside the server namespace: one {@link PqsshServer} per profile
 * ({@code hostkey|kex1,kex2[|AuthenticationMethods]}), each with a fresh host key, publickey, publickey-hybrid-and,
 * publickey-kem and publickey-kem-and (ML-KEM-512/768/1024) and password enabled for user {@value #USER}, and the
 * profile's {@code AuthenticationMethods} ({@code any} when absent; e.g. {@code publickey,publickey} for a
 * multi-step login). Prints {@code PORT i n} per profile, then {@code READY}; runs until its
 * stdin closes (so it dies with the lab), answering {@code BYTES clientPort} with {@code BYTES read written}: the
 * TCP payload bytes this server's MINA transport read and wrote on that (closed) connection ({@link MinaByteCounter}).
 *
 * <p>Authorization: user {@value #USER} may log in with <em>any</em> public key or KEM key (the lab's client keys
 * are generated per run); possession is still proven for real (signature verified, KEM challenge answered), so
 * the bytes and round trips are those of a normal login. Password: {@value #PASSWORD}.
 */
public final class LabServer {
    static final String USER = "lab";
    static final String PASSWORD = "lab-password-not-secret";

    private LabServer() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: LabServer LISTEN_ADDR PROFILE...   (PROFILE = hostkey|kex,kex[|methods])");
            System.exit(2);
        }
        String listen = args[0];
        MinaByteCounter.install();
        List<PqsshServer> servers = new ArrayList<>();
        try {
            for (int i = 1; i < args.length; i++) {
                String[] p = args[i].split("\\|", 3);
                String methods = p.length > 2 ? p[2] : "any";
                KemServerSettings kem = KemServerSettings.builder().allowedAlgorithms(EnumSet.allOf(KemAlgorithm.class))
                        .authorizer((user, cred, addr) -> USER.equals(user)).build();
                PqsshServer s = PqsshServer.builder().systemShell().host(listen).port(0)
                        .hostKeys(PqKeyPairProvider.of(List.of(LabKeys.signature(p[0]))))
                        .kex(List.of(p[1].split(",")))
                        .kem(kem)
                        .publickey((user, key, session) -> USER.equals(user))
                        .publickeyHybridAnd(true)
                        .authenticationMethods(methods)
                        .password((user, pw, session) -> USER.equals(user) && PASSWORD.equals(pw))
                        .sftp(false)
                        .start();
                servers.add(s);
                System.out.println("PORT " + (i - 1) + " " + s.port());
            }
            System.out.println("READY");
            System.out.flush();
            // requests on stdin, one per line, until EOF (the lab closing our stdin): "BYTES clientPort" →
            // "BYTES read written" (this side's MINA-level TCP payload counts for that closed connection, -1 -1 if
            // it has not closed within 5 s)
            java.io.BufferedReader in = new java.io.BufferedReader(
                    new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null;) {
                String[] f = line.trim().split(" ");
                if (f.length == 2 && f[0].equals("BYTES")) {
                    long[] c = MinaByteCounter.takeClosed(Integer.parseInt(f[1]), 5000);
                    System.out.println(c == null ? "BYTES -1 -1" : "BYTES " + c[0] + " " + c[1]);
                } else {
                    System.out.println("ERR bad request");
                }
                System.out.flush();
            }
        } finally {
            for (PqsshServer s : servers) {
                s.close();
            }
        }
        System.exit(0);
    }
}
