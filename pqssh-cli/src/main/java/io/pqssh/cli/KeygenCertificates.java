package io.pqssh.cli;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.pqssh.client.keys.KeyDescriptions;
import io.pqssh.core.cert.CaSigner;
import io.pqssh.core.cert.CertificateSigner;
import io.pqssh.core.cert.CertificateType;
import io.pqssh.core.cert.ClassicalSignatures;
import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.keys.openssh.OpenSshPrivateKey;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.core.wire.SshWriter;

/** {@code pqssh keygen -s} (issue certificates) and {@code -L} (list them), worded as ssh-keygen 9.x. */
final class KeygenCertificates {
    private static final DateTimeFormatter SHOWN = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss");
    private static final Set<String> FLAG_EXTENSIONS = Set.of("permit-X11-forwarding", "permit-agent-forwarding",
            "permit-port-forwarding", "permit-pty", "permit-user-rc", "no-touch-required");

    private KeygenCertificates() {
    }

    /** What {@code -s} was asked to do. */
    record Request(Path ca, boolean caInAgent, String passphrase, String keyId, boolean host, String principals, String validity,
            String serial, List<String> options, List<Path> keys) {
    }

    static int sign(Request q, PrintStream err) throws Exception {
        if (q.keyId() == null) {
            throw new IllegalArgumentException("Must specify key id (-I) when certifying");
        }
        if (q.keys().isEmpty()) {
            throw new IllegalArgumentException("Too few arguments: give the public key(s) to certify");
        }
        long now = Instant.now().getEpochSecond();
        long[] validity = q.validity() == null ? new long[] {0, SshCertificate.FOREVER} : parseValidity(q.validity(), now);
        Serial serial = Serial.parse(q.serial());
        List<String> principals = q.principals() == null ? List.of() : Arrays.asList(q.principals().split(",", -1));
        if (principals.contains("")) {
            throw new IllegalArgumentException("Empty principal name"); // ssh-keygen's do_ca_sign
        }
        checkOptions(q.options());
        if (q.caInAgent()) {
            try (AgentCaSigner ca = AgentCaSigner.open(q.ca())) {
                signAll(q, ca, validity, serial, principals, err);
            }
            return 0;
        }
        if (!Files.exists(q.ca())) {
            throw new IllegalArgumentException("Load key \"" + q.ca() + "\": No such file or directory");
        }
        OpenSshPrivateKey caKey = KeygenCommand.readPrivate(q.ca(), q.passphrase());
        try {
            signAll(q, caSigner(caKey.key()), validity, serial, principals, err);
        } finally {
            caKey.destroy();
        }
        return 0;
    }

    private static void signAll(Request q, CaSigner ca, long[] validity, Serial first, List<String> principals,
            PrintStream err) throws Exception {
        long serial = first.value();
        for (Path pub : q.keys()) {
            if (!Files.exists(pub)) {
                throw new IllegalArgumentException("load pubkey \"" + pub + "\": No such file or directory");
            }
            PublicKeyLine line;
            try {
                line = PublicKeyLine.parse(Files.readString(pub));
            } catch (io.pqssh.core.keys.KeyFileException e) {
                throw new IllegalArgumentException("load pubkey \"" + pub + "\": invalid format", e);
            }
            CertificateSigner s = CertificateSigner.forKey(line.blob()).keyId(q.keyId()).serial(serial)
                    .type(q.host() ? CertificateType.HOST : CertificateType.USER).principals(principals);
            if (validity[0] != 0 || validity[1] != SshCertificate.FOREVER) {
                s.validity(validity[0], validity[1]);
            }
            for (String o : q.options()) {
                applyOption(s, o, q.host());
            }
            SshCertificate cert;
            try {
                cert = s.sign(ca, new SecureRandom());
            } catch (java.io.UncheckedIOException e) {
                throw new IllegalArgumentException("Couldn't certify " + pub + " via agent: "
                        + e.getCause().getMessage(), e);
            }
            Path out = certPath(pub);
            Files.writeString(out, cert.toLine(line.comment()) + "\n", StandardCharsets.UTF_8);
            err.println("Signed " + (q.host() ? "host" : "user") + " key " + out + ": id \"" + q.keyId()
                    + "\" serial " + Long.toUnsignedString(serial)
                    + (principals.isEmpty() ? "" : " for " + String.join(",", principals)) + " valid "
                    + validity(cert));
            if (first.increment()) {
                serial++; // ssh-keygen's -z +N: the next key on the command line gets the next number
            }
        }
    }

