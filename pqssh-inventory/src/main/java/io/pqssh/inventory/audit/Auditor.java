package io.pqssh.inventory.audit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.HashSet;
import java.util.Set;

import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.core.keys.authorized.AuthorizedKeyEntry;
import io.pqssh.core.keys.authorized.AuthorizedKeys;
import io.pqssh.core.keys.authorized.RejectedLine;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.core.wire.MalformedMessageException;

/**
 * Reads key and config files and reports quantum-vulnerable keys, post-quantum credentials and configs that keep
 * key exchange classical. Directories are walked recursively (symbolic links are not followed; {@code /proc},
 * {@code /sys}, {@code /dev} and {@code /run} are skipped) and files are picked by name: {@code authorized_keys*},
 * {@code authorized_kem_keys}, {@code known_hosts*}/{@code ssh_known_hosts*}, {@code *.pub}, {@code sshd_config},
 * {@code ssh_config}, {@code config} and {@code *.conf} in SSH directories, and key files ({@code id_*},
 * {@code ssh_host_*}, anything in a {@code .ssh} directory) that start like a private key. Configs are read first:
 * the effective sshd_config's {@code AuthorizedKeysFile} is followed for every user of the passwd file, and its
 * {@code PubkeyAcceptedAlgorithms} decides whether an {@code ssh-mldsa44-ed25519@openssh.com} key is a working
 * credential ({@code ssh-mldsa44-ed25519}, 10.6's name, is judged against 10.6's default). Private keys are never decrypted: the public key comes from the unencrypted {@code openssh-key-v1}
 * header; unencrypted PEM keys give their family and size.
 */
public final class Auditor {
    /** Files larger than this are not key or config files. */
    static final long MAX_FILE = 4L << 20;
    /** Virtual file systems a walk of {@code /} does not enter. */
    static final Set<Path> SKIPPED = Set.of(Path.of("/proc"), Path.of("/sys"), Path.of("/dev"), Path.of("/run"));
    static final String COMPOSITE = "ssh-mldsa44-ed25519@openssh.com";
    /** OpenSSH 10.6's name of the same composite (draft-ietf-sshm-composite-sigs-00). */
    static final String COMPOSITE_IETF = "ssh-mldsa44-ed25519";

    /** Where the audit finds the system's users and the server config. */
    public static final class Options {
        /**
         * passwd(5) file for AuthorizedKeysFile's %u/%h, with paths taken as they are. Null (the default): the
         * audited sshd_config's own system, {@code R/etc/passwd} for {@code R/etc/ssh/sshd_config}, with home
         * directories and absolute AuthorizedKeysFile paths under {@code R} (so an image or container root mounted
         * elsewhere is audited as itself); nothing is followed for an sshd_config elsewhere.
         */
        public Path passwd;
        /** The sshd_config in effect when none is among the audited paths (null or missing: OpenSSH defaults). */
        public Path sshdConfig = Path.of("/etc/ssh/sshd_config");
        /** "now" for expiry-time. */
        public java.time.Instant now = java.time.Instant.now();
    }

    private final Options options;
    private final List<Finding> findings = new ArrayList<>();
    private final ConfigAudit configs = new ConfigAudit(findings);
    /** Per login (one user, or one directory of authorized keys): authorized classical keys, PQ credential seen. */
    private final Map<String, List<Integer>> authorizedClassical = new LinkedHashMap<>();
    private final Map<String, String> authorizedPq = new LinkedHashMap<>();
    private final Set<Path> done = new HashSet<>();
    /** CA keys seen (TrustedUserCAKeys, cert-authority, @cert-authority), by fingerprint: where, first. */
    private final Map<String, String> caSources = new LinkedHashMap<>();
    /** Post-quantum keys certified by a classical CA, flagged once every CA source has been read. */
    private final List<ClassicalCa> classicalCas = new ArrayList<>();
    private ConfigAudit.Effective sshd;

    /** A certificate file whose post-quantum key a quantum-vulnerable CA signed. */
    private record ClassicalCa(String file, String kind, KeyInfo key, KeyInfo ca, String comment, String owner) {
    }

    private Auditor(Options options) {
        this.options = options;
    }

