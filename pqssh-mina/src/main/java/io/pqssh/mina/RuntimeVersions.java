package io.pqssh.mina;

import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;
import java.util.Properties;

/**
 * The MINA SSHD and Bouncy Castle versions this JVM runs pqssh with, checked against the range pqssh is built and
 * tested with before {@link Pqssh#install} touches either: a version outside it fails with one message that names
 * the library, the version found and the versions supported, instead of a {@link NoClassDefFoundError} or a
 * misleading complaint about the other library later.
 */
public final class RuntimeVersions {
    /** Oldest MINA SSHD release pqssh runs on (inclusive). */
    public static final String MINA_MIN = "2.20.0";
    /** First MINA SSHD release line pqssh does not run on (exclusive): 3.0 changes the APIs pqssh extends. */
    public static final String MINA_BELOW = "3.0.0";
    /** Oldest Bouncy Castle (bcprov-jdk18on) pqssh runs on (inclusive). */
    public static final String BC_MIN = "1.87";

    private static volatile boolean checked;

    private RuntimeVersions() {
    }

    /**
     * Checks both libraries once per JVM.
     *
     * @throws IllegalStateException naming the library and the versions found and supported
     */
    public static void check() {
        if (checked) {
            return;
        }
        String mina = minaVersion().orElseThrow(() -> new IllegalStateException(
                "pqssh: MINA SSHD (sshd-common) is not on the class path; pqssh needs " + minaRange()));
        String bc = bouncyCastleVersion().orElseThrow(() -> new IllegalStateException(
                "pqssh: Bouncy Castle (bcprov-jdk18on) is not on the class path; pqssh needs " + BC_MIN + " or newer"));
        check(mina, bc);
        checked = true;
    }

    /** The check itself, for the versions given. */
    static void check(String mina, String bc) {
        if (compare(mina, MINA_MIN) < 0 || compare(mina, MINA_BELOW) >= 0) {
            throw new IllegalStateException("pqssh: MINA SSHD " + mina + " is not supported; pqssh needs "
                    + minaRange() + " (sshd-core and sshd-common of the same version)");
        }
        if (compare(bc, BC_MIN) < 0) {
            throw new IllegalStateException("pqssh: Bouncy Castle " + bc + " is not supported; pqssh needs "
                    + BC_MIN + " or newer (bcprov-jdk18on and bcpkix-jdk18on of the same version)");
        }
    }

    private static String minaRange() {
        return MINA_MIN + " or a newer 2.x";
    }

    /** MINA's own record of its version (sshd-common's {@code sshd-version.properties}). */
    public static Optional<String> minaVersion() {
        try (InputStream in = RuntimeVersions.class.getClassLoader()
                .getResourceAsStream("org/apache/sshd/sshd-version.properties")) {
            if (in == null) {
                return Optional.empty();
            }
            Properties p = new Properties();
            p.load(in);
            return Optional.ofNullable(p.getProperty("version")).map(String::strip);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Bouncy Castle's provider version ({@code 1.87}), read without registering the provider. */
    public static Optional<String> bouncyCastleVersion() {
        try {
            Class<?> c = Class.forName("org.bouncycastle.jce.provider.BouncyCastleProvider", false,
                    RuntimeVersions.class.getClassLoader());
            // the provider's info string ("BouncyCastle Security Provider v1.87") is a static field of its class
            java.lang.reflect.Field f = c.getDeclaredField("info");
            f.setAccessible(true);
            String info = (String) f.get(null);
            int v = info.lastIndexOf('v');
            return v < 0 ? Optional.empty() : Optional.of(info.substring(v + 1).strip());
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return Optional.empty();
        }
    }

    /** Compares dotted versions numerically ({@code 2.9} before {@code 2.20}); a non-numeric suffix is ignored. */
    static int compare(String a, String b) {
        String[] x = a.split("[.-]");
        String[] y = b.split("[.-]");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int p = i < x.length ? leadingNumber(x[i]) : 0;
            int q = i < y.length ? leadingNumber(y[i]) : 0;
            if (p != q) {
                return Integer.compare(p, q);
            }
        }
        return 0;
    }

    private static int leadingNumber(String s) {
        int n = 0;
        int i = 0;
        while (i < s.length() && Character.isDigit(s.charAt(i)) && n < 100_000) {
            n = n * 10 + (s.charAt(i++) - '0');
        }
        return n;
    }
}
