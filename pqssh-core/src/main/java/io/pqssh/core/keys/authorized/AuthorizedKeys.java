package io.pqssh.core.keys.authorized;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;

/**
 * Authorized public keys of a user, loaded from OpenSSH-style {@code authorized_keys} files (any key type, options
 * field, KEM keys as {@code mlkem512/768/1024} with the blob {@code string name, string raw_pk}) and from the
 * research implementation's {@code authorized_kem_keys} ({@code <alg> <base64 raw pk> [ignored]}). Bad lines are
 * skipped and reported with their line numbers, as sshd does; they never fail the whole file.
 */
public final class AuthorizedKeys {
    private static final Logger LOG = LoggerFactory.getLogger(AuthorizedKeys.class);

    private final List<AuthorizedKeyEntry> entries;
    private final List<RejectedLine> rejected;

    private AuthorizedKeys(List<AuthorizedKeyEntry> entries, List<RejectedLine> rejected) {
        this.entries = Collections.unmodifiableList(entries);
        this.rejected = Collections.unmodifiableList(rejected);
    }

    public static AuthorizedKeys empty() {
        return new AuthorizedKeys(List.of(), List.of());
    }

    /** The entries of several files, in order (e.g. {@code authorized_keys} then {@code authorized_kem_keys}). */
    public static AuthorizedKeys of(AuthorizedKeys... parts) {
        List<AuthorizedKeyEntry> e = new ArrayList<>();
        List<RejectedLine> r = new ArrayList<>();
        for (AuthorizedKeys p : parts) {
            e.addAll(p.entries);
            r.addAll(p.rejected);
        }
        return new AuthorizedKeys(e, r);
    }

    public List<AuthorizedKeyEntry> entries() {
        return entries;
    }

    /** Lines that were skipped, with the reason. */
    public List<RejectedLine> rejected() {
        return rejected;
    }

    // ---------------------------------------------------------------- loading

    /** Loads an {@code authorized_keys} file; expiry times without {@code Z} are in the system time zone. */
    public static AuthorizedKeys load(Path file) throws IOException {
        return load(file, ZoneId.systemDefault());
    }

    /**
     * Loads every entry of an {@code authorized_keys} file, line by line ({@link BoundedLines}: a line longer than
     * {@link BoundedLines#MAX_LINE_BYTES} is skipped as rejected, the file is never read whole).
     */
    public static AuthorizedKeys load(Path file, ZoneId zone) throws IOException {
        return loadAll(file, zone, false);
    }

    public static AuthorizedKeys parse(String content, String source) {
        return parse(content, source, ZoneId.systemDefault());
    }

    public static AuthorizedKeys parse(String content, String source, ZoneId zone) {
        return parseAll(content, source, zone, false);
    }

    /** Loads the research implementation's {@code authorized_kem_keys}, line by line as {@link #load(Path, ZoneId)}. */
    public static AuthorizedKeys loadKemKeys(Path file) throws IOException {
        return loadAll(file, ZoneId.systemDefault(), true);
    }

    public static AuthorizedKeys parseKemKeys(String content, String source) {
        return parseAll(content, source, ZoneId.systemDefault(), true);
    }

    /**
     * sshd's look-up in one file, streamed: the first entry for {@code publicKeyBlob} that the client may use now
     * (as {@link #find(byte[], String, Instant)}), reading line by line and keeping nothing else, so the memory a
     * login costs does not grow with the file (a user's sparse 512 MB {@code authorized_keys}). A line longer than
     * {@link BoundedLines#MAX_LINE_BYTES} is skipped and reading goes on, as sshd goes on past a line it cannot use;
     * the first {@value #LOGGED_REJECTIONS} skipped lines are logged, then one count.
     */
    public static Optional<AuthorizedKeyEntry> find(Path file, boolean kemFormat, byte[] publicKeyBlob,
            String clientAddress, Instant now) throws IOException {
        return find(file, kemFormat, publicKeyBlob, clientAddress, now, false);
    }

    /**
     * As {@link #find(Path, boolean, byte[], String, Instant)} for a CA key: the first {@code cert-authority} entry
     * for {@code caKeyBlob} the client may use now (the entry's {@code principals=} then names what the
     * certificate must list).
     */
    public static Optional<AuthorizedKeyEntry> findCertAuthority(Path file, byte[] caKeyBlob, String clientAddress,
            Instant now) throws IOException {
        return find(file, false, caKeyBlob, clientAddress, now, true);
    }

