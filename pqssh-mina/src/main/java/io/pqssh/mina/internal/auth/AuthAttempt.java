package io.pqssh.mina.internal.auth;

import java.security.PublicKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.session.Session;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.keys.kem.KemPublicKey;

/**
 * What the method of the current USERAUTH_REQUEST learned, for the server's log line and for
 * {@code AuthenticationMethods} sub-methods (sshd's {@code auth2_record_info} and submethod): the keys it saw, as
 * {@code TYPE SHA256:fingerprint}, and the sub-method it ran (the canonical KEM algorithm for the KEM methods). The
 * user-auth service starts a fresh record for each request and installs the sub-method filter of the connection's
 * {@code AuthenticationMethods}.
 */
public final class AuthAttempt {
    private static final AttributeKey<AuthAttempt> CURRENT = new AttributeKey<>();
    private static final AttributeKey<SubmethodFilter> FILTER = new AttributeKey<>();

    private final List<String> keys = new ArrayList<>();
    private String submethod;

    private AuthAttempt() {
    }

    /** Which sub-methods the connection's {@code AuthenticationMethods} lets a method run now. */
    @FunctionalInterface
    public interface SubmethodFilter {
        boolean allows(String method, String submethod);
    }

    public static void begin(Session session) {
        session.setAttribute(CURRENT, new AuthAttempt());
    }

    public static void installFilter(Session session, SubmethodFilter filter) {
        session.setAttribute(FILTER, filter);
    }

    /** True when no filter is installed (a plain MINA user-auth service) or the filter allows it. */
    public static boolean submethodAllowed(Session session, String method, String submethod) {
        SubmethodFilter f = session.getAttribute(FILTER);
        return f == null || f.allows(method, submethod);
    }

    private static AuthAttempt current(Session session) {
        AuthAttempt a = session.getAttribute(CURRENT);
        if (a == null) {
            a = new AuthAttempt();
            session.setAttribute(CURRENT, a);
        }
        return a;
    }

    public static void recordKey(Session session, PublicKey key) {
        String type = KeyUtils.getKeyType(key);
        recordKeyText(session, sshdKeyType(type) + " " + KeyUtils.getFingerPrint(key));
    }

    public static void recordKemKey(Session session, KemAlgorithm algorithm, byte[] rawPublicKey) {
        recordKeyText(session, algorithm.fipsName() + " "
                + KeyFingerprints.sha256(KemPublicKey.blob(algorithm, rawPublicKey)));
    }

    /**
     * Replaces the last key recorded with a certificate's description ({@code ED25519-CERT SHA256:... ID id (serial
     * N) CA ED25519 SHA256:...}, sshd's wording), once the certificate was accepted.
     */
    public static void recordCertificate(Session session, String text) {
        AuthAttempt a = current(session);
        synchronized (a) {
            if (!a.keys.isEmpty()) {
                a.keys.remove(a.keys.size() - 1);
            }
            a.keys.add(text);
        }
    }

    private static void recordKeyText(Session session, String text) {
        AuthAttempt a = current(session);
        synchronized (a) {
            if (!a.keys.contains(text)) {
                a.keys.add(text);
            }
        }
    }

    public static void recordSubmethod(Session session, String submethod) {
        AuthAttempt a = current(session);
        synchronized (a) {
            a.submethod = submethod;
        }
    }

    /** The keys seen, {@code ED25519 SHA256:... ML-KEM-768 SHA256:...}, or null. */
    public static String keys(Session session) {
        AuthAttempt a = session.getAttribute(CURRENT);
        if (a == null) {
            return null;
        }
        synchronized (a) {
            return a.keys.isEmpty() ? null : String.join(" ", a.keys);
        }
    }

    public static String submethod(Session session) {
        AuthAttempt a = session.getAttribute(CURRENT);
        if (a == null) {
            return null;
        }
        synchronized (a) {
            return a.submethod;
        }
    }

    /** sshd's {@code sshkey_type}: ED25519, RSA, ECDSA; other types as their name without {@code ssh-}. */
    public static String sshdKeyType(String type) {
        if (type == null) {
            return "UNKNOWN";
        }
        if (type.endsWith("-cert-v01@openssh.com")) {
            // sshd: ED25519-CERT; the certificate's id and CA are added once it is accepted
            return sshdKeyType(type.substring(0, type.length() - "-cert-v01@openssh.com".length())) + "-CERT";
        }
        java.util.Optional<String> certified = io.pqssh.core.cert.CertificateKeyTypes.plainName(type);
        if (certified.isPresent()) {
            // pqssh's own certificate names (mlkem768-cert-v01@pqssh.io): MLKEM768-CERT
            return sshdKeyType(certified.get()) + "-CERT";
        }
        if (type.equals("ssh-ed25519")) {
            return "ED25519";
        }
        if (type.equals("ssh-rsa") || type.startsWith("rsa-sha2-")) {
            return "RSA";
        }
        if (type.startsWith("ecdsa-sha2-")) {
            return "ECDSA";
        }
        String t = type.startsWith("ssh-") ? type.substring(4) : type;
        return t.toUpperCase(Locale.ROOT);
    }
}
