package io.pqssh.inventory.audit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.core.keys.authorized.AuthorizedKeyEntry;
import io.pqssh.core.keys.authorized.AuthorizedKeys;
import io.pqssh.core.keys.authorized.RejectedLine;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.core.wire.MalformedMessageException;

/**
 * Reads key and config files and reports quantum-vulnerable keys, post-quantum credentials and configs that keep
 * key exchange classical. Directories are read one level deep, by file name: {@code authorized_keys*},
 * {@code authorized_kem_keys}, {@code known_hosts*}/{@code ssh_known_hosts*}, {@code *.pub}, {@code sshd_config},
 * {@code ssh_config} and {@code config}, and any file that starts like a private key. Private keys are never
 * decrypted: the public key comes from the unencrypted {@code openssh-key-v1} header.
 */
public final class Auditor {
    /** Files larger than this are not key or config files. */
    static final long MAX_FILE = 4L << 20;

    private final List<Finding> findings = new ArrayList<>();
    private final ConfigAudit configs = new ConfigAudit(findings);
    /** Per directory (one user's ~/.ssh): authorized classical keys and whether a PQ credential is authorized. */
    private final Map<Path, List<Integer>> authorizedClassical = new LinkedHashMap<>();
    private final Map<Path, Boolean> authorizedPq = new LinkedHashMap<>();

    /** The defaults: the current user's {@code ~/.ssh} and {@code /etc/ssh}, those that exist. */
    public static List<Path> defaultPaths() {
        List<Path> p = new ArrayList<>();
        for (Path d : List.of(Path.of(System.getProperty("user.home"), ".ssh"), Path.of("/etc/ssh"))) {
            if (Files.isDirectory(d)) {
                p.add(d);
            }
        }
        return p;
    }

    /** Audits the paths and returns all findings in discovery order (the PQ-beside-classical pass last). */
    public static List<Finding> audit(List<Path> paths) throws IOException {
        Auditor a = new Auditor();
        for (Path p : paths) {
            if (Files.isDirectory(p)) {
                a.directory(p);
            } else if (Files.isRegularFile(p)) {
                a.file(p, true);
            } else {
                throw new IOException("no such file or directory: " + p);
            }
        }
        a.finishBesidePq();
        return List.copyOf(a.findings);
    }