    /**
     * For findings from rows another engine collected (osquery): no files are read; the caller hands over
     * authorized_keys contents and config lines, then {@link #finish()}.
     */
    static Auditor forRows(Options options, ConfigAudit.Effective sshd) {
        Auditor a = new Auditor(options);
        a.sshd = sshd;
        return a;
    }

    /** One authorized_keys file's content; {@code login} groups the keys of one user (classical beside PQ). */
    void authorizedContent(String file, String content, String login, String owner) {
        authorized(file, AuthorizedKeys.parse(content, file, ZoneOffset.UTC), login, owner);
    }

    /** A client config reassembled from rows. */
    void clientConfigLines(String file, List<String> lines) {
        configs.auditLines(file, lines, false);
    }

    /** Adds a note about input that could not be used. */
    void inputNote(String source, int line, String msg) {
        note(source, line, msg);
    }

    List<Finding> finish() {
        finishClassicalCas();
        finishBesidePq();
        return List.copyOf(findings);
    }

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

    /** Audits the paths with the system's passwd and sshd_config. */
    public static List<Finding> audit(List<Path> paths) throws IOException {
        return audit(paths, new Options());
    }

    /** Audits the paths and returns all findings in discovery order (the PQ-beside-classical pass last). */
    public static List<Finding> audit(List<Path> paths, Options options) throws IOException {
        Auditor a = new Auditor(options);
        List<Path> files = new ArrayList<>();
        List<Path> explicit = new ArrayList<>();
        for (Path p : paths) {
            if (Files.isDirectory(p)) {
                a.walk(p, files);
            } else if (Files.isRegularFile(p)) {
                explicit.add(p);
            } else {
                throw new IOException("no such file or directory: " + p);
            }
        }
        // configs first: the effective sshd_config decides which keys work
        for (Path f : concat(explicit, files)) {
            if (isConfig(f)) {
                a.config(f);
            }
        }
        if (a.sshd != null) {
            // an audited sshd_config: the keys it lets in are part of the audit
            a.followAuthorizedKeysFile();
            a.trustedUserCaKeys();
            a.hostCertificates();
        } else if (options.sshdConfig != null && Files.isRegularFile(options.sshdConfig)
                && Files.isReadable(options.sshdConfig)) {
            // the host's sshd_config, not audited itself: only says which key types work
            a.sshd = new ConfigAudit(new ArrayList<>()).audit(options.sshdConfig, true);
        } else {
            a.sshd = ConfigAudit.Effective.defaults();
        }
        for (Path f : explicit) {
            a.file(f, true, null);
        }
        for (Path f : files) {
            a.file(f, false, null);
        }
        a.finishClassicalCas();
        a.finishBesidePq();
        return List.copyOf(a.findings);
    }

    private static List<Path> concat(List<Path> a, List<Path> b) {
        List<Path> l = new ArrayList<>(a);
        l.addAll(b);
        return l;
    }

    /** Collects candidate files under dir, sorted, without following links or entering virtual file systems. */
    private void walk(Path dir, List<Path> out) throws IOException {
        List<Path> found = new ArrayList<>();
        Files.walkFileTree(dir, java.util.EnumSet.noneOf(java.nio.file.FileVisitOption.class), 64,
                new java.nio.file.SimpleFileVisitor<>() {
                    @Override
                    public java.nio.file.FileVisitResult preVisitDirectory(Path d,
                            java.nio.file.attribute.BasicFileAttributes attrs) {
                        if (!d.equals(dir) && SKIPPED.contains(d.toAbsolutePath().normalize())) {
                            return java.nio.file.FileVisitResult.SKIP_SUBTREE;
                        }
                        return java.nio.file.FileVisitResult.CONTINUE;
                    }

                    @Override
                    public java.nio.file.FileVisitResult visitFile(Path f,
                            java.nio.file.attribute.BasicFileAttributes attrs) {
                        if (attrs.isRegularFile() && candidate(f)) {
                            found.add(f);
                        }
                        return java.nio.file.FileVisitResult.CONTINUE;
                    }

                    @Override
                    public java.nio.file.FileVisitResult visitFileFailed(Path f, IOException e) {
                        // an unreadable directory below the audited path: say so and go on
                        note(f, 0, "cannot read: " + e.getMessage());
                        return java.nio.file.FileVisitResult.CONTINUE;
                    }
                });
        found.sort(null);
        out.addAll(found);
    }

