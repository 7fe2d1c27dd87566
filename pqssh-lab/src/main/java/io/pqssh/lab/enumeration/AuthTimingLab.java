package io.pqssh.lab.enumeration;

import java.io.PrintStream;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.sshd.client.auth.keyboard.UserAuthKeyboardInteractiveFactory;
import org.apache.sshd.client.auth.password.UserAuthPasswordFactory;
import org.apache.sshd.client.auth.pubkey.UserAuthPublicKeyFactory;
import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.client.auth.UserAuthFactory;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.core.CoreModuleProperties;

import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.MlKem;
import io.pqssh.mina.auth.ClientKemUserAuthFactory;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.client.PqsshClient;

/**
 * User enumeration by timing, seen from the client: for each authentication method the time from the first
 * USERAUTH_REQUEST to the final USERAUTH_FAILURE on a fresh connection (the key exchange is not counted), for a real
 * account whose key or password is wrong and for a made-up name (a new one each time), interleaved in random order.
 * Reports medians and a Mann-Whitney U test per method: a small p with a large difference of medians would let an
 * attacker tell real names from unknown ones. Run against a server with {@code bench/auth-timing.sh}.
 */
public final class AuthTimingLab {
    /** The methods measured, as wire names. */
    public static final List<String> METHODS = List.of("publickey", "publickey-kem", "password",
            "keyboard-interactive");

    private AuthTimingLab() {
    }

    /** One run's settings; {@code known} is an existing account the client holds no valid credential for. */
    public record Settings(String host, int port, String known, int rounds, List<String> methods) {
        public Settings {
            if (rounds < 1) {
                throw new IllegalArgumentException("rounds must be >= 1");
            }
            for (String m : methods) {
                if (!METHODS.contains(m)) {
                    throw new IllegalArgumentException("unknown method " + m + " (one of " + METHODS + ")");
                }
            }
        }
    }

    /** Per method: microseconds for the known account and for unknown names, and the test's result. */
    public record Row(String method, long[] knownMicros, long[] unknownMicros, double z, double p) {
        public double knownMedianMs() {
            return median(knownMicros) / 1000.0;
        }

        public double unknownMedianMs() {
            return median(unknownMicros) / 1000.0;
        }
    }

    public static List<Row> run(Settings s, PrintStream progress) throws Exception {
        SecureRandom random = new SecureRandom();
        KeyPair wrongKey = KeyUtils.generateKeyPair("ssh-ed25519", 256);
        KemClientIdentity wrongKem = KemClientIdentity.of(MlKem.generate(KemAlgorithm.MLKEM768, random));
        PqsshClient client = PqsshClient.builder().warnWeakCrypto(false).serverKeyVerifier(
                AcceptAllServerKeyVerifier.INSTANCE).timeout(Duration.ofSeconds(30)).start();
        Map<String, List<Long>> known = new LinkedHashMap<>();
        Map<String, List<Long>> unknown = new LinkedHashMap<>();
        try {
            for (String m : s.methods()) {
                known.put(m, new ArrayList<>());
                unknown.put(m, new ArrayList<>());
                // warm-up, not counted: the server's and this JVM's first run of each path is slower
                for (int i = 0; i < 5; i++) {
                    timeFailure(client, s, m, s.known(), wrongKey, wrongKem);
                    timeFailure(client, s, m, madeUpName(random), wrongKey, wrongKem);
                }
            }
            for (int r = 0; r < s.rounds(); r++) {
                for (String m : s.methods()) {
                    boolean knownFirst = random.nextBoolean();
                    for (int k = 0; k < 2; k++) {
                        boolean isKnown = (k == 0) == knownFirst;
                        String user = isKnown ? s.known() : madeUpName(random);
                        long t = timeFailure(client, s, m, user, wrongKey, wrongKem);
                        (isKnown ? known : unknown).get(m).add(t);
                    }
                }
                if (progress != null && (r + 1) % 25 == 0) {
                    progress.printf("auth-timing: %d/%d rounds%n", r + 1, s.rounds());
                }
            }
        } finally {
            client.sshClient().stop();
        }
        List<Row> rows = new ArrayList<>();
        for (String m : s.methods()) {
            long[] a = known.get(m).stream().mapToLong(Long::longValue).toArray();
            long[] b = unknown.get(m).stream().mapToLong(Long::longValue).toArray();
            double z = mannWhitneyZ(a, b);
            rows.add(new Row(m, a, b, z, twoSidedP(z)));
        }
        return rows;
    }

