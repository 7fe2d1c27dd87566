package io.pqssh.inventory.scan;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPInputStream;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;

import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.PublicKeyLine;

/**
 * Streams ZGrab2 output (one JSON object per line, as zgrab2's {@code Grab} struct: {@code ip}, {@code domain},
 * {@code port}, {@code error}, {@code data: {SCANNER_NAME: ScanResponse}}; a {@code ScanResponse} is {@code status},
 * {@code protocol}, {@code port}, {@code result} (the ssh module's {@code HandshakeLog}: {@code server_id},
 * {@code server_key_exchange}, {@code key_exchange.server_host_key}), {@code timestamp}, {@code error}) into the same
 * {@link ScanResult}s a live scan gives, one record at a time: memory does not depend on the input size.
 *
 * <p>Handled as zgrab2 writes them: records without {@code data} (name resolution failed, only the grab's
 * {@code error}); scanner panics ({@code "status":"unknown-error"}, {@code "port":0}, {@code "error":"panic: ..."});
 * multi-module runs (every response whose {@code protocol} is {@code ssh}, under whatever scanner name); handshake
 * failures where zgrab2, which has no post-quantum key exchange, could not agree on one: its error text
 * ({@code ssh: no common algorithm for key exchange; client offered: [...], server offered: [...]}) is the only
 * record of the server's list; {@code --hello-only} records (only {@code server_id}). A record that cannot be read is
 * reported with its line number and skipped; the rest of the input goes on.
 */
