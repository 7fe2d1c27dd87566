package io.pqssh.client.keys;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.PublicKeyLine;

/**
 * {@code ssh-keygen -F/-R/-H} on a known_hosts file, with OpenSSH's output, exit statuses and hashed-name format
 * {@code |1|base64(salt)|base64(HMAC-SHA1(salt, host))} (20-byte salt), so either tool reads the other's file.
 */
public final class KnownHosts {
    private static final String HASH_MAGIC = "|1|";
    private static final int SALT_BYTES = 20;

    private final Path file;
    private final PrintStream out;
    private final PrintStream err;
    private final SecureRandom random;

    public KnownHosts(Path file, PrintStream out, PrintStream err, SecureRandom random) {
        this.file = file;
        this.out = out;
        this.err = err;
        this.random = random;
    }

    /** One line split as OpenSSH does: optional {@code @marker}, host list, then the key text kept verbatim. */
    record Entry(int number, String raw, String marker, String hosts, String key) {
        static Entry parse(int number, String raw) {
            String l = raw.strip();
            if (l.isEmpty() || l.startsWith("#")) {
                return new Entry(number, raw, null, null, null);
            }
            String marker = null;
            if (l.startsWith("@")) {
                String[] m = l.split("\\s+", 2);
                marker = m[0];
                l = m.length > 1 ? m[1] : "";
            }
            String[] f = l.split("\\s+", 2);
            return new Entry(number, raw, marker, f[0], f.length > 1 ? f[1].strip() : "");
        }

        boolean isHostLine() {
            return hosts != null;
        }

        boolean valid() {
            return hosts != null && !hosts.isEmpty() && key.split("\\s+").length >= 2;
        }
    }

    /** A host's key from a known_hosts file; {@code ca} for an {@code @cert-authority} line. */
    public record HostKey(byte[] blob, boolean ca) {
    }

    /**
     * The keys {@code file} lists for {@code host}, as OpenSSH's load_hostkeys: plain and {@code @cert-authority}
     * lines (not {@code @revoked} ones), hashed names included. A missing file has none; unreadable lines are skipped.
     */
    public static List<HostKey> keysFor(Path file, String host) throws IOException {
        List<HostKey> out = new ArrayList<>();
        if (!Files.isRegularFile(file)) {
            return out;
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            Entry e = Entry.parse(i + 1, lines.get(i));
            boolean ca = "@cert-authority".equals(e.marker);
            if (!e.isHostLine() || (e.marker != null && !ca) || !matches(e, host)) {
                continue;
            }
            try {
                out.add(new HostKey(PublicKeyLine.parse(e.key).blob(), ca));
            } catch (KeyFileException ex) {
                // as ssh: a line that does not parse names no key
            }
        }
        return out;
    }

    /** {@code -F host}: prints matching lines; exit 0 when found, 1 when not. */
    public int find(String host, boolean hashOutput, FingerprintHash fingerprint) throws IOException {
        boolean found = false;
        for (Entry e : read()) {
            if (!e.isHostLine() || !matches(e, host)) {
                continue;
            }
            found = true;
            String tag = "@cert-authority".equals(e.marker) ? "CA" : "@revoked".equals(e.marker) ? "REVOKED" : "";
            out.println("# Host " + host + " found: line " + e.number + " " + tag);
            if (hashOutput) {
                hashedLines(e).forEach(out::println);
            } else if (fingerprint != null) {
                out.println(host + " " + fingerprintOf(e, fingerprint));
            } else {
                out.println(e.raw);
            }
        }
        return found ? 0 : 1;
    }

    /** {@code -R host}: removes the host's lines (not CA or revocation lines), keeping FILE.old. */
    public int remove(String host) throws IOException {
        List<Entry> entries = read();
        requireValid(entries);
        List<String> kept = new ArrayList<>();
        boolean found = false;
        for (Entry e : entries) {
            if (e.isHostLine() && e.marker == null && matches(e, host)) {
                found = true;
                out.println("# Host " + host + " found: line " + e.number);
                continue;
            }
            kept.add(e.raw);
        }
        if (!found) {
            err.println("Host " + host + " not found in " + file);
            return 0;
        }
        replace(kept);
        return 0;
    }

    /** {@code -H}: hashes every plain host name (not wildcards, markers or hashed names), keeping FILE.old. */
    public int hashAll() throws IOException {
        List<Entry> entries = read();
        requireValid(entries);
        List<String> lines = new ArrayList<>();
        boolean hadPlain = false;
        for (Entry e : entries) {
            if (!e.isHostLine() || e.marker != null || e.hosts.startsWith("|") || hasWildcard(e.hosts)) {
                if (e.isHostLine() && hasWildcard(e.hosts) && !e.hosts.startsWith("|")) {
                    err.println(file + ":" + e.number + ": ignoring host name with wildcard: " + e.hosts);
                }
                lines.add(e.raw);
                continue;
            }
            lines.addAll(hashedLines(e));
            hadPlain = true;
        }
        replace(lines);
        if (hadPlain) {
            err.println("WARNING: " + file + ".old contains unhashed entries");
            err.println("Delete this file to ensure privacy of hostnames");
        }
        return 0;
    }