    private static Optional<AuthorizedKeyEntry> find(Path file, boolean kemFormat, byte[] publicKeyBlob,
            String clientAddress, Instant now, boolean certAuthority) throws IOException {
        String source = file.toString();
        ZoneId zone = ZoneId.systemDefault();
        int rejected = 0;
        try (BoundedLines lines = BoundedLines.open(file)) {
            for (BoundedLines.Line l; (l = lines.next()) != null;) {
                AuthorizedKeyEntry e;
                try {
                    e = parseNumbered(l, source, zone, kemFormat);
                } catch (KeyFileException ex) {
                    if (++rejected <= LOGGED_REJECTIONS) {
                        LOG.warn("{}:{}: skipped: {}", source, l.number(), ex.getMessage());
                    }
                    continue;
                }
                if (e != null && e.matchesBlob(publicKeyBlob) && e.options().certAuthority() == certAuthority
                        && e.denialReason(clientAddress, null, now).isEmpty()) {
                    return Optional.of(e);
                }
            }
        } finally {
            if (rejected > LOGGED_REJECTIONS) {
                LOG.warn("{}: {} more lines skipped", source, rejected - LOGGED_REJECTIONS);
            }
        }
        return Optional.empty();
    }

    /** How many skipped lines of one file are logged one by one (a file of bad lines must not flood the log). */
    static final int LOGGED_REJECTIONS = 10;
    /** How many skipped lines {@link #rejected()} keeps. */
    static final int KEPT_REJECTIONS = 100;

    private static AuthorizedKeys loadAll(Path file, ZoneId zone, boolean kemFormat) throws IOException {
        Collected c = new Collected(file.toString());
        try (BoundedLines lines = BoundedLines.open(file)) {
            for (BoundedLines.Line l; (l = lines.next()) != null;) {
                c.add(l, zone, kemFormat);
            }
        }
        return c.done();
    }

