package io.pqssh.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

import io.pqssh.client.keys.KeyFiles;
import io.pqssh.core.cert.Krl;
import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.core.wire.MalformedMessageException;

/**
 * {@code pqssh keygen -k} (write or update an OpenSSH KRL from public keys and KRL specification lines) and
 * {@code -Q} (test keys against a KRL, {@code -l}: print it), worded and exiting as ssh-keygen 9.x
 * ({@code do_gen_krl}, {@code update_krl_from_file}, {@code do_check_krl}, {@code krl_dump}).
 */
final class KeygenKrl {
    private static final DateTimeFormatter GENERATED = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss");
    /**
     * Key types OpenSSH parses (10.4+ for the composite). A certificate section names its CA key, which OpenSSH must
     * parse to read the KRL at all; explicit keys and hashes are opaque blobs to it.
     */
    private static final java.util.Set<String> OPENSSH_KEY_TYPES = java.util.Set.of("ssh-ed25519", "ssh-rsa",
            "ssh-dss", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
            "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com", "ssh-mldsa44-ed25519@openssh.com",
            "ssh-mldsa44-ed25519");

    private KeygenKrl() {
    }

    /** What {@code -k} was asked to do; {@code ca} is -s (a public key file, or "none" for any CA). */
    record Request(Path krl, boolean update, String ca, String version, String comment, boolean quiet,
            List<Path> specs) {
    }

    /** The CA that {@code serial:} and {@code id:} lines revoke under: a key blob, the wildcard, or none given. */
    private record CaChoice(byte[] blob, boolean given) {
    }

    static int generate(Request q, PrintStream out) throws Exception {
        if (q.krl() == null) {
            throw new IllegalArgumentException("KRL generation requires an output file");
        }
        if (q.update() && !Files.exists(q.krl())) {
            throw new IllegalArgumentException("KRL \"" + q.krl() + "\" does not exist");
        }
        CaChoice ca = caChoice(q.ca());
        Krl.Builder b = new Krl.Builder();
        if (q.update()) {
            b.from(load(q.krl()));
        }
        if (q.version() != null) {
            long v = KeygenCertificates.parseSerial(q.version());
            if (v != 0) {
                b.version(v);
            }
        }
        if (q.comment() != null) {
            b.comment(q.comment());
        }
        for (Path spec : q.specs()) {
            revokeFrom(spec, ca, b, q.quiet(), out);
        }
        byte[] encoded = b.encode(Instant.now().getEpochSecond());
        warnUnreadableByOpenSsh(q.krl(), encoded);
        Path target = q.krl().toAbsolutePath();
        Path tmp = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".tmp");
        try {
            Files.write(tmp, encoded);
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return 0;
    }

    /** A CA type OpenSSH cannot parse makes the whole KRL unreadable to it: said once per type, on stderr. */
    private static void warnUnreadableByOpenSsh(Path krl, byte[] encoded) {
        java.util.Set<String> said = new java.util.TreeSet<>();
        try {
            for (Krl.CaRevocations c : Krl.parse(encoded).certificates()) {
                if (c.caKey().length > 0) {
                    String type = PublicKeyLine.blobKeyType(c.caKey());
                    if (!OPENSSH_KEY_TYPES.contains(type) && said.add(type)) {
                        System.err.println("Warning: " + krl + " revokes certificates of a " + type + " CA: OpenSSH"
                                + " cannot parse that key type, so it cannot read this KRL (sshd with it as"
                                + " RevokedKeys refuses every key); keep such revocations in a KRL only pqssh reads");
                    }
                }
            }
        } catch (MalformedMessageException | KeyFileException e) {
            throw new IllegalStateException("the KRL just encoded does not parse: " + e.getMessage(), e);
        }
    }

    private static CaChoice caChoice(String ca) throws IOException {
        if (ca == null) {
            return new CaChoice(null, false);
        }
        if (ca.equalsIgnoreCase("none")) {
            return new CaChoice(new byte[0], true);
        }
        try {
            return new CaChoice(KeyFiles.publicKey(Path.of(ca)).blob(), true);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("Cannot load CA public key " + ca + ": No such file or directory");
        } catch (KeyFileException e) {
            throw new IllegalArgumentException("Cannot load CA public key " + ca + ": " + e.getMessage());
        }
    }

