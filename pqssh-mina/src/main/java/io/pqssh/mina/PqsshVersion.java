package io.pqssh.mina;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * pqssh's version as built (Maven filters it into {@code pqssh-version.properties}) and the software version of
 * the SSH identification string, {@code SSH-2.0-pqssh_0.1.0} in OpenSSH's {@code OpenSSH_10.5} style.
 */
public final class PqsshVersion {
    private static final String VERSION = load();

    private PqsshVersion() {
    }

    /** The project version, e.g. {@code 0.1.0-SNAPSHOT}. */
    public static String version() {
        return VERSION;
    }

    /**
     * {@code pqssh_} and the version up to its first {@code -}: RFC 4253 section 4.2 forbids the minus sign and
     * spaces in the software version.
     */
    public static String softwareVersion() {
        int dash = VERSION.indexOf('-');
        return "pqssh_" + (dash < 0 ? VERSION : VERSION.substring(0, dash));
    }

    private static String load() {
        try (InputStream in = PqsshVersion.class.getResourceAsStream("pqssh-version.properties")) {
            if (in == null) {
                throw new IllegalStateException("pqssh-version.properties is missing from the class path");
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "");
            if (!v.matches("[0-9][0-9A-Za-z.\\-]*")) {
                throw new IllegalStateException("pqssh-version.properties holds no built version: '" + v + "'");
            }
            return v;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