    static CaSigner caSigner(SshPrivateKey key) throws Exception {
        if (key instanceof SshSigningKey k) {
            return CaSigner.of(k);
        }
        if (ClassicalSignatures.handles(key.keyType())) {
            SshWriter w = new SshWriter();
            key.writePrivateFields(w);
            byte[] fields = w.toByteArray();
            try {
                return ClassicalSignatures.signer(key.keyType(), key.publicKeyBlob(), fields);
            } finally {
                Arrays.fill(fields, (byte) 0);
            }
        }
        throw new IllegalArgumentException(key.keyType() + " keys cannot sign certificates (not a signature key)");
    }

    /** ssh-keygen's {@code KEY.pub} to {@code KEY-cert.pub} (other names get {@code -cert.pub} appended). */
    static Path certPath(Path pub) {
        String n = pub.getFileName().toString();
        String base = n.endsWith(".pub") ? n.substring(0, n.length() - 4) : n;
        return pub.resolveSibling(base + "-cert.pub");
    }

    /** ssh-keygen's add_cert_option checks: force-command and source-address once each, source-address valid. */
    private static void checkOptions(List<String> options) {
        Set<String> seen = new java.util.HashSet<>();
        for (String o : options) {
            String lower = o.toLowerCase(java.util.Locale.ROOT);
            for (String n : List.of("force-command", "source-address")) {
                if (lower.startsWith(n + "=") && !seen.add(n)) {
                    throw new IllegalArgumentException(n + " already specified");
                }
            }
            if (lower.startsWith("source-address=") && io.pqssh.core.keys.authorized.OpenSshPatterns
                    .addrMatchCidrList(null, o.substring(15)) == io.pqssh.core.keys.authorized.OpenSshPatterns.ERROR) {
                throw new IllegalArgumentException("Invalid source-address list");
            }
        }
    }

    private static void applyOption(CertificateSigner s, String o, boolean host) {
        String name = o.contains("=") ? o.substring(0, o.indexOf('=')) : o;
        String value = o.contains("=") ? o.substring(o.indexOf('=') + 1) : null;
        String lower = name.toLowerCase(java.util.Locale.ROOT);
        if (lower.equals("clear")) {
            s.clearExtensions();
        } else if (lower.equals("force-command") || lower.equals("source-address")) {
            if (value == null) {
                throw new IllegalArgumentException("Invalid certificate option \"" + o + "\"");
            }
            s.criticalOption(lower, value);
        } else if (lower.equals("verify-required")) {
            s.criticalFlag(lower);
        } else if (lower.startsWith("no-")) {
            s.removeExtension(extensionName(lower.substring(3), o));
        } else if (lower.startsWith("permit-")) {
            s.extension(extensionName(lower.substring(7), o));
        } else if (lower.startsWith("critical:") || lower.startsWith("extension:")) {
            boolean critical = lower.startsWith("critical:");
            String n = name.substring(name.indexOf(':') + 1);
            if (n.isEmpty()) {
                throw new IllegalArgumentException("Invalid certificate option \"" + o + "\"");
            }
            if (critical) {
                if (value == null) {
                    s.criticalFlag(n);
                } else {
                    s.criticalOption(n, value);
                }
            } else if (value == null) {
                s.extension(n);
            } else {
                s.extension(n, value);
            }
        } else {
            throw new IllegalArgumentException("Unsupported certificate option \"" + o + "\"");
        }
    }

    private static String extensionName(String suffix, String option) {
        switch (suffix) {
            case "x11-forwarding":
                return "permit-X11-forwarding";
            case "agent-forwarding":
            case "port-forwarding":
            case "pty":
            case "user-rc":
                return "permit-" + suffix;
            default:
                throw new IllegalArgumentException("Unsupported certificate option \"" + option + "\"");
        }
    }

    /**
     * {@code -z}: a decimal unsigned 64-bit serial, as ssh-keygen's strtoull with base 10; a leading {@code +}
     * numbers the certificates of one command line from it upwards.
     */
    record Serial(long value, boolean increment) {
        static Serial parse(String s) {
            if (s == null) {
                return new Serial(0, false);
            }
            boolean increment = s.startsWith("+");
            String digits = increment ? s.substring(1) : s;
            return new Serial(parseSerial(digits), increment);
        }
    }

