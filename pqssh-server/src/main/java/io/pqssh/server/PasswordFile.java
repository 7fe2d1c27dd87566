package io.pqssh.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

import org.apache.sshd.server.auth.password.PasswordAuthenticator;
import org.apache.sshd.server.session.ServerSession;

import io.pqssh.server.login.AdmittingUserAuthFactory;

/**
 * Password logins without PAM: a file of {@code user:pbkdf2-sha256:iterations:salt_b64:hash_b64} lines
 * ({@code pqssh passwd} writes them). Compared in constant time; the file is re-read on every login so edits apply
 * at once. A user without a line, and a user the login policy refused (unknown, locked, not allowed), costs the
 * same PBKDF2 run against a dummy entry (sshd's fake crypt salt), so a reply's timing does not tell which names
 * exist; such a user never succeeds.
 */
public final class PasswordFile implements PasswordAuthenticator {
    private static final int ITERATIONS = 210_000;
    private final Path file;
    /** Hashed against when the user has no usable line: the cost of a real check, never a match. */
    private final String[] dummy;

    public PasswordFile(Path file) {
        this.file = file;
        this.dummy = hashLine("-", new char[0]).split(":");
    }

    public static String hashLine(String user, char[] password) {
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        byte[] hash = pbkdf2(password, salt, ITERATIONS);
        return user + ":pbkdf2-sha256:" + ITERATIONS + ":" + Base64.getEncoder().encodeToString(salt) + ":"
                + Base64.getEncoder().encodeToString(hash);
    }

    @Override
    public boolean authenticate(String username, String password, ServerSession session) {
        Map<String, String[]> entries;
        try {
            entries = read();
        } catch (IOException e) {
            entries = Map.of();
        }
        String[] f = entries.get(username);
        boolean usable = f != null && "pbkdf2-sha256".equals(f[1]);
        boolean refused = session != null && AdmittingUserAuthFactory.refused(session, username);
        String[] against = usable ? f : dummy;
        byte[] salt;
        byte[] expected;
        try {
            salt = Base64.getDecoder().decode(against[3]);
            expected = Base64.getDecoder().decode(against[4]);
        } catch (IllegalArgumentException e) {
            against = dummy;
            usable = false;
            salt = Base64.getDecoder().decode(against[3]);
            expected = Base64.getDecoder().decode(against[4]);
        }
        byte[] actual = pbkdf2(password.toCharArray(), salt, Integer.parseInt(against[2]));
        boolean match = MessageDigest.isEqual(expected, actual);
        return match && usable && !refused;
    }

    private Map<String, String[]> read() throws IOException {
        Map<String, String[]> m = new HashMap<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.strip().split(":");
            if (f.length == 5 && f[2].matches("\\d{1,9}")) {
                m.putIfAbsent(f[0], f);
            }
        }
        return m;
    }

    private static byte[] pbkdf2(char[] password, byte[] salt, int iterations) {
        try {
            PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, 256);
            try {
                return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
            } finally {
                spec.clearPassword();
            }
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("PBKDF2WithHmacSHA256 unavailable", e);
        }
    }
}