    /** Microseconds from the start of authentication to its failure on a fresh connection. */
    private static long timeFailure(PqsshClient client, Settings s, String method, String user, KeyPair key,
            KemClientIdentity kem) throws Exception {
        try (ClientSession session = client.sshClient().connect(user, s.host(), s.port())
                .verify(Duration.ofSeconds(30)).getSession()) {
            List<UserAuthFactory> factories = new ArrayList<>();
            switch (method) {
                case "publickey" -> {
                    session.addPublicKeyIdentity(key);
                    factories.add(UserAuthPublicKeyFactory.INSTANCE);
                }
                case "publickey-kem" -> {
                    session.setAttribute(ClientKemUserAuthFactory.IDENTITY, kem);
                    factories.add(new ClientKemUserAuthFactory(KemAuthMethod.PUBLICKEY_KEM));
                }
                case "password" -> {
                    session.addPasswordIdentity("not-the-password");
                    factories.add(UserAuthPasswordFactory.INSTANCE);
                }
                default -> {
                    session.addPasswordIdentity("not-the-password");
                    factories.add(UserAuthKeyboardInteractiveFactory.INSTANCE);
                }
            }
            session.setUserAuthFactories(factories);
            CoreModuleProperties.PREFERRED_AUTHS.set(session, method);
            // the key exchange first, so only authentication is timed
            session.waitFor(java.util.EnumSet.of(ClientSession.ClientSessionEvent.WAIT_AUTH,
                    ClientSession.ClientSessionEvent.CLOSED), Duration.ofSeconds(30));
            long start = System.nanoTime();
            boolean ok;
            try {
                ok = session.auth().await(Duration.ofSeconds(30)) && session.isAuthenticated();
            } catch (java.io.IOException e) {
                ok = false;
            }
            long micros = (System.nanoTime() - start) / 1000;
            if (ok) {
                throw new IllegalStateException(user + " logged in with " + method
                        + ": the lab needs credentials the server refuses");
            }
            return micros;
        }
    }

    private static String madeUpName(SecureRandom random) {
        return "nx" + Long.toString(random.nextLong() >>> 1, 36);
    }

    static long median(long[] v) {
        long[] c = v.clone();
        Arrays.sort(c);
        return c.length == 0 ? 0 : c[c.length / 2];
    }

    static long percentile(long[] v, double q) {
        long[] c = v.clone();
        Arrays.sort(c);
        return c.length == 0 ? 0 : c[(int) Math.min(c.length - 1, Math.floor(q * c.length))];
    }

    /** Mann-Whitney U as a z score (normal approximation, mid-ranks for ties). */
    static double mannWhitneyZ(long[] a, long[] b) {
        int n1 = a.length;
        int n2 = b.length;
        long[][] all = new long[n1 + n2][];
        for (int i = 0; i < n1; i++) {
            all[i] = new long[] {a[i], 0};
        }
        for (int i = 0; i < n2; i++) {
            all[n1 + i] = new long[] {b[i], 1};
        }
        Arrays.sort(all, (x, y) -> Long.compare(x[0], y[0]));
        double rankSumA = 0;
        for (int i = 0; i < all.length; ) {
            int j = i;
            while (j < all.length && all[j][0] == all[i][0]) {
                j++;
            }
            double mid = (i + 1 + j) / 2.0;
            for (int k = i; k < j; k++) {
                if (all[k][1] == 0) {
                    rankSumA += mid;
                }
            }
            i = j;
        }
        double u = rankSumA - n1 * (n1 + 1) / 2.0;
        double mean = n1 * (double) n2 / 2.0;
        double sd = Math.sqrt(n1 * (double) n2 * (n1 + n2 + 1) / 12.0);
        return sd == 0 ? 0 : (u - mean) / sd;
    }

    /** Two-sided p of a standard normal z (Abramowitz-Stegun 7.1.26 for erfc). */
    static double twoSidedP(double z) {
        double x = Math.abs(z) / Math.sqrt(2);
        double t = 1 / (1 + 0.3275911 * x);
        double erfc = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027
                + t * 1.061405429)))) * Math.exp(-x * x);
        return Math.min(1, erfc);
    }

    public static String markdown(Settings s, List<Row> rows) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "Authentication failure time, real account `%s` vs made-up names,"
                + " %d interleaved samples each (ms)%n%n", s.known(), s.rounds()));
        b.append("| method | real median | unknown median | difference | real p10–p90 | unknown p10–p90 |"
                + " Mann-Whitney z | p |\n|---|---|---|---|---|---|---|---|\n");
        for (Row r : rows) {
            b.append(String.format(Locale.ROOT, "| %s | %.2f | %.2f | %+.2f | %.2f–%.2f | %.2f–%.2f | %.2f | %.3f |%n",
                    r.method(), r.knownMedianMs(), r.unknownMedianMs(), r.unknownMedianMs() - r.knownMedianMs(),
                    percentile(r.knownMicros(), 0.1) / 1000.0, percentile(r.knownMicros(), 0.9) / 1000.0,
                    percentile(r.unknownMicros(), 0.1) / 1000.0, percentile(r.unknownMicros(), 0.9) / 1000.0,
                    r.z(), r.p()));
        }
        return b.toString();
    }
}