    /** A decimal unsigned 64-bit number; the error names the digits, as ssh-keygen's does after a {@code +}. */
    static long parseSerial(String s) {
        if (s == null) {
            return 0;
        }
        try {
            if (!s.matches("[0-9]+")) {
                throw new NumberFormatException();
            }
            return Long.parseUnsignedLong(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid serial number \"" + s + "\"");
        }
    }

    /**
     * {@code -V}: {@code from:to} with each side {@code [+-]timespec} (relative to now), {@code YYYYMMDD[HHMM[SS]]}
     * (local time, or UTC with a trailing Z), {@code 0x}hex seconds, {@code always} / {@code forever}; a lone
     * {@code +timespec} starts a minute ago, rounded down to the minute, as ssh-keygen does.
     */
    static long[] parseValidity(String spec, long now) {
        if (spec.startsWith("+") && !spec.contains(":")) {
            long from = now - 60;
            from -= from % 60;
            return new long[] {from, now + seconds(spec.substring(1), spec)};
        }
        int colon = spec.indexOf(':');
        if (colon <= 0 || colon == spec.length() - 1) {
            throw new IllegalArgumentException("Invalid certificate life specification " + spec);
        }
        String a = spec.substring(0, colon);
        String b = spec.substring(colon + 1);
        long from = a.equalsIgnoreCase("always") ? 0 : time(a, now, spec);
        long to = b.equalsIgnoreCase("forever") ? SshCertificate.FOREVER : time(b, now, spec);
        if (Long.compareUnsigned(from, to) >= 0) {
            throw new IllegalArgumentException("Empty certificate validity interval");
        }
        return new long[] {from, to};
    }

    private static long time(String t, long now, String spec) {
        if (t.startsWith("+")) {
            return now + seconds(t.substring(1), spec);
        }
        if (t.startsWith("-")) {
            return now - seconds(t.substring(1), spec);
        }
        if (t.startsWith("0x") || t.startsWith("0X")) {
            try {
                return Long.parseUnsignedLong(t.substring(2), 16);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("Invalid certificate life specification " + spec);
            }
        }
        boolean utc = t.endsWith("Z") || t.endsWith("z");
        String d = utc ? t.substring(0, t.length() - 1) : t;
        ZoneId zone = utc ? ZoneOffset.UTC : ZoneId.systemDefault();
        try {
            LocalDateTime ldt = switch (d.length()) {
                case 8 -> LocalDate.parse(d, DateTimeFormatter.BASIC_ISO_DATE).atStartOfDay();
                case 12 -> LocalDateTime.parse(d, DateTimeFormatter.ofPattern("uuuuMMddHHmm"));
                case 14 -> LocalDateTime.parse(d, DateTimeFormatter.ofPattern("uuuuMMddHHmmss"));
                default -> throw new IllegalArgumentException("Invalid certificate life specification " + spec);
            };
            return ldt.atZone(zone).toEpochSecond();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("Invalid certificate life specification " + spec);
        }
    }

    /** sshd_config's time format: a number with an optional unit (s m h d w), units may repeat ({@code 1h30m}). */
    static long seconds(String s, String spec) {
        if (s.isEmpty()) {
            throw new IllegalArgumentException("Invalid relative certificate life " + spec);
        }
        long total = 0;
        long n = -1;
        for (char c : s.toCharArray()) {
            if (c >= '0' && c <= '9') {
                n = (n < 0 ? 0 : n) * 10 + (c - '0');
                if (n > 1L << 40) {
                    throw new IllegalArgumentException("Invalid relative certificate life " + spec);
                }
                continue;
            }
            long unit = switch (Character.toLowerCase(c)) {
                case 's' -> 1;
                case 'm' -> 60;
                case 'h' -> 3600;
                case 'd' -> 86400;
                case 'w' -> 604800;
                default -> -1;
            };
            if (unit < 0 || n < 0) {
                throw new IllegalArgumentException("Invalid relative certificate life " + spec);
            }
            total += n * unit;
            n = -1;
        }
        return n < 0 ? total : total + n;
    }

    /** ssh-keygen's wording of a validity window ("forever", "from A to B", "after A", "before B"). */
    static String validity(SshCertificate c) {
        if (c.validAfter() == 0 && c.validBefore() == SshCertificate.FOREVER) {
            return "forever";
        }
        if (c.validAfter() == 0) {
            return "before " + shown(c.validBefore());
        }
        if (c.validBefore() == SshCertificate.FOREVER) {
            return "after " + shown(c.validAfter());
        }
        return "from " + shown(c.validAfter()) + " to " + shown(c.validBefore());
    }