    private void directory(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path f : ds) {
                if (Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS) || Files.isRegularFile(f)) {
                    files.add(f);
                }
            }
        }
        files.sort(null);
        // sshd_config first so its Include'd files are audited in its context rather than twice
        files.sort((x, y) -> Boolean.compare(!isConfig(x), !isConfig(y)));
        for (Path f : files) {
            file(f, false);
        }
    }

    private static boolean isConfig(Path f) {
        String n = f.getFileName().toString();
        return n.equals("sshd_config") || n.equals("ssh_config");
    }

    private void file(Path f, boolean explicit) {
        String n = f.getFileName().toString();
        try {
            if (Files.size(f) > MAX_FILE) {
                if (explicit) {
                    note(f, 0, "file larger than " + MAX_FILE + " bytes skipped");
                }
                return;
            }
            if (n.startsWith("authorized_kem_keys")) {
                authorized(f, AuthorizedKeys.loadKemKeys(f));
            } else if (n.startsWith("authorized_keys")) {
                authorized(f, AuthorizedKeys.load(f, ZoneOffset.UTC));
            } else if (n.startsWith("known_hosts") || n.startsWith("ssh_known_hosts")) {
                knownHosts(f);
            } else if (n.equals("sshd_config") || (n.endsWith(".conf") && f.toString().contains("sshd_config"))) {
                configs.audit(f, true);
            } else if (n.equals("ssh_config") || n.equals("config") || n.endsWith(".conf")) {
                configs.audit(f, false);
            } else if (n.endsWith(".pub")) {
                publicKeyFile(f);
            } else {
                String head = head(f);
                if (head.startsWith("-----BEGIN ") && head.contains("PRIVATE KEY")) {
                    privateKeyFile(f, head);
                } else if (explicit) {
                    note(f, 0, "not a recognized key or config file");
                }
            }
        } catch (IOException e) {
            note(f, 0, "cannot read: " + e.getMessage());
        }
    }

    private static String head(Path f) throws IOException {
        byte[] b = new byte[Math.min(4096, (int) Files.size(f))];
        try (var in = Files.newInputStream(f)) {
            int n = in.readNBytes(b, 0, b.length);
            return new String(b, 0, n, StandardCharsets.US_ASCII).stripLeading();
        }
    }

    private void authorized(Path f, AuthorizedKeys keys) {
        Path dir = f.toAbsolutePath().getParent();
        String owner = owner(f);
        for (AuthorizedKeyEntry e : keys.entries()) {
            KeyInfo k;
            try {
                k = KeyInfo.of(e.publicKeyBlob());
            } catch (MalformedMessageException ex) {
                note(f, e.lineNumber(), "malformed key blob: " + ex.getMessage());
                continue;
            }
            String expiry = e.options().expiryTime().map(Object::toString).orElse(null);
            String from = e.options().from().orElse(null);
            String ca = e.options().certAuthority() ? " (cert-authority)" : "";
            if (k.postQuantum()) {
                authorizedPq.put(dir, true);
                add(Finding.Rules.PQ_KEY, "note", f, e.lineNumber(), "post-quantum credential authorized: "
                        + k.describe() + ca, k, e.comment(), expiry, from, null, owner);
            } else {
                authorizedClassical.computeIfAbsent(dir, d -> new ArrayList<>()).add(findings.size());
                add(k.classicallyWeak() ? Finding.Rules.WEAK_KEY : Finding.Rules.CLASSICAL_KEY,
                        k.classicallyWeak() ? "error" : "warning", f, e.lineNumber(),
                        "quantum-vulnerable key authorized: " + k.describe() + ca
                                + (k.classicallyWeak() ? ", also weak today" : ""),
                        k, e.comment(), expiry, from, null, owner);
            }
        }
        for (RejectedLine r : keys.rejected()) {
            note(f, r.lineNumber(), "line skipped: " + r.reason());
        }
    }

    /** Classical keys authorized where a PQ credential is authorized too: the forgotten old key. */
    private void finishBesidePq() {
        for (Map.Entry<Path, List<Integer>> e : authorizedClassical.entrySet()) {
            if (!authorizedPq.getOrDefault(e.getKey(), false)) {
                continue;
            }
            for (int idx : e.getValue()) {
                Finding o = findings.get(idx);
                findings.set(idx, new Finding(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ, "error", o.file(), o.line(),
                        "classical key still authorized although a post-quantum credential is authorized in "
                                + e.getKey() + ": " + o.message().replace("quantum-vulnerable key authorized: ", "")
                                + " — a quantum attacker logs in with it",
                        o.keyType(), o.family(), o.bits(), o.curve(), o.certificate(), o.comment(), o.fingerprint(),
                        o.expiry(), o.from(), o.host(), o.owner()));
            }
        }
    }

    private void knownHosts(Path f) throws IOException {
        List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i).strip();
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            String[] p = l.split("[ \t]+", 5);
            int at = 0;
            String marker = "";
            if (p[0].startsWith("@")) {
                marker = p[0];
                at = 1;
            }
            if (p.length < at + 3) {
                note(f, i + 1, "known_hosts line needs 'hosts keytype key'");
                continue;
            }
            String hosts = p[at];
            String comment = p.length > at + 3 ? String.join(" ", java.util.Arrays.copyOfRange(p, at + 3, p.length))
                    : "";
            KeyInfo k;
            try {
                byte[] blob = Base64.getDecoder().decode(p[at + 2]);
                k = KeyInfo.of(blob);
                if (!k.type().equals(p[at + 1])) {
                    note(f, i + 1, "key type " + p[at + 1] + " does not match the blob's " + k.type());
                    continue;
                }
            } catch (IllegalArgumentException | MalformedMessageException e) {
                note(f, i + 1, "malformed key: " + e.getMessage());
                continue;
            }
            boolean hashed = hosts.startsWith("|1|");
            String host = hashed ? null : hosts;
            String what = (marker.isEmpty() ? "host key" : marker.substring(1) + " key") + " of "
                    + (hashed ? "a hashed host" : hosts);
            if (k.postQuantum()) {
                add(Finding.Rules.PQ_KEY, "note", f, i + 1, "post-quantum " + what + ": " + k.describe(), k, comment,
                        null, null, host, null);
            } else if (!marker.equals("@revoked")) {
                add(k.classicallyWeak() ? Finding.Rules.WEAK_KEY : Finding.Rules.CLASSICAL_KEY,
                        k.classicallyWeak() ? "error" : "warning", f, i + 1,
                        "quantum-vulnerable " + what + ": " + k.describe(), k, comment, null, null, host, null);
            }
        }
    }

    private void publicKeyFile(Path f) throws IOException {
        String text = Files.readString(f, StandardCharsets.UTF_8).strip();
        if (text.isEmpty()) {
            return;
        }
        try {
            PublicKeyLine pk = PublicKeyLine.parse(text.lines().findFirst().orElse(""));
            keyFile(f, KeyInfo.of(pk.blob()), pk.comment(), "public key");
        } catch (KeyFileException | MalformedMessageException e) {
            note(f, 1, "not a public key file: " + e.getMessage());
        }
    }

    private void privateKeyFile(Path f, String head) throws IOException {
        if (head.startsWith(OpenSshKeyV1.BEGIN)) {
            try {
                byte[] blob = OpenSshKeyV1.publicKeyBlob(Files.readString(f, StandardCharsets.US_ASCII));
                keyFile(f, KeyInfo.of(blob), "", "private key");
            } catch (KeyFileException | MalformedMessageException e) {
                note(f, 1, "unreadable openssh-key-v1 private key: " + e.getMessage());
            }
            return;
        }
        String type = head.startsWith("-----BEGIN RSA") ? "ssh-rsa" : head.startsWith("-----BEGIN DSA") ? "ssh-dss"
                : head.startsWith("-----BEGIN EC") ? "ecdsa-sha2" : null;
        if (type == null) {
            note(f, 1, "PEM private key of unknown type (PKCS#8 or encrypted): not classified");
            return;
        }
        keyFile(f, KeyInfo.ofType(type), "", "PEM private key");
    }

    private void keyFile(Path f, KeyInfo k, String comment, String what) {
        if (k.postQuantum()) {
            add(Finding.Rules.PQ_KEY, "note", f, 1, "post-quantum " + what + ": " + k.describe(), k, comment, null,
                    null, null, owner(f));
        } else {
            add(k.classicallyWeak() ? Finding.Rules.WEAK_KEY : Finding.Rules.CLASSICAL_KEY,
                    k.classicallyWeak() ? "error" : "warning", f, 1, "quantum-vulnerable " + what + ": "
                            + k.describe(), k, comment, null, null, null, owner(f));
        }
    }

    private void add(String rule, String severity, Path f, int line, String msg, KeyInfo k, String comment,
            String expiry, String from, String host, String owner) {
        findings.add(new Finding(rule, severity, f.toString(), line, msg, k.type(), k.family().name(),
                k.bits() > 0 ? k.bits() : null, k.curve(), k.certificate(), comment == null || comment.isEmpty()
                        ? null : comment, k.fingerprint(), expiry, from, host, owner));
    }

    private void note(Path f, int line, String msg) {
        findings.add(Finding.config(Finding.Rules.UNREADABLE, "note", f.toString(), line, msg));
    }

    private static String owner(Path f) {
        try {
            return Files.getOwner(f).getName();
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }
}