    private static AuthorizedKeys parseAll(String content, String source, ZoneId zone, boolean kemFormat) {
        Collected c = new Collected(source);
        String[] lines = content.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String text = lines[i].endsWith("\r") ? lines[i].substring(0, lines[i].length() - 1) : lines[i];
            c.add(new BoundedLines.Line(i + 1, text, false), zone, kemFormat);
        }
        return c.done();
    }

    /** Entries and (a bounded number of) skipped lines of one file, in order. */
    private static final class Collected {
        private final String source;
        private final List<AuthorizedKeyEntry> entries = new ArrayList<>();
        private final List<RejectedLine> rejected = new ArrayList<>();
        private long rejectedCount;

        Collected(String source) {
            this.source = source;
        }

        void add(BoundedLines.Line l, ZoneId zone, boolean kemFormat) {
            try {
                AuthorizedKeyEntry e = parseNumbered(l, source, zone, kemFormat);
                if (e != null) {
                    entries.add(e);
                }
            } catch (KeyFileException e) {
                rejectedCount++;
                if (rejected.size() < KEPT_REJECTIONS) {
                    rejected.add(new RejectedLine(source, (int) Math.min(Integer.MAX_VALUE, l.number()),
                            e.getMessage()));
                }
                if (rejectedCount <= LOGGED_REJECTIONS) {
                    LOG.warn("{}:{}: skipped: {}", source, l.number(), e.getMessage());
                }
            }
        }

        AuthorizedKeys done() {
            if (rejectedCount > LOGGED_REJECTIONS) {
                LOG.warn("{}: {} more lines skipped", source, rejectedCount - LOGGED_REJECTIONS);
            }
            return new AuthorizedKeys(entries, rejected);
        }
    }

    /** One line as an entry; null for a blank or comment line; KeyFileException for a line sshd would skip. */
    private static AuthorizedKeyEntry parseNumbered(BoundedLines.Line l, String source, ZoneId zone,
            boolean kemFormat) throws KeyFileException {
        if (l.tooLong()) {
            throw new KeyFileException("line longer than " + BoundedLines.MAX_LINE_BYTES + " bytes");
        }
        String line = l.text().strip();
        if (line.isEmpty() || line.startsWith("#")) {
            return null;
        }
        int n = (int) Math.min(Integer.MAX_VALUE, l.number());
        return kemFormat ? parseKemLine(line, source, n) : parseLine(line, source, n, zone);
    }

    /** One line of {@code authorized_kem_keys}: {@code <alg> <base64 raw pk> [comment]}. */
    private static AuthorizedKeyEntry parseKemLine(String line, String source, int lineNumber)
            throws KeyFileException {
        String[] parts = line.split("[ \t]+", 3);
        Optional<KemAlgorithm> alg = KemAlgorithm.fromName(parts[0]);
        if (alg.isEmpty()) {
            throw new KeyFileException("unknown KEM algorithm '" + parts[0] + "'");
        }
        if (parts.length < 2) {
            throw new KeyFileException("missing public key after '" + parts[0] + "'");
        }
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(parts[1]);
        } catch (IllegalArgumentException e) {
            throw new KeyFileException("invalid base64 public key: " + e.getMessage());
        }
        KemPublicKey.checkEncapsulationKey(alg.get(), raw);
        KemPublicKey k = new KemPublicKey(alg.get(), raw);
        return new AuthorizedKeyEntry(source, lineNumber, AuthorizedKeyEntry.Format.AUTHORIZED_KEM_KEYS,
                k.algorithm().sshName(), k.blob(), parts.length > 2 ? parts[2] : "", AuthorizedKeyOptions.NONE, k);
    }

    /** A line for {@code authorized_kem_keys}. */
    public static String formatKemKeyLine(KemPublicKey key, String comment) {
        String s = key.algorithm().sshName() + " " + Base64.getEncoder().encodeToString(key.raw());
        return comment == null || comment.isEmpty() ? s : s + " " + comment;
    }

    // ---------------------------------------------------------------- one authorized_keys line

    private record Key(String type, byte[] blob, String comment, KemPublicKey kem) {
    }

    /** Parses one non-empty, non-comment {@code authorized_keys} line. */
    public static AuthorizedKeyEntry parseLine(String line, String source, int lineNumber, ZoneId zone)
            throws KeyFileException {
        String first = firstToken(line, 0);
        KeyFileException atStart;
        try {
            Key k = readKey(line, 0);
            return entry(source, lineNumber, k, AuthorizedKeyOptions.NONE);
        } catch (KeyFileException e) {
            atStart = e;
        }
        boolean firstIsKeyType = looksLikeKeyType(first);
        List<AuthorizedKeyOptions.RawOption> raw = new ArrayList<>();
        int end;
        try {
            end = AuthorizedKeyOptions.split(line, 0, raw);
        } catch (AuthorizedKeyOptions.OptionsException e) {
            throw firstIsKeyType ? atStart : new KeyFileException("bad key options: " + e.getMessage());
        }
        int keyStart = skipSpace(line, end);
        if (keyStart >= line.length()) {
            throw firstIsKeyType ? atStart : new KeyFileException("no key after the options field");
        }
        Key k;
        try {
            k = readKey(line, keyStart);
        } catch (KeyFileException e) {
            throw firstIsKeyType ? atStart : e;
        }
        try {
            return entry(source, lineNumber, k, AuthorizedKeyOptions.interpret(raw, zone));
        } catch (AuthorizedKeyOptions.OptionsException e) {
            throw new KeyFileException("bad key options: " + e.getMessage());
        }
    }

    private static AuthorizedKeyEntry entry(String source, int lineNumber, Key k, AuthorizedKeyOptions o) {
        return new AuthorizedKeyEntry(source, lineNumber, AuthorizedKeyEntry.Format.AUTHORIZED_KEYS, k.type(),
                k.blob(), k.comment(), o, k.kem());
    }

    private static Key readKey(String line, int pos) throws KeyFileException {
        String type = firstToken(line, pos);
        int b = skipSpace(line, pos + type.length());
        if (b >= line.length()) {
            throw new KeyFileException("missing key blob after '" + type + "'");
        }
        String b64 = firstToken(line, b);
        String comment = line.substring(skipSpace(line, b + b64.length()));
        byte[] blob;
        try {
            blob = Base64.getDecoder().decode(b64);
        } catch (IllegalArgumentException e) {
            throw new KeyFileException("invalid base64 key blob for '" + type + "': " + e.getMessage());
        }
        String inner;
        try {
            inner = new SshReader(blob).getUtf8();
        } catch (MalformedMessageException e) {
            throw new KeyFileException("malformed key blob for '" + type + "': " + e.getMessage());
        }
        Optional<KemAlgorithm> kemType = KemAlgorithm.fromName(type);
        if (kemType.isPresent() && KemAlgorithm.fromName(inner).orElse(null) == kemType.get()) {
            KemPublicKey kem = KemPublicKey.fromBlob(blob);
            return new Key(kem.algorithm().sshName(), kem.blob(), comment, kem);
        }
        if (!inner.equals(type)) {
            throw new KeyFileException("key type '" + type + "' does not match the blob's type '"
                    + printable(inner) + "'");
        }
        return new Key(type, blob, comment, null);
    }

    private static boolean looksLikeKeyType(String t) {
        if (t.indexOf('=') >= 0 || t.indexOf('"') >= 0 || t.indexOf(',') >= 0) {
            return false;
        }
        return KemAlgorithm.fromName(t).isPresent() || t.startsWith("ssh-") || t.startsWith("ecdsa-")
                || t.startsWith("sk-") || t.startsWith("rsa-") || t.indexOf('@') >= 0;
    }

    private static String firstToken(String s, int from) {
        int i = from;
        while (i < s.length() && s.charAt(i) != ' ' && s.charAt(i) != '\t') {
            i++;
        }
        return s.substring(from, i);
    }

    private static int skipSpace(String s, int from) {
        int i = from;
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            b.append(c >= 0x20 && c < 0x7f ? c : '?');
            if (b.length() > 64) {
                return b + "...";
            }
        }
        return b.toString();
    }

    // ---------------------------------------------------------------- lookups

    /** The result of a lookup: the first usable entry, or the reasons the listed matching entries were refused. */
    public record Lookup(Optional<AuthorizedKeyEntry> entry, List<String> denials) {
    }

    /**
     * The first entry for this public key blob that the client may use now (sshd's order: later lines are tried
     * when an earlier one's {@code from=} or {@code expiry-time} refuses). {@code cert-authority} entries never
     * match a plain key. {@code clientAddress} is the numeric address; the host name is taken to be the address.
     */
    public Optional<AuthorizedKeyEntry> find(byte[] publicKeyBlob, String clientAddress, Instant now) {
        return find(publicKeyBlob, clientAddress, null, now);
    }

    /** As {@link #find(byte[], String, Instant)} with a resolved client host name (sshd's {@code UseDNS yes}). */
    public Optional<AuthorizedKeyEntry> find(byte[] publicKeyBlob, String clientAddress, String clientHostname,
            Instant now) {
        return lookup(publicKeyBlob, clientAddress, clientHostname, now).entry();
    }

    public Lookup lookup(byte[] publicKeyBlob, String clientAddress, String clientHostname, Instant now) {
        List<String> denials = new ArrayList<>();
        for (AuthorizedKeyEntry e : entries) {
            if (!e.matchesBlob(publicKeyBlob)) {
                continue;
            }
            if (e.options().certAuthority()) {
                denials.add(e.source() + ":" + e.lineNumber() + ": cert-authority key cannot authenticate "
                        + "directly");
                continue;
            }
            Optional<String> why = e.denialReason(clientAddress, clientHostname, now);
            if (why.isEmpty()) {
                return new Lookup(Optional.of(e), List.copyOf(denials));
            }
            denials.add(e.source() + ":" + e.lineNumber() + ": " + why.get());
        }
        return new Lookup(Optional.empty(), List.copyOf(denials));
    }

    /** Lookup of an ML-KEM key by algorithm and raw encapsulation key. */
    public Optional<AuthorizedKeyEntry> findKem(KemAlgorithm algorithm, byte[] rawPublicKey, String clientAddress,
            Instant now) {
        return findKem(algorithm, rawPublicKey, clientAddress, null, now);
    }

    public Optional<AuthorizedKeyEntry> findKem(KemAlgorithm algorithm, byte[] rawPublicKey, String clientAddress,
            String clientHostname, Instant now) {
        if (rawPublicKey.length != algorithm.publicKeyBytes()) {
            return Optional.empty();
        }
        return find(KemPublicKey.blob(algorithm, rawPublicKey), clientAddress, clientHostname, now);
    }

    /** All entries listing this key, whatever their restrictions. */
    public List<AuthorizedKeyEntry> entriesFor(byte[] publicKeyBlob) {
        return entries.stream().filter(e -> e.matchesBlob(publicKeyBlob)).toList();
    }
}
