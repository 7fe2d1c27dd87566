package io.pqssh.client.keys;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.PublicKeyLine;

/**
 * What the known_hosts files say about one host key, as OpenSSH's {@code load_hostkeys} and
 * {@code check_key_in_hostkeys} decide it: the user files then the global ones are read, each line whose host
 * patterns match the name ({@code *}, {@code ?}, comma lists, a matching {@code !pattern} vetoes the line, hashed
 * {@code |1|} names by HMAC) is kept; an {@code @revoked} line for the key wins over everything, a plain line with the
 * key makes it known, a plain line with another key makes it changed. {@code @cert-authority} lines only vouch for
 * host certificates ({@link #certAuthority}), so they neither make a plain key known nor changed.
 */
public final class KnownHostsFiles {
    /** How a key stands: OpenSSH's HOST_OK, HOST_NEW, HOST_CHANGED, HOST_REVOKED. */
    public enum Status { OK, NEW, CHANGED, REVOKED }

    /** One line that named the host. */
    public record Line(Path file, int number, String marker, String keyType, byte[] blob) {
        boolean plain() {
            return marker == null;
        }
    }

    /** The verdict and the line it rests on: the matching line (OK), the offending one (CHANGED), else null. */
    public record Verdict(Status status, Line line) {
    }

    private final List<Line> lines;

    private KnownHostsFiles(List<Line> lines) {
        this.lines = List.copyOf(lines);
    }

    /** The lines of {@code files} (missing or unreadable files have none, as for ssh) naming {@code host}. */
    public static KnownHostsFiles load(List<Path> files, String host) {
        String h = host.toLowerCase(Locale.ROOT);
        List<Line> out = new ArrayList<>();
        for (Path f : files) {
            List<String> text;
            try {
                text = Files.readAllLines(f, StandardCharsets.UTF_8);
            } catch (IOException e) {
                continue;
            }
            for (int i = 0; i < text.size(); i++) {
                KnownHosts.Entry e = KnownHosts.Entry.parse(i + 1, text.get(i));
                if (!e.isHostLine() || !knownMarker(e.marker()) || !KnownHosts.matches(e, h)) {
                    continue;
                }
                try {
                    PublicKeyLine k = PublicKeyLine.parse(e.key());
                    out.add(new Line(f, i + 1, e.marker(), k.keyType(), k.blob()));
                } catch (KeyFileException ex) {
                    // as ssh: a line whose key does not parse names no key
                }
            }
        }
        return new KnownHostsFiles(out);
    }

    private static boolean knownMarker(String marker) {
        return marker == null || marker.equals("@revoked") || marker.equals("@cert-authority");
    }

    List<Line> lines() {
        return lines;
    }

    /** The status of the key with this wire blob. */
    public Verdict check(byte[] blob) {
        for (Line l : lines) {
            if ("@revoked".equals(l.marker()) && Arrays.equals(l.blob(), blob)) {
                return new Verdict(Status.REVOKED, null);
            }
        }
        Line changed = null;
        for (Line l : lines) {
            if (!l.plain()) {
                continue;
            }
            if (Arrays.equals(l.blob(), blob)) {
                return new Verdict(Status.OK, l);
            }
            changed = l; // ssh names the last non-matching line as the offending one
        }
        return changed != null ? new Verdict(Status.CHANGED, changed) : new Verdict(Status.NEW, null);
    }

    /** The {@code @cert-authority} line naming this CA key blob, if any (OpenSSH's HOST_OK for a certificate). */
    public java.util.Optional<Line> certAuthority(byte[] caBlob) {
        for (Line l : lines) {
            if ("@cert-authority".equals(l.marker()) && Arrays.equals(l.blob(), caBlob)) {
                return java.util.Optional.of(l);
            }
        }
        return java.util.Optional.empty();
    }

    /** Whether an {@code @revoked} line names this key blob. */
    public boolean revoked(byte[] blob) {
        for (Line l : lines) {
            if ("@revoked".equals(l.marker()) && Arrays.equals(l.blob(), blob)) {
                return true;
            }
        }
        return false;
    }

    /** ssh's host name for known_hosts: the name alone on port 22, else {@code [name]:port}; lower case. */
    public static String hostName(String host, int port) {
        String h = host.toLowerCase(Locale.ROOT);
        return port == 22 || port <= 0 ? h : "[" + h + "]:" + port;
    }

    /**
     * Appends {@code name keytype base64} to {@code file} (the name hashed when asked), creating a missing parent
     * directory 0700 as ssh creates ~/.ssh.
     */
    public static void add(Path file, String name, boolean hash, String keyType, byte[] blob,
            java.security.SecureRandom random) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            Files.createDirectories(parent, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
        }
        String host = hash ? new KnownHosts(file, null, null, random).hash(name) : name;
        String line = host + " " + keyType + " " + java.util.Base64.getEncoder().encodeToString(blob) + "\n";
        boolean needsNewline = Files.isRegularFile(file) && Files.size(file) > 0 && !endsWithNewline(file);
        Files.writeString(file, (needsNewline ? "\n" : "") + line, StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    }

    private static boolean endsWithNewline(Path file) throws IOException {
        try (java.nio.channels.SeekableByteChannel ch = Files.newByteChannel(file)) {
            ch.position(ch.size() - 1);
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1);
            ch.read(b);
            return b.get(0) == '\n';
        }
    }
}