    /** Files the walk picks up, by name and place. */
    static boolean candidate(Path f) {
        String n = f.getFileName().toString();
        Path parent = f.getParent();
        String dir = parent == null || parent.getFileName() == null ? "" : parent.getFileName().toString();
        boolean sshDir = dir.equals(".ssh") || dir.equals("ssh") || dir.startsWith("ssh_config")
                || dir.startsWith("sshd_config") || dir.equals("authorized_keys");
        return n.startsWith("authorized_keys") || n.startsWith("authorized_kem_keys") || n.startsWith("known_hosts")
                || n.startsWith("ssh_known_hosts") || n.equals("sshd_config") || n.equals("ssh_config")
                || (sshDir && (n.equals("config") || n.endsWith(".conf") || n.endsWith(".pub")))
                || n.startsWith("id_") || n.startsWith("ssh_host_") || (sshDir && !n.startsWith("."))
                || parentIsAuthorizedKeysDir(f);
    }

    private static boolean parentIsAuthorizedKeysDir(Path f) {
        Path p = f.getParent();
        return p != null && p.getFileName() != null && p.getFileName().toString().equals("authorized_keys");
    }

    private static boolean isConfig(Path f) {
        String n = f.getFileName().toString();
        return n.equals("sshd_config") || n.equals("ssh_config")
                || (n.endsWith(".conf") && f.toString().contains("ssh"))
                || (n.equals("config") && f.getParent() != null && f.getParent().getFileName() != null
                        && f.getParent().getFileName().toString().equals(".ssh"));
    }

    private void config(Path f) {
        Path real = f.toAbsolutePath().normalize();
        if (!done.add(real)) {
            return;
        }
        String n = f.getFileName().toString();
        boolean server = n.equals("sshd_config") || (n.endsWith(".conf") && f.toString().contains("sshd_config"));
        if (n.endsWith(".conf") && !n.equals("sshd_config")) {
            // a drop-in is audited with the file that includes it; alone only when nothing includes it
            return;
        }
        ConfigAudit.Effective e = configs.audit(f, server);
        if (server && sshd == null) {
            sshd = e;
        }
    }

    /** {@code R} of an audited {@code R/etc/ssh/sshd_config}, or null for an sshd_config elsewhere. */
    private Path systemRoot() {
        Path cfg = sshd.file() == null ? null : sshd.file().toAbsolutePath().normalize();
        return cfg == null || !cfg.endsWith(Path.of("etc/ssh/sshd_config")) ? null
                : cfg.getParent().getParent().getParent();
    }

    /** AuthorizedKeysFile of the effective sshd_config, expanded for every passwd user with a home directory. */
    private void followAuthorizedKeysFile() {
        Path root = null;
        Path passwd = options.passwd;
        if (passwd == null) {
            root = systemRoot();
            if (root == null) {
                return;
            }
            passwd = root.resolve("etc/passwd");
        }
        for (String pattern : sshd.authorizedKeysFiles()) {
            for (String[] u : passwd(passwd)) {
                String home = u[1];
                String path = expandTokens(pattern, u[0], home);
                Path p = Path.of(path).isAbsolute() ? Path.of(path) : Path.of(home).resolve(path);
                if (root != null) {
                    p = root.resolve(Path.of("/").relativize(p.toAbsolutePath()));
                }
                if (Files.isRegularFile(p)) {
                    file(p, false, "user " + u[0]);
                }
            }
        }
    }