    /** One file of KRL specification lines (a public key file is one: each key line revokes that key). */
    private static void revokeFrom(Path spec, CaChoice ca, Krl.Builder b, boolean quiet, PrintStream out)
            throws IOException {
        boolean stdin = spec.toString().equals("-");
        String name = stdin ? "(standard input)" : spec.toString();
        List<String> lines;
        try {
            lines = stdin ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8).lines().toList()
                    : Files.readAllLines(spec, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("fopen " + name + ": No such file or directory");
        } catch (AccessDeniedException e) {
            throw new IllegalArgumentException("fopen " + name + ": Permission denied");
        }
        if (!quiet) {
            out.println("Revoking from " + name);
        }
        int n = 0;
        for (String raw : lines) {
            n++;
            String line = specLine(raw);
            if (line.isEmpty()) {
                continue;
            }
            try {
                revokeLine(line, ca, b, name + ":" + n);
            } catch (MalformedMessageException e) {
                throw new IllegalArgumentException(name + ":" + n + ": invalid key: " + e.getMessage());
            }
        }
    }

    /** ssh-keygen's trimming: leading blanks, everything from '#', trailing blanks. */
    static String specLine(String raw) {
        String s = raw;
        int hash = s.indexOf('#');
        if (hash >= 0) {
            s = s.substring(0, hash);
        }
        return s.replaceFirst("^[ \t]+", "").replaceFirst("[ \t]+$", "");
    }

    private static void revokeLine(String line, CaChoice ca, Krl.Builder b, String where)
            throws MalformedMessageException {
        String lower = line.toLowerCase(Locale.ROOT);
        if (lower.startsWith("serial:")) {
            if (!ca.given()) {
                throw new IllegalArgumentException("revoking certificates by serial number requires specification"
                        + " of a CA key");
            }
            String v = value(line, 7);
            int dash = v.indexOf('-');
            long lo = serial(dash < 0 ? v : v.substring(0, dash), v, where);
            long hi = lo;
            if (dash >= 0) {
                hi = serial(v.substring(dash + 1), v.substring(dash + 1), where);
                if (Long.compareUnsigned(hi, lo) <= 0) {
                    throw new IllegalArgumentException(where + ": invalid serial range " + Long.toUnsignedString(lo)
                            + ":" + Long.toUnsignedString(hi));
                }
            }
            b.revokeSerials(ca.blob(), lo, hi);
        } else if (lower.startsWith("id:")) {
            if (!ca.given()) {
                throw new IllegalArgumentException("revoking certificates by key ID requires specification of a CA"
                        + " key");
            }
            b.revokeKeyId(ca.blob(), value(line, 3));
        } else if (lower.startsWith("hash:")) {
            b.revokeSha256(fingerprintHash(value(line, 5), where));
        } else if (lower.startsWith("key:")) {
            b.revokeKey(Krl.plainKey(key(value(line, 4), where)));
        } else if (lower.startsWith("sha1:")) {
            b.revokeSha1(Krl.digest("SHA-1", Krl.plainKey(key(value(line, 5), where))));
        } else if (lower.startsWith("sha256:")) {
            b.revokeSha256(Krl.digest("SHA-256", Krl.plainKey(key(value(line, 7), where))));
        } else {
            b.revoke(key(line, where));
        }
    }

    private static String value(String line, int prefix) {
        return line.substring(prefix).replaceFirst("^[ \t]+", "");
    }

    private static byte[] key(String text, String where) {
        try {
            return PublicKeyLine.parse(text).blob();
        } catch (KeyFileException e) {
            throw new IllegalArgumentException(where + ": invalid key: invalid format");
        }
    }

    /** {@code hash:}'s value: an ssh-keygen -l SHA256 fingerprint ({@code SHA256:} and unpadded base64). */
    private static byte[] fingerprintHash(String fp, String where) {
        if (fp.regionMatches(true, 0, "SHA256:", 0, 7)) {
            try {
                byte[] h = Base64.getDecoder().decode(fp.substring(7));
                if (h.length == 32) {
                    return h;
                }
            } catch (IllegalArgumentException e) {
                // reported below
            }
        }
        throw new IllegalArgumentException(where + ": unsupported hash \"" + fp + "\"");
    }