    private List<String> hashedLines(Entry e) {
        if (e.hosts.startsWith("|") || hasWildcard(e.hosts) || e.marker != null) {
            return List.of(e.raw);
        }
        List<String> out = new ArrayList<>();
        for (String h : e.hosts.split(",")) {
            if (!h.isEmpty()) {
                out.add(hash(h.toLowerCase(Locale.ROOT)) + " " + e.key);
            }
        }
        return out;
    }

    private String fingerprintOf(Entry e, FingerprintHash hash) {
        try {
            PublicKeyLine k = PublicKeyLine.parse(e.key);
            return KeyDescriptions.label(k.keyType()) + " " + hash.format(k.blob())
                    + (k.comment() == null || k.comment().isEmpty() ? "" : " " + k.comment());
        } catch (KeyFileException ex) {
            return "(unreadable key: " + ex.getMessage() + ")";
        }
    }

    private List<Entry> read() throws IOException {
        if (!Files.exists(file)) {
            throw new IllegalArgumentException("Cannot stat " + file + ": No such file or directory");
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<Entry> entries = new ArrayList<>(lines.size());
        for (int i = 0; i < lines.size(); i++) {
            entries.add(Entry.parse(i + 1, lines.get(i)));
        }
        return entries;
    }

    private void requireValid(List<Entry> entries) {
        for (Entry e : entries) {
            if (e.isHostLine() && !e.valid()) {
                err.println(file + ":" + e.number + ": invalid line");
                throw new IllegalArgumentException(file + " is not a valid known_hosts file; not replacing it");
            }
        }
    }

    /** Writes the new file next to the old one, keeps the old one as FILE.old, renames into place. */
    private void replace(List<String> lines) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".pqssh-tmp");
        Path old = file.resolveSibling(file.getFileName() + ".old");
        Set<PosixFilePermission> mode = EnumSet.copyOf(Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS));
        mode.retainAll(EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
                PosixFilePermission.GROUP_READ, PosixFilePermission.OTHERS_READ));
        StringBuilder sb = new StringBuilder();
        for (String l : lines) {
            sb.append(l).append('\n');
        }
        Files.deleteIfExists(tmp);
        Files.writeString(tmp, sb.toString(), StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(tmp, mode);
        Files.deleteIfExists(old);
        Files.createLink(old, file);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        out.println(file + " updated.");
        out.println("Original contents retained as " + old);
    }

    /** Whether a line names this host: a hashed name by HMAC, plain names as OpenSSH's pattern list. */
    static boolean matches(Entry e, String host) {
        if (e.hosts.startsWith(HASH_MAGIC)) {
            return hashMatches(e.hosts, host);
        }
        String h = host.toLowerCase(Locale.ROOT);
        boolean positive = false;
        for (String p : e.hosts.split(",")) {
            if (p.isEmpty()) {
                continue;
            }
            boolean negated = p.startsWith("!");
            String pat = (negated ? p.substring(1) : p).toLowerCase(Locale.ROOT);
            if (glob(pat, h)) {
                if (negated) {
                    return false;
                }
                positive = true;
            }
        }
        return positive;
    }

    static boolean hashMatches(String hashed, String host) {
        String[] parts = hashed.substring(HASH_MAGIC.length()).split("\\|", -1);
        if (parts.length != 2) {
            return false;
        }
        try {
            byte[] salt = Base64.getDecoder().decode(parts[0]);
            byte[] want = Base64.getDecoder().decode(parts[1]);
            return MessageDigest.isEqual(want, hmac(salt, host));
        } catch (IllegalArgumentException ex) {
            return false;
        }
    }

    String hash(String host) {
        byte[] salt = new byte[SALT_BYTES];
        random.nextBytes(salt);
        return hash(salt, host);
    }

    static String hash(byte[] salt, String host) {
        Base64.Encoder b64 = Base64.getEncoder();
        return HASH_MAGIC + b64.encodeToString(salt) + "|" + b64.encodeToString(hmac(salt, host));
    }

    private static byte[] hmac(byte[] salt, String host) {
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(salt, "HmacSHA1"));
            return mac.doFinal(host.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA1 unavailable", e);
        }
    }

    private static boolean hasWildcard(String hosts) {
        return hosts.indexOf('*') >= 0 || hosts.indexOf('?') >= 0 || hosts.indexOf('!') >= 0;
    }

    /** OpenSSH's match_pattern: {@code *} any run, {@code ?} one character. */
    static boolean glob(String pattern, String s) {
        int p = 0;
        int i = 0;
        int star = -1;
        int mark = 0;
        while (i < s.length()) {
            if (p < pattern.length() && (pattern.charAt(p) == '?' || pattern.charAt(p) == s.charAt(i))) {
                p++;
                i++;
            } else if (p < pattern.length() && pattern.charAt(p) == '*') {
                star = p++;
                mark = i;
            } else if (star >= 0) {
                p = star + 1;
                i = ++mark;
            } else {
                return false;
            }
        }
        while (p < pattern.length() && pattern.charAt(p) == '*') {
            p++;
        }
        return p == pattern.length();
    }
}