    /**
     * The effective sshd_config's TrustedUserCAKeys (an absolute path, under {@code R} for {@code
     * R/etc/ssh/sshd_config}): each CA key is a finding with its family, classical or post-quantum, and is the CA
     * a certificate found later is matched against. The file is not audited again as a plain public key file.
     */
    private void trustedUserCaKeys() {
        String name = sshd.trustedUserCaKeys();
        Path root = systemRoot();
        if (name == null || !name.startsWith("/") || (root == null && options.passwd == null)) {
            return;
        }
        Path p = root == null ? Path.of(name) : root.resolve(name.substring(1));
        if (!Files.isRegularFile(p) || !done.add(p.toAbsolutePath().normalize())) {
            return;
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            note(p, 0, "cannot read TrustedUserCAKeys: " + e.getMessage());
            return;
        }
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i).strip();
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            KeyInfo k;
            String comment;
            try {
                PublicKeyLine pk = PublicKeyLine.parse(l);
                k = KeyInfo.of(pk.blob());
                comment = pk.comment();
            } catch (KeyFileException | MalformedMessageException e) {
                note(p, i + 1, "TrustedUserCAKeys line is not a public key: " + e.getMessage());
                continue;
            }
            caSources.putIfAbsent(k.fingerprint(), "TrustedUserCAKeys " + p + ":" + (i + 1));
            caFinding(p.toString(), i + 1, "user certificate authority (TrustedUserCAKeys of " + sshd.file() + ")",
                    k, comment, owner(p));
        }
    }

    /**
     * The effective sshd_config's HostCertificate files (absolute paths, under {@code R}), wherever they are: each is
     * audited as a certificate, so its signer is reported and a classical CA of a post-quantum host key flagged.
     */
    private void hostCertificates() {
        Path root = systemRoot();
        if (root == null && options.passwd == null) {
            return;
        }
        for (String name : sshd.hostCertificates()) {
            if (!name.startsWith("/")) {
                continue; // sshd would look in its working directory, which the audit cannot know
            }
            Path p = root == null ? Path.of(name) : root.resolve(name.substring(1));
            if (Files.isRegularFile(p)) {
                file(p, true, null);
            } else {
                note(p, 0, "HostCertificate of " + sshd.file() + " not found");
            }
        }
    }

    /** A CA key: what it is and whether a quantum attacker can forge its certificates. */
    private void caFinding(String f, int line, String what, KeyInfo k, String comment, String owner) {
        if (k.postQuantum()) {
            add(Finding.Rules.PQ_KEY, "note", f, line, "post-quantum " + what + ": " + k.describe(), k, comment,
                    null, null, null, owner);
        } else {
            add(k.classicallyWeak() ? Finding.Rules.WEAK_KEY : Finding.Rules.CLASSICAL_KEY,
                    k.classicallyWeak() ? "error" : "warning", f, line, "quantum-vulnerable " + what + ": "
                            + k.describe() + ": a quantum attacker forges certificates for any key it vouches for", k,
                    comment, null, null, null, owner);
        }
    }

    /**
     * Every certificate of a post-quantum key signed by a quantum-vulnerable CA ("our user keys are post-quantum,
     * but our CA is Ed25519: is that still forgeable?" Yes): one error per certificate, with the CA as its key.
     */
    private void finishClassicalCas() {
        for (ClassicalCa c : classicalCas) {
            String known = caSources.get(c.ca().fingerprint());
            add(Finding.Rules.CLASSICAL_CA, "error", c.file(), 1, "post-quantum key certified by a quantum-vulnerable"
                    + " certificate authority: the " + c.kind() + " certificate of " + c.key().describe()
                    .replace(" certificate", "") + " is signed by CA " + c.ca().describe() + " " + c.ca().fingerprint()
                    + (known != null ? " (" + known + ")" : "") + ": a quantum attacker forges the CA's signature on"
                    + " a certificate of their own key, so the post-quantum key protects nothing; use a post-quantum"
                    + " CA", c.ca(), c.comment(), null, null, null, c.owner());
        }
        classicalCas.clear();
    }

    /** sshd's %% %h %u (and %U, the uid, is not known here: left as is). */
    static String expandTokens(String pattern, String user, String home) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '%' && i + 1 < pattern.length()) {
                char t = pattern.charAt(++i);
                switch (t) {
                    case '%' -> b.append('%');
                    case 'h' -> b.append(home);
                    case 'u' -> b.append(user);
                    default -> b.append('%').append(t);
                }
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /** name and home directory of each passwd entry (absolute home). */
    private List<String[]> passwd(Path file) {
        List<String[]> out = new ArrayList<>();
        if (!Files.isReadable(file)) {
            return out;
        }
        try {
            for (String l : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String[] p = l.split(":", -1);
                if (p.length >= 7 && !p[0].isEmpty() && p[5].startsWith("/")) {
                    out.add(new String[] {p[0], p[5]});
                }
            }
        } catch (IOException e) {
            note(file, 0, "cannot read: " + e.getMessage());
        }
        return out;
    }

    private void file(Path f, boolean explicit, String login) {
        Path real = f.toAbsolutePath().normalize();
        if (!done.add(real)) {
            return;
        }
        String n = f.getFileName().toString();
        try {
            if (Files.size(f) > MAX_FILE) {
                if (explicit) {
                    note(f, 0, "file larger than " + MAX_FILE + " bytes skipped");
                }
                return;
            }
            String group = login != null ? login : f.toAbsolutePath().getParent().toString();
            if (n.startsWith("authorized_kem_keys")) {
                authorized(f.toString(), AuthorizedKeys.loadKemKeys(f), group, owner(f));
            } else if (n.startsWith("authorized_keys") || (login != null && !n.endsWith(".pub"))
                    || parentIsAuthorizedKeysDir(f)) {
                authorized(f.toString(), AuthorizedKeys.load(f, ZoneOffset.UTC), group, owner(f));
            } else if (n.startsWith("known_hosts") || n.startsWith("ssh_known_hosts")) {
                knownHosts(f);
            } else if (isConfig(f) || n.equals("config") || n.endsWith(".conf")) {
                if (explicit) {
                    configs.audit(f, n.equals("sshd_config") || f.toString().contains("sshd_config"));
                }
            } else if (n.endsWith(".pub")) {
                publicKeyFile(f, explicit || inSshDir(f));
            } else {
                String head = head(f);
                if (head.startsWith("-----BEGIN ") && head.contains("PRIVATE KEY")) {
                    privateKeyFile(f, head);
                } else if (explicit) {
                    note(f, 0, "not a recognized key or config file");
                }
            }
        } catch (IOException | RuntimeException e) {
            note(f, 0, "cannot read: " + e.getMessage());
        }
    }

    private static boolean inSshDir(Path f) {
        Path p = f.getParent();
        return p != null && p.getFileName() != null && (p.getFileName().toString().equals(".ssh")
                || p.getFileName().toString().equals("ssh"));
    }

    private static String head(Path f) throws IOException {
        byte[] b = new byte[Math.min(4096, (int) Files.size(f))];
        try (var in = Files.newInputStream(f)) {
            int n = in.readNBytes(b, 0, b.length);
            return new String(b, 0, n, StandardCharsets.US_ASCII).stripLeading();
        }
    }

    private void authorized(String f, AuthorizedKeys keys, String group, String owner) {
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
            if (e.options().certAuthority()) {
                caSources.putIfAbsent(k.fingerprint(), "cert-authority line " + f + ":" + e.lineNumber());
            }
            if (e.options().expiryTime().isPresent()
                    && !e.options().expiryTime().get().isAfter(options.now)) {
                // sshd refuses an expired key: it lets nobody in, classical or not
                add(Finding.Rules.EXPIRED_KEY, "note", f, e.lineNumber(), "expired key (expiry-time " + expiry
                        + " has passed): sshd no longer accepts it: " + k.describe() + ca, k, e.comment(), expiry,
                        from, null, owner);
                continue;
            }
            if (k.postQuantum()) {
                String base = KeyInfo.plainType(k.type());
                boolean composite = base.equals(COMPOSITE);
                boolean ietfComposite = base.equals(COMPOSITE_IETF);
                if ((composite && !sshd.acceptsUserKey(k.type()))
                        || (ietfComposite && !sshd.acceptsUserKeyOn106(k.type()))) {
                    add(Finding.Rules.PQ_KEY, "note", f, e.lineNumber(), "post-quantum credential authorized but not"
                            + " usable: " + k.type() + " is not in "
                            + (composite ? sshd.pubkeySource() : sshd.pubkeySource106()) + ": " + k.describe() + ca,
                            k, e.comment(), expiry, from, null, owner);
                    continue;
                }
                if (ietfComposite) {
                    // the IETF name is on by default in 10.6, unknown to 10.4/10.5 (which know only COMPOSITE)
                    authorizedPq.putIfAbsent(group, f + ":" + e.lineNumber());
                    add(Finding.Rules.PQ_KEY, "note", f, e.lineNumber(), "post-quantum credential authorized: "
                            + k.describe() + ca + " (" + k.type() + " needs OpenSSH 10.6's sshd or pqssh; 10.4/10.5"
                            + " know only " + COMPOSITE + ")", k, e.comment(), expiry, from, null, owner);
                    continue;
                }
                authorizedPq.putIfAbsent(group, f + ":" + e.lineNumber());
                add(Finding.Rules.PQ_KEY, "note", f, e.lineNumber(), "post-quantum credential authorized: "
                        + k.describe() + ca, k, e.comment(), expiry, from, null, owner);
            } else {
                authorizedClassical.computeIfAbsent(group, d -> new ArrayList<>()).add(findings.size());
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
        for (Map.Entry<String, List<Integer>> e : authorizedClassical.entrySet()) {
            if (!authorizedPq.containsKey(e.getKey())) {
                continue;
            }
            for (int idx : e.getValue()) {
                Finding o = findings.get(idx);
                findings.set(idx, new Finding(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ, "error", o.file(), o.line(),
                        "classical key still authorized although a post-quantum credential is authorized for "
                                + e.getKey() + " (" + authorizedPq.get(e.getKey()) + "): " + o.message().replace("quantum-vulnerable key authorized: ", "")
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
            if (marker.equals("@cert-authority")) {
                caSources.putIfAbsent(k.fingerprint(), "@cert-authority line " + f + ":" + (i + 1));
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

    private void publicKeyFile(Path f, boolean reportUnreadable) throws IOException {
        String text = Files.readString(f, StandardCharsets.UTF_8).strip();
        if (text.isEmpty()) {
            return;
        }
        try {
            PublicKeyLine pk = PublicKeyLine.parse(text.lines().findFirst().orElse(""));
            KeyInfo k = KeyInfo.of(pk.blob());
            if (k.certificate()) {
                certificateFile(f, pk.blob(), k, pk.comment());
            } else {
                keyFile(f, k, pk.comment(), "public key");
            }
        } catch (KeyFileException | MalformedMessageException e) {
            if (reportUnreadable) {
                note(f, 1, "not a public key file: " + e.getMessage());
            }
        }
    }

    /**
     * A certificate ({@code *-cert.pub}, a HostCertificate): the certified key as any key file, its CA named with
     * family and fingerprint; a post-quantum key under a classical CA is flagged at the end.
     */
    private void certificateFile(Path f, byte[] blob, KeyInfo k, String comment) throws MalformedMessageException {
        io.pqssh.core.cert.SshCertificate cert = io.pqssh.core.cert.SshCertificate.parse(blob);
        KeyInfo ca = KeyInfo.of(cert.signatureKey());
        String kind = cert.type().label();
        keyFile(f, k, comment, kind + " certificate (signed by " + (ca.postQuantum() ? "post-quantum" : "quantum-vulnerable")
                + " CA " + ca.describe() + " " + ca.fingerprint() + ")");
        if (k.postQuantum() && !ca.postQuantum()) {
            classicalCas.add(new ClassicalCa(f.toString(), kind, k, ca, comment, owner(f)));
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
        KeyInfo k = PemKeys.info(Files.readString(f, StandardCharsets.US_ASCII));
        if (k == null) {
            note(f, 1, "PEM private key of unknown type (encrypted PKCS#8): not classified");
            return;
        }
        keyFile(f, k, "", "PEM private key");
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
        add(rule, severity, f.toString(), line, msg, k, comment, expiry, from, host, owner);
    }

    private void add(String rule, String severity, String f, int line, String msg, KeyInfo k, String comment,
            String expiry, String from, String host, String owner) {
        findings.add(new Finding(rule, severity, f, line, msg, k.type(), k.family().name(),
                k.bits() > 0 ? k.bits() : null, k.curve(), k.certificate(), comment == null || comment.isEmpty()
                        ? null : comment, k.fingerprint(), expiry, from, host, owner));
    }

    private void note(Path f, int line, String msg) {
        note(f.toString(), line, msg);
    }

    private void note(String f, int line, String msg) {
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