    private static String shown(long t) {
        if (t < 0 || t > 253402300799L) { // beyond year 9999: ssh-keygen prints its maximum too
            t = 253402300799L;
        }
        return SHOWN.format(LocalDateTime.ofInstant(Instant.ofEpochSecond(t), ZoneId.systemDefault()));
    }

    /**
     * {@code -L -f FILE} as ssh-keygen 9.2's {@code do_show_cert}: each certificate line of FILE ({@code -}: stdin)
     * printed under {@code FILE:} (its first line) or {@code FILE:N:}; a key that is no certificate and a line that is
     * no key are reported on stderr and skipped; exit 1 when no certificate was printed.
     */
    static int list(Path file, PrintStream out, PrintStream err) throws Exception {
        boolean stdin = file.toString().equals("-");
        String path = stdin ? "(stdin)" : file.toString();
        String text;
        if (stdin) {
            text = new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
        } else if (!Files.exists(file)) {
            throw new IllegalArgumentException(file + ": No such file or directory");
        } else {
            text = Files.readString(file);
        }
        boolean any = false;
        int lnum = 0;
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            lnum++;
            String s = lines[i].replaceFirst("^[ \t]+", "");
            // ssh-keygen skips only comments (and the end of the file): a blank line is an invalid key to it
            if (s.startsWith("#") || (i == lines.length - 1 && s.isEmpty())) {
                continue;
            }
            s = s.strip();
            String type;
            try {
                type = PublicKeyLine.parse(s).keyType();
            } catch (io.pqssh.core.keys.KeyFileException e) {
                err.println(path + ":" + lnum + ": invalid key: invalid format");
                continue;
            }
            SshCertificate c;
            try {
                c = SshCertificate.parseLine(s);
            } catch (io.pqssh.core.wire.MalformedMessageException e) {
                if (io.pqssh.core.cert.CertificateKeyTypes.isCertificate(type) || type.contains("-cert")) {
                    err.println(path + ":" + lnum + ": invalid key: invalid format");
                } else {
                    err.println(path + ":" + lnum + " is not a certificate");
                }
                continue;
            }
            any = true;
            print(!stdin && lnum == 1 ? path : path + ":" + lnum, c, out);
        }
        return any ? 0 : 1;
    }

    static void print(String name, SshCertificate c, PrintStream out) throws Exception {
        String ind = "        ";
        byte[] ca = c.signatureKey();
        out.println(name + ":");
        out.println(ind + "Type: " + c.certType() + " " + c.type().label() + " certificate");
        out.println(ind + "Public key: " + KeyDescriptions.label(c.keyType()) + "-CERT "
                + SshCertificate.fingerprint(c.certifiedKey()));
        out.println(ind + "Signing CA: " + KeyDescriptions.label(PublicKeyLine.blobKeyType(ca)) + " "
                + SshCertificate.fingerprint(ca) + " (using " + c.signatureAlgorithm() + ")");
        out.println(ind + "Key ID: \"" + c.keyId() + "\"");
        out.println(ind + "Serial: " + Long.toUnsignedString(c.serial()));
        out.println(ind + "Valid: " + validity(c));
        out.println(ind + "Principals: " + (c.principals().isEmpty() ? "(none)" : ""));
        for (String p : c.principals()) {
            out.println(ind + ind + p);
        }
        options(out, ind, "Critical Options: ", c.criticalOptions(), true);
        options(out, ind, "Extensions: ", c.extensions(), false);
    }

    private static void options(PrintStream out, String ind, String title, Map<String, byte[]> opts,
            boolean critical) throws Exception {
        out.println(ind + title + (opts.isEmpty() ? "(none)" : ""));
        for (Map.Entry<String, byte[]> e : opts.entrySet()) {
            String n = e.getKey();
            byte[] v = e.getValue();
            String shown;
            if (critical && (n.equals("force-command") || n.equals("source-address")) && v.length > 0) {
                shown = n + " " + new io.pqssh.core.wire.SshReader(v).getUtf8();
            } else if (v.length > 0) {
                shown = n + " UNKNOWN OPTION: " + HexFormat.of().formatHex(v) + " (len " + v.length + ")";
            } else if (critical ? n.equals("verify-required") : FLAG_EXTENSIONS.contains(n)) {
                shown = n;
            } else {
                shown = n + " UNKNOWN FLAG OPTION";
            }
            out.println(ind + ind + shown);
        }
    }
}