    /** strtoull with base 0, as ssh-keygen reads KRL serials: 0x hex, leading 0 octal, else decimal. */
    private static long serial(String s, String shown, String where) {
        try {
            if (s.matches("0[xX][0-9a-fA-F]+")) {
                return Long.parseUnsignedLong(s.substring(2), 16);
            }
            if (s.matches("0[0-7]*")) {
                return s.length() == 1 ? 0 : Long.parseUnsignedLong(s.substring(1), 8);
            }
            if (s.matches("[1-9][0-9]*")) {
                return Long.parseUnsignedLong(s);
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(where + ": serial out of range");
        }
        throw new IllegalArgumentException(where + ": invalid serial \"" + shown + "\"");
    }

    /** {@code -Q}: each key tested against the KRL; exit 1 when any is revoked. {@code dump}: print it first. */
    static int check(Path krlFile, boolean dump, List<Path> keys, PrintStream out) throws Exception {
        if (krlFile == null) {
            throw new IllegalArgumentException("KRL checking requires an input file");
        }
        Krl krl = load(krlFile);
        if (dump) {
            dump(krl, out);
        }
        int rc = 0;
        for (Path k : keys) {
            PublicKeyLine line;
            try {
                line = KeyFiles.publicKey(k);
            } catch (NoSuchFileException e) {
                throw new IllegalArgumentException("Cannot load public key " + k + ": No such file or directory");
            } catch (KeyFileException e) {
                throw new IllegalArgumentException("Cannot load public key " + k + ": invalid format");
            }
            boolean revoked;
            try {
                revoked = krl.revocation(line.blob()).isPresent();
            } catch (MalformedMessageException e) {
                throw new IllegalArgumentException("Cannot load public key " + k + ": " + e.getMessage());
            }
            String comment = line.comment().isEmpty() ? k.toString() : line.comment();
            out.println(k + " (" + comment + "): " + (revoked ? "REVOKED" : "ok"));
            if (revoked) {
                rc = 1;
            }
        }
        return rc;
    }

    static Krl load(Path file) throws IOException {
        byte[] data;
        try {
            data = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("Unable to load KRL " + file + ": No such file or directory");
        } catch (AccessDeniedException e) {
            throw new IllegalArgumentException("Unable to load KRL " + file + ": Permission denied");
        }
        if (!Krl.isKrl(data)) {
            throw new IllegalArgumentException("Invalid KRL file " + file + ": KRL file has invalid magic number");
        }
        try {
            return Krl.parse(data);
        } catch (MalformedMessageException e) {
            throw new IllegalArgumentException("Invalid KRL file " + file + ": " + e.getMessage());
        }
    }

    /** {@code -Q -l}: ssh-keygen's KRL listing (explicit keys, SHA256 then SHA1 hashes, then each CA's section). */
    static void dump(Krl krl, PrintStream out) throws Exception {
        out.println("# KRL version " + Long.toUnsignedString(krl.version()));
        out.println("# Generated at " + GENERATED.format(LocalDateTime.ofInstant(
                Instant.ofEpochSecond(krl.generated()), ZoneId.systemDefault())));
        if (!krl.comment().isEmpty()) {
            out.println("# Comment: " + krl.comment());
        }
        out.println();
        for (byte[] k : krl.explicitKeys()) {
            out.println("hash: " + SshCertificate.fingerprint(k) + " # " + PublicKeyLine.blobKeyType(k));
        }
        for (byte[] h : krl.sha256()) {
            out.println("hash: SHA256:" + HexFormat.of().formatHex(h));
        }
        for (byte[] h : krl.sha1()) {
            out.println("# hash SHA1:" + HexFormat.of().formatHex(h));
        }
        for (Krl.CaRevocations c : krl.certificates()) {
            out.println();
            out.println(c.caKey().length == 0 ? "# Wildcard CA" : "# CA key " + PublicKeyLine.blobKeyType(c.caKey())
                    + " " + SshCertificate.fingerprint(c.caKey()));
            for (long[] r : merged(c.serialRanges())) {
                out.println("serial: " + Long.toUnsignedString(r[0])
                        + (r[0] == r[1] ? "" : "-" + Long.toUnsignedString(r[1])));
            }
            c.keyIds().stream().sorted().distinct().forEach(id -> out.println("id: " + id));
        }
    }

    /** Serial ranges sorted (unsigned) and joined where they overlap or touch, as OpenSSH's range tree holds them. */
    static List<long[]> merged(List<long[]> ranges) {
        List<long[]> sorted = new ArrayList<>();
        ranges.forEach(r -> sorted.add(r.clone()));
        sorted.sort((a, b) -> Long.compareUnsigned(a[0], b[0]));
        List<long[]> out = new ArrayList<>();
        for (long[] r : sorted) {
            long[] last = out.isEmpty() ? null : out.get(out.size() - 1);
            if (last != null && (Long.compareUnsigned(r[0], last[1]) <= 0 || (last[1] != -1L && r[0] == last[1] + 1))) {
                if (Long.compareUnsigned(r[1], last[1]) > 0) {
                    last[1] = r[1];
                }
            } else {
                out.add(r);
            }
        }
        return out;
    }
}