public final class Zgrab2Reader {
    /** Longer lines are skipped as bad records (without buffering them). */
    public static final int MAX_LINE = 4 << 20;
    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build()).build();
    private static final String PENALTY = "Not allowed at this time";

    private Zgrab2Reader() {
    }

    /** Receives results and bad records as the input is read. */
    public interface Handler {
        void result(ScanResult r) throws IOException;

        /** {@code line} is 1-based. */
        void badRecord(long line, String error);
    }

    /** The input was not something to classify at all (not gzip though it said so, unreadable). */
    public static final class InputException extends IOException {
        private static final long serialVersionUID = 1L;

        public InputException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Opens FILE, or stdin for {@code -}; gzip input (by its magic bytes, not the name) is decompressed. */
    public static InputStream open(String source) throws IOException {
        InputStream raw = source.equals("-") ? System.in : Files.newInputStream(Path.of(source));
        BufferedInputStream in = new BufferedInputStream(raw, 1 << 16);
        in.mark(2);
        int b0 = in.read();
        int b1 = in.read();
        in.reset();
        if (b0 == 0x1f && b1 == 0x8b) {
            return new ReadAhead(new GZIPInputStream(in, 1 << 16));
        }
        return in;
    }

    /** Reads every line; returns the number of lines read. I/O errors of the input end the read (with the line). */
    public static long read(InputStream in, String source, int defaultPort, Handler h) throws IOException {
        return read(in, source, defaultPort, h, new Memo());
    }

    static long read(InputStream in, String source, int defaultPort, Handler h, Memo memo) throws IOException {
        LineReader lines = new LineReader(in, MAX_LINE);
        long n = 0;
        while (true) {
            int len;
            try {
                len = lines.next();
            } catch (java.util.zip.ZipException | java.io.EOFException e) {
                throw new InputException(source + ":" + (n + 1) + ": corrupt gzip input: " + e.getMessage(), e);
            }
            if (len == LineReader.EOF) {
                return n;
            }
            n++;
            if (len == LineReader.TOO_LONG) {
                h.badRecord(n, "line longer than " + MAX_LINE + " bytes");
                continue;
            }
            if (isBlank(lines.buffer(), len)) {
                continue;
            }
            List<ScanResult> rs;
            try {
                rs = records(lines.buffer(), len, defaultPort, memo);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                h.badRecord(n, "not a ZGrab2 record: " + oneLine(e.getOriginalMessage())
                        + (e.getLocation() != null ? " (column " + e.getLocation().getColumnNr() + ")" : ""));
                continue;
            } catch (IOException | IllegalArgumentException e) {
                h.badRecord(n, "not a ZGrab2 record: " + oneLine(e.getMessage()));
                continue;
            }
            for (ScanResult r : rs) {
                h.result(r);
            }
        }
    }

    /** All results of one file (tests and small inputs); bad records go to {@code bad}. */
    public static List<ScanResult> readAll(Path file, int defaultPort, List<String> bad) throws IOException {
        List<ScanResult> out = new ArrayList<>();
        try (InputStream in = open(file.toString())) {
            read(in, file.toString(), defaultPort, new Handler() {
                @Override
                public void result(ScanResult r) {
                    out.add(r);
                }

                @Override
                public void badRecord(long line, String error) {
                    bad.add(file + ":" + line + ": " + error);
                }
            });
        }
        return out;
    }

    /** The results of one record (a line of JSON): one per ssh response in it. */
    public static List<ScanResult> records(String line, int defaultPort) throws IOException {
        byte[] b = line.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return records(b, b.length, defaultPort, new Memo());
    }

    static List<ScanResult> records(byte[] buf, int len, int defaultPort, Memo memo) throws IOException {
        KexText kt = memo.kexText;
        int at = KexText.objectAt(buf, len);
        KexCache.Entry known = at >= 0 && kt.scan(buf, at, len) ? kt.find(buf) : null;
        if (known != null) {
            // a KEXINIT seen before: the parser reads the line without the object's members ("...":{}), so that it
            // neither splits nor steps over them again
            int end = kt.end() - 1;
            int shortLength = len - (end - at - 1);
            byte[] s = memo.shortLine(shortLength);
            System.arraycopy(buf, 0, s, 0, at + 1);
            System.arraycopy(buf, end, s, at + 1, len - end);
            memo.known(at, known);
            try {
                return parse(s, shortLength, defaultPort, memo);
            } catch (IOException | IllegalArgumentException e) {
                // a bad record: read again as it is, for the error (and its column) the whole line gives
            } finally {
                memo.known(-1, null);
            }
        }
        return parse(buf, len, defaultPort, memo);
    }

    private static List<ScanResult> parse(byte[] buf, int len, int defaultPort, Memo memo) throws IOException {
        Grab g = new Grab();
        memo.line(buf, len);
        try (JsonParser p = JSON.createParser(buf, 0, len)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                JsonToken t = p.nextToken();
                switch (f) {
                    case "ip" -> g.ip = text(p, t);
                    case "domain" -> g.domain = text(p, t);
                    case "port" -> g.port = t == JsonToken.VALUE_NUMBER_INT ? p.getIntValue() : 0;
                    case "error" -> g.error = text(p, t);
                    case "data" -> data(p, t, g, memo);
                    default -> p.skipChildren();
                }
            }
            if (p.nextToken() != null) {
                throw new IllegalArgumentException("trailing data after the JSON object");
            }
        }
        String host = g.ip != null && !g.ip.isEmpty() ? g.ip : g.domain;
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("no \"ip\" or \"domain\"");
        }
        int grabPort = g.port > 0 && g.port <= 65535 ? g.port : defaultPort;
        if (g.responses.isEmpty()) {
            if (g.error != null) {
                // the grab failed before any module ran: zgrab2 could not resolve the name
                boolean dns = g.error.contains("resolve") || g.error.contains("lookup") || g.error.contains("no such host");
                return List.of(failed(new Target(host, grabPort), ScanResult.Status.UNREACHABLE,
                        (dns ? "unreachable: unknown host (zgrab2: " : "unreachable: zgrab2: (")
                                + oneLine(g.error) + ")"));
            }
            throw new IllegalArgumentException(g.sawData ? "no ssh response in data (modules: "
                    + String.join(", ", g.otherModules) + ")" : "no \"data\" and no \"error\"");
        }
        List<ScanResult> out = new ArrayList<>(g.responses.size());
        for (Response r : g.responses) {
            int port = r.port > 0 && r.port <= 65535 ? r.port : grabPort;
            out.add(result(new Target(host, port), r));
        }
        return out;
    }

    private static ScanResult result(Target t, Response r) {
        String status = r.status == null ? "unknown" : r.status;
        String fullErr = r.error;
        String err = r.error == null ? null : oneLine(r.error);
        if (err != null && err.startsWith("panic:")) {
            return failed(t, ScanResult.Status.SCAN_ERROR, "scan error: zgrab2 scanner " + r.name + " " + err);
        }
        if (r.kexEntry != null || (r.kex != null && r.kex.kex != null)) {
            // the cached entry's KexInit (equal to this one): the sinks' own KexCache look-ups then find it by identity
            KexCache.Entry e = r.kexEntry != null ? r.kexEntry : KexCache.of(r.kex.toKexInit());
            return new ScanResult(t, ScanResult.Status.SSH, null, r.serverIdRaw, r.software, e.kexInit(),
                    e.classification(), r.hostKeys, 1, 0, ScanResult.Evidence.KEXINIT);
        }
        if (err != null) {
            ScanResult fromText = fromErrorText(t, r, fullErr);
            if (fromText != null) {
                return fromText;
            }
            if (err.contains(PENALTY)) {
                return failed(t, ScanResult.Status.UNREACHABLE, penalty());
            }
        }
        if (status.equals("success") && r.serverIdRaw != null) {
            // --hello-only: the identification line is all there is
            return new ScanResult(t, ScanResult.Status.SSH, null, r.serverIdRaw, r.software, null, null, List.of(), 1, 0,
                    ScanResult.Evidence.BANNER);
        }
        String why = "zgrab2 " + status + (err == null ? "" : ": " + err);
        return switch (status) {
            case "connection-refused", "connection-timeout", "blocklisted-target" ->
                failed(t, ScanResult.Status.UNREACHABLE, "unreachable: " + why);
            case "unknown-error" -> failed(t, ScanResult.Status.SCAN_ERROR, "scan error: " + why);
            default -> failed(t, ScanResult.Status.NOT_SSH, "not ssh: " + why);
        };
    }

    /** The error for an OpenSSH PerSourcePenalties refusal. */
    public static String penalty() {
        return "unreachable: refused by the server's connection penalty (\"" + PENALTY + "\": OpenSSH"
                + " PerSourcePenalties; retry later or from another address)";
    }

    /**
     * zgrab2's lib/ssh {@code findCommon}: {@code ssh: no common algorithm for WHAT; client offered: [a b],
     * server offered: [c d]} (Go's %v of a string slice). For key exchange the server's list is its whole KEX offer.
     */
    static ScanResult fromErrorText(Target t, Response r, String err) {
        int at = err.indexOf("no common algorithm for ");
        int so = err.indexOf("server offered: [", at < 0 ? 0 : at);
        if (at < 0 || so < 0) {
            return null;
        }
        String what = err.substring(at + "no common algorithm for ".length(), err.indexOf(';', at) < 0 ? at
                + "no common algorithm for ".length() : err.indexOf(';', at));
        int end = err.indexOf(']', so);
        if (end < 0) {
            return null;
        }
        List<String> names = new ArrayList<>();
        for (String s : err.substring(so + "server offered: [".length(), end).split(" ")) {
            if (!s.isEmpty()) {
                checkName("server offered", s, names.size());
                names.add(s);
            }
        }
        String note = "zgrab2 could not complete the handshake (no common " + what + "); classified from its error text";
        if (what.equals("key exchange")) {
            KexInit k = new KexInit(List.copyOf(names), List.of(), List.of(), List.of(), List.of(), List.of(),
                    List.of(), List.of(), List.of(), List.of(), false);
            return new ScanResult(t, ScanResult.Status.SSH, note, r.serverIdRaw, r.software, k, Classification.of(k),
                    List.of(), 1, 0, ScanResult.Evidence.ERROR_TEXT);
        }
        if (what.equals("host key")) {
            // a key exchange from zgrab2's classical list was agreed, but the server's full KEX list is unknown
            KexInit k = new KexInit(List.of(), List.copyOf(names), List.of(), List.of(), List.of(), List.of(),
                    List.of(), List.of(), List.of(), List.of(), false);
            return new ScanResult(t, ScanResult.Status.SSH, note, r.serverIdRaw, r.software, k, null, List.of(), 1, 0,
                    ScanResult.Evidence.ERROR_TEXT);
        }
        return null;
    }

    private static ScanResult failed(Target t, ScanResult.Status st, String error) {
        return new ScanResult(t, st, error, null, null, null, null, List.of(), 1, 0, ScanResult.Evidence.NONE);
    }

    private static final class Grab {
        String ip;
        String domain;
        int port;
        String error;
        boolean sawData;
        final List<Response> responses = new ArrayList<>(1);
        final List<String> otherModules = new ArrayList<>(1);
    }

    static final class Response {
        String name;
        String status;
        String protocol;
        int port;
        String error;
        String serverIdRaw;
        String software;
        Lists kex;
        /** Set instead of {@link #kex} when the KEXINIT's text was recognised (or kept). */
        KexCache.Entry kexEntry;
        List<ScanResult.HostKey> hostKeys = List.of();
    }

    private static final class Lists {
        List<String> kex;
        List<String> hostKey = List.of();
        List<String> c2s = List.of();
        List<String> s2c = List.of();
        List<String> macC2s = List.of();
        List<String> macS2c = List.of();
        List<String> compC2s = List.of();
        List<String> compS2c = List.of();
        List<String> langC2s = List.of();
        List<String> langS2c = List.of();
        boolean follows;

        KexInit toKexInit() {
            return new KexInit(kex, hostKey, c2s, s2c, macC2s, macS2c, compC2s, compS2c, langC2s, langS2c, follows);
        }
    }

    private static void data(JsonParser p, JsonToken t, Grab g, Memo memo) throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            return;
        }
        if (t != JsonToken.START_OBJECT) {
            throw new IllegalArgumentException("\"data\" is not an object");
        }
        g.sawData = true;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            if (p.nextToken() != JsonToken.START_OBJECT) {
                p.skipChildren();
                continue;
            }
            Response r = response(p, name, memo);
            // a panicking scanner's response carries its scanner name as protocol
            // (older zgrab2 versions wrote no protocol; a scanner is named after its module by default)
            boolean sshName = name.toLowerCase(Locale.ROOT).contains("ssh");
            boolean ssh = "ssh".equals(r.protocol) || (sshName && (r.protocol == null || r.protocol.equals(name)));
            if (ssh) {
                g.responses.add(r);
            } else if (g.otherModules.size() < 8) {
                g.otherModules.add(name);
            }
        }
    }

    private static Response response(JsonParser p, String name, Memo memo) throws IOException {
        Response r = new Response();
        r.name = name;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken t = p.nextToken();
            switch (f) {
                case "status" -> r.status = memo.text(p, t);
                case "protocol" -> r.protocol = memo.text(p, t);
                case "port" -> r.port = t == JsonToken.VALUE_NUMBER_INT ? p.getIntValue() : 0;
                case "error" -> r.error = text(p, t);
                case "result" -> {
                    if (t == JsonToken.START_OBJECT) {
                        result(p, r, memo);
                    } else {
                        p.skipChildren();
                    }
                }
                default -> p.skipChildren();
            }
        }
        return r;
    }

    private static void result(JsonParser p, Response r, Memo memo) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken t = p.nextToken();
            switch (f) {
                case "server_id" -> {
                    if (t != JsonToken.START_OBJECT) {
                        p.skipChildren();
                        break;
                    }
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String g = p.currentName();
                        JsonToken v = p.nextToken();
                        switch (g) {
                            case "raw" -> r.serverIdRaw = memo.text(p, v);
                            case "software" -> r.software = memo.text(p, v);
                            default -> p.skipChildren();
                        }
                    }
                }
                case "server_key_exchange" -> {
                    if (t == JsonToken.START_OBJECT) {
                        kexInit(p, r, memo);
                    } else {
                        p.skipChildren();
                    }
                }
                case "key_exchange" -> {
                    if (t != JsonToken.START_OBJECT) {
                        p.skipChildren();
                        break;
                    }
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String g = p.currentName();
                        JsonToken v = p.nextToken();
                        if (g.equals("server_host_key") && v == JsonToken.START_OBJECT) {
                            r.hostKeys = hostKey(p, memo);
                        } else {
                            p.skipChildren();
                        }
                    }
                }
                default -> p.skipChildren();
            }
        }
    }

    /**
     * The {@code server_key_exchange} object the parser has just entered: a text seen before (its name lists, byte
     * for byte) gives the KEXINIT and classification it gave then without splitting the lists again
     * ({@link KexText}); else it is parsed, and kept when it could be recognised.
     */
    private static void kexInit(JsonParser p, Response r, Memo memo) throws IOException {
        KexText kt = memo.kexText;
        // the parser reads the line's bytes in place and stands just after the object's '{'
        int at = (int) p.currentLocation().getByteOffset() - 1;
        if (at == memo.knownAt) {
            // the object records() recognised and emptied
            if (p.nextToken() != JsonToken.END_OBJECT) {
                throw new IllegalStateException("server_key_exchange not emptied");
            }
            r.kex = null;
            r.kexEntry = memo.knownEntry;
            memo.kexTextHits++;
            return;
        }
        boolean scanned = kt.scan(memo.line, at, memo.lineLength);
        r.kex = lists(p, memo);
        r.kexEntry = null;
        if (scanned && r.kex.kex != null) {
            r.kexEntry = KexCache.of(r.kex.toKexInit());
            kt.keep(memo.line, r.kexEntry);
        }
    }

    private static Lists lists(JsonParser p, Memo memo) throws IOException {
        Lists l = new Lists();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken t = p.nextToken();
            switch (f) {
                case "kex_algorithms" -> l.kex = names(p, t, f, memo);
                case "host_key_algorithms" -> l.hostKey = names(p, t, f, memo);
                case "client_to_server_ciphers" -> l.c2s = names(p, t, f, memo);
                case "server_to_client_ciphers" -> l.s2c = names(p, t, f, memo);
                case "client_to_server_macs" -> l.macC2s = names(p, t, f, memo);
                case "server_to_client_macs" -> l.macS2c = names(p, t, f, memo);
                case "client_to_server_compression" -> l.compC2s = names(p, t, f, memo);
                case "server_to_client_compression" -> l.compS2c = names(p, t, f, memo);
                case "client_to_server_languages" -> l.langC2s = names(p, t, f, memo);
                case "server_to_client_languages" -> l.langS2c = names(p, t, f, memo);
                case "first_kex_follows" -> l.follows = t == JsonToken.VALUE_TRUE;
                default -> p.skipChildren();
            }
        }
        return l;
    }

    private static List<String> names(JsonParser p, JsonToken t, String field, Memo memo) throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            return List.of();
        }
        if (t != JsonToken.START_ARRAY) {
            throw new IllegalArgumentException(field + " is not an array");
        }
        List<String> l = new ArrayList<>();
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.VALUE_STRING) {
                throw new IllegalArgumentException(field + " has a non-string entry");
            }
            String s = memo.text(p, t);
            checkName(field, s, l.size());
            l.add(s);
        }
        return List.copyOf(l);
    }

    private static void checkName(String field, String s, int count) {
        if (s.isEmpty() || s.length() > KexInit.MAX_NAME || count >= KexInit.MAX_NAMES) {
            throw new IllegalArgumentException(field + " has an empty or over-long name or too many names");
        }
    }

    private static List<ScanResult.HostKey> hostKey(JsonParser p, Memo memo) throws IOException {
        Memo.Key seen = null;
        String raw = null;
        String alg = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken t = p.nextToken();
            switch (f) {
                case "raw" -> {
                    if (t == JsonToken.VALUE_STRING) {
                        seen = memo.key(p);
                        raw = seen.raw;
                    } else {
                        p.skipChildren();
                    }
                }
                case "algorithm" -> alg = memo.text(p, t);
                default -> p.skipChildren();
            }
        }
        if (raw == null) {
            return List.of();
        }
        if (seen.keys != null && java.util.Objects.equals(seen.algorithm, alg)) {
            return seen.keys;
        }
        seen.algorithm = alg;
        seen.keys = hostKey(raw, alg);
        return seen.keys;
    }

    /** A host key from its base64 blob, decoded once (type, fingerprint, size and certificate from the same bytes). */
    static List<ScanResult.HostKey> hostKey(String raw, String alg) {
        try {
            byte[] blob = Base64.getDecoder().decode(raw);
            String type = PublicKeyLine.blobKeyType(blob);
            String fingerprint;
            int bits;
            try {
                io.pqssh.inventory.audit.KeyInfo info = io.pqssh.inventory.audit.KeyInfo.of(blob);
                fingerprint = info.fingerprint();
                bits = info.bits();
            } catch (io.pqssh.core.wire.MalformedMessageException | IllegalArgumentException e) {
                fingerprint = KeyFingerprints.sha256(blob);
                bits = 0; // as HostKey's own reading of the size: an unreadable body has no size
            }
            return List.of(new ScanResult.HostKey(alg != null ? alg : type, type, fingerprint, type + " " + raw, null,
                    bits, HostCertificate.of(blob).orElse(null)));
        } catch (IllegalArgumentException | KeyFileException e) {
            // the record stays: only this key is unreadable
            return List.of(new ScanResult.HostKey(alg != null ? alg : "unknown", null, null, null,
                    "server_host_key.raw unreadable: " + oneLine(e.getMessage())));
        }
    }

    /**
     * What one input repeats, kept once (bounded, direct-mapped: a slot holds the last value that hashed to it): the
     * short strings (algorithm names, banners, statuses) as one String each, so that equal KEXINITs are made of the
     * same Strings (their hashes computed once, {@code equals} by identity); and each host key blob's decoded key,
     * so that a key seen on many hosts is base64-decoded and fingerprinted once. Values are kept by content, so the
     * results are the ones reading every record afresh gives.
     */
    static final class Memo {
        private static final int TEXTS = 1 << 12;
        private static final int KEYS = 1 << 10;
        /** Longer strings are not kept (a banner is at most 255 bytes). */
        private static final int MAX_TEXT = 256;
        /** Longer key blobs are decoded every time (ML-DSA-87 is ~3.5 K characters of base64). */
        private static final int MAX_KEY = 8192;
        private final String[] texts = new String[TEXTS];
        private final Key[] keys = new Key[KEYS];
        /** KEXINITs recognised by their text. */
        final KexText kexText = new KexText();
        /** The record being read (the parser reads these bytes in place). */
        byte[] line;
        int lineLength;
        /** KEXINITs taken from {@link #kexText} (tests). */
        long kexTextHits;

        /** Where records() emptied a recognised server_key_exchange object (its '{'), and its KEXINIT. */
        int knownAt = -1;
        KexCache.Entry knownEntry;
        private byte[] shortLine = new byte[8192];

        void line(byte[] b, int len) {
            line = b;
            lineLength = len;
        }

        void known(int at, KexCache.Entry e) {
            knownAt = at;
            knownEntry = e;
        }

        /** A buffer for a line read without its KEXINIT's members (at least {@code n} bytes). */
        byte[] shortLine(int n) {
            if (shortLine.length < n) {
                shortLine = new byte[Math.max(n, shortLine.length * 2)];
            }
            return shortLine;
        }

        /** A host key's {@code raw} text and, once read, its key (for the {@code algorithm} it was read with). */
        static final class Key {
            final String raw;
            String algorithm;
            List<ScanResult.HostKey> keys;

            Key(String raw) {
                this.raw = raw;
            }
        }

        /** As {@link Zgrab2Reader#text}, the same String for the same short text. */
        String text(JsonParser p, JsonToken t) throws IOException {
            if (t != JsonToken.VALUE_STRING) {
                p.skipChildren();
                return null;
            }
            char[] c = p.getTextCharacters();
            int off = p.getTextOffset();
            int len = p.getTextLength();
            if (len > MAX_TEXT) {
                return new String(c, off, len);
            }
            int slot = slot(c, off, len, TEXTS);
            String s = texts[slot];
            if (s == null || !same(s, c, off, len)) {
                s = new String(c, off, len);
                texts[slot] = s;
            }
            return s;
        }

        /** The current string token as a host key's raw text, with what was read of it before. */
        Key key(JsonParser p) throws IOException {
            char[] c = p.getTextCharacters();
            int off = p.getTextOffset();
            int len = p.getTextLength();
            if (len > MAX_KEY) {
                return new Key(new String(c, off, len));
            }
            int slot = slot(c, off, len, KEYS);
            Key k = keys[slot];
            if (k == null || !same(k.raw, c, off, len)) {
                k = new Key(new String(c, off, len));
                keys[slot] = k;
            }
            return k;
        }

        private static int slot(char[] c, int off, int len, int size) {
            int h = 0;
            for (int i = off; i < off + len; i++) {
                h = 31 * h + c[i];
            }
            return (h ^ (h >>> 16)) & (size - 1);
        }

        private static boolean same(String s, char[] c, int off, int len) {
            if (s.length() != len) {
                return false;
            }
            for (int i = 0; i < len; i++) {
                if (s.charAt(i) != c[off + i]) {
                    return false;
                }
            }
            return true;
        }
    }

    private static String text(JsonParser p, JsonToken t) throws IOException {
        if (t == JsonToken.VALUE_STRING) {
            return p.getText();
        }
        p.skipChildren();
        return null;
    }

    private static boolean isBlank(byte[] b, int len) {
        for (int i = 0; i < len; i++) {
            if (b[i] != ' ' && b[i] != '\t' && b[i] != '\r') {
                return false;
            }
        }
        return true;
    }

    static String oneLine(String s) {
        if (s == null) {
            return "";
        }
        String o = s.indexOf('\n') < 0 && s.indexOf('\r') < 0 ? s : s.replaceAll("[\\r\\n]+", " ");
        return o.length() > 300 ? o.substring(0, 300) + "..." : o;
    }

    /** Lines of bytes, each at most {@code max} long; longer lines are skipped to their end without buffering. */
    static final class LineReader {
        static final int EOF = -1;
        static final int TOO_LONG = -2;
        private final InputStream in;
        private final int max;
        private byte[] line = new byte[8192];
        private final byte[] buf = new byte[1 << 16];
        private int pos;
        private int lim;

        LineReader(InputStream in, int max) {
            this.in = in;
            this.max = max;
        }

        byte[] buffer() {
            return line;
        }

        private static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles
                .byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
        private static final long ONES = 0x0101010101010101L;
        private static final long HIGHS = 0x8080808080808080L;
        private static final long NEWLINES = ONES * '\n';

        /** The index of the first '\n' in {@code b[from, to)}, or {@code to}; eight bytes at a time. */
        static int newline(byte[] b, int from, int to) {
            int i = from;
            for (; i + 8 <= to; i += 8) {
                long x = (long) LONGS.get(b, i) ^ NEWLINES;
                // a zero byte of x is a newline (the lowest such byte is found exactly)
                long found = (x - ONES) & ~x & HIGHS;
                if (found != 0) {
                    return i + (Long.numberOfTrailingZeros(found) >>> 3);
                }
            }
            while (i < to && b[i] != '\n') {
                i++;
            }
            return i;
        }

        /** The length of the next line (without the newline), {@link #EOF}, or {@link #TOO_LONG}. */
        int next() throws IOException {
            int n = 0;
            boolean tooLong = false;
            boolean any = false;
            while (true) {
                if (pos == lim) {
                    lim = in.read(buf, 0, buf.length);
                    pos = 0;
                    if (lim <= 0) {
                        lim = 0;
                        return !any ? EOF : tooLong ? TOO_LONG : n;
                    }
                }
                any = true;
                int start = pos;
                pos = newline(buf, pos, lim);
                int chunk = pos - start;
                if (!tooLong) {
                    if (n + chunk > max) {
                        tooLong = true;
                    } else {
                        if (n + chunk > line.length) {
                            line = java.util.Arrays.copyOf(line, Math.min(max, Math.max(line.length * 2, n + chunk)));
                        }
                        System.arraycopy(buf, start, line, n, chunk);
                        n += chunk;
                    }
                }
                if (pos < lim) {
                    pos++; // the newline
                    return tooLong ? TOO_LONG : n;
                }
            }
        }
    }
}
