package io.pqssh.cli.agent;

import io.pqssh.client.agent.AgentKeyTest;
import io.pqssh.client.agent.DestinationSpecs;
import io.pqssh.client.agent.Lifetimes;

import java.io.Console;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Callable;

import io.pqssh.client.keys.FingerprintHash;
import io.pqssh.client.keys.KeyDescriptions;
import io.pqssh.client.ssh.Prompter;
import io.pqssh.core.agent.AgentClient;
import io.pqssh.core.agent.DestinationConstraint;
import io.pqssh.core.agent.KeyConstraints;
import io.pqssh.core.keys.KeyFilePermissions;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.core.keys.openssh.OpenSshPrivateKey;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code pqssh add}: ssh-add for the agent at SSH_AUTH_SOCK (pqssh agent, or OpenSSH's for the types it knows). */
@Command(name = "add", mixinStandardHelpOptions = true,
        description = {"Add private keys to the agent at SSH_AUTH_SOCK (like ssh-add), list or remove them.",
                "Without files: ~/.ssh/id_mlkem768, id_mldsa44_ed25519, id_ed25519 and the other pqssh defaults.",
                "Encrypted keys: passphrase from the terminal or PQSSH_PASSPHRASE.",
                "Lock passphrases (-x/-X): terminal, SSH_ASKPASS, or a line of stdin.",
                "Exit status: 0 success, 1 failure, 2 no agent, 255 bad combination of -l/-L, -x/-X, -D."})
public final class AddCommand implements Callable<Integer> {
    @Parameters(paramLabel = "file", description = "Private key files.")
    List<Path> files = new ArrayList<>();

    @Option(names = "-l", description = "List fingerprints of all keys (ML-KEM keys and certificates too).")
    boolean list;

    @Option(names = "-L", description = "List public keys of all keys.")
    boolean listPublic;

    @Option(names = "-d", description = "Remove the given keys and the FILE-cert.pub certificates beside them.")
    boolean delete;

    @Option(names = "-D", description = "Remove all keys.")
    boolean deleteAll;

    @Option(names = "-q", description = "Quiet.")
    boolean quiet;

    @Option(names = "-E", paramLabel = "hash", description = "Fingerprint hash: sha256 (default) or md5.")
    String hash = "sha256";

    @Option(names = "-t", paramLabel = "life",
            description = "Lifetime of the added keys (seconds, or 30m, 1h30m...): the agent removes them after it.")
    String lifetime;

    @Option(names = "-c", description = "Each use of the added keys must be confirmed (SSH_ASKPASS on the agent's side).")
    boolean confirm;

    @Option(names = "-h", paramLabel = "destination_constraint",
            description = "Restrict the added keys to a destination: [user@]host or \"[user@]from>[user@]to\""
                    + " (repeatable); host keys come from the -H files.")
    List<String> destinations = new ArrayList<>();

    @Option(names = "-H", paramLabel = "hostkey_file",
            description = "known_hosts file for -h (repeatable; default ~/.ssh/known_hosts, ~/.ssh/known_hosts2,"
                    + " /etc/ssh/ssh_known_hosts, /etc/ssh/ssh_known_hosts2).")
    List<Path> hostKeyFiles = new ArrayList<>();

    @Option(names = "-k", description = "Plain keys only: not the FILE-cert.pub certificates beside them.")
    boolean keysOnly;

    @Option(names = "-C", description = "Certificates only: add the FILE-cert.pub beside each key, not the plain"
            + " key (without -C both are added).")
    boolean certificatesOnly;

    @Option(names = "-T", description = "Test that the agent can use the keys of the given public key files: a"
            + " signature, or an ML-KEM decapsulation.")
    boolean test;

    @Option(names = "-s", paramLabel = "pkcs11", description = "Not supported: PKCS#11 (exit 1).")
    String pkcs11Add;

    @Option(names = "-e", paramLabel = "pkcs11", description = "Not supported: PKCS#11 (exit 1).")
    String pkcs11Remove;

    @Option(names = "-S", paramLabel = "provider",
            description = "FIDO provider: ignored, as ssh-add does for keys that are not FIDO keys (pqssh reads none).")
    String skProvider;

    @Option(names = "-K", description = "Not supported: FIDO resident keys (exit 1).")
    boolean residentKeys;

    @Option(names = "-x", description = "Lock the agent with a passphrase.")
    boolean lock;

    @Option(names = "-X", description = "Unlock the agent.")
    boolean unlock;

    @Override
    public Integer call() throws Exception {
        if ((lock || unlock ? 1 : 0) + (list || listPublic ? 1 : 0) + (deleteAll ? 1 : 0) > 1 || (lock && unlock)) {
            System.err.println("Invalid combination of actions");
            return 255; // ssh-add's fatal()
        }
        long life = lifetime == null ? 0 : Lifetimes.parse(lifetime);
        if (life < 0) {
            System.err.println(Lifetimes.INVALID);
            return 1;
        }
        FingerprintHash h;
        try {
            h = FingerprintHash.parse(hash);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 255;
        }
        Path sock = AgentClient.socketFromEnvironment().orElse(null);
        if (sock == null) {
            System.err.println("Could not open a connection to your authentication agent.");
            return 2;
        }
        AgentClient agent;
        try {
            agent = AgentClient.connect(sock);
        } catch (java.io.IOException e) {
            System.err.println("Error connecting to agent: " + e.getMessage());
            return 2;
        }
        try (agent) {
            if (lock || unlock) {
                return lock(agent, lock);
            }
            if (list || listPublic) {
                List<AgentClient.Identity> all;
                try {
                    all = new ArrayList<>(agent.identities());
                    all.addAll(agent.kemIdentities());
                } catch (java.io.IOException e) {
                    System.err.println("error fetching identities: " + e.getMessage());
                    return 1;
                }
                AgentListing.Result listed = AgentListing.of(all, list, h);
                if (listed.warning() != null) {
                    System.err.println(listed.warning());
                }
                if (listed.lines().isEmpty()) {
                    System.out.println("The agent has no identities.");
                    return 1;
                }
                listed.lines().forEach(System.out::println);
                return 0;
            }
            if (deleteAll) {
                boolean ok = agent.removeAll();
                if (!ok || !quiet) {
                    System.err.println(ok ? "All identities removed." : "Failed to remove all identities.");
                }
                return ok ? 0 : 1;
            }
            List<DestinationConstraint> rules = new ArrayList<>();
            try {
                List<Path> kh = hostKeyFiles.isEmpty()
                        ? DestinationSpecs.defaultHostKeyFiles(Path.of(System.getProperty("user.home"))) : hostKeyFiles;
                for (String d : destinations) {
                    rules.add(DestinationSpecs.parse(d, kh));
                }
            } catch (IllegalArgumentException | java.io.IOException e) {
                System.err.println(e.getMessage());
                return 255; // ssh-add's fatal()
            }
            KeyConstraints constraints = new KeyConstraints(life == 0 ? KeyConstraints.NO_LIFETIME : life, confirm,
                    rules);
            if (test) {
                if (files.isEmpty()) {
                    System.err.println("no keys to test");
                    return 255;
                }
                int rc = 0;
                for (Path f : files) {
                    rc |= AgentKeyTest.test(agent, f);
                }
                return rc;
            }
            if (pkcs11Add != null || pkcs11Remove != null) {
                System.err.println("pqssh add: PKCS#11 tokens (-s/-e) are not supported");
                return 1;
            }
            if (residentKeys) {
                System.err.println("pqssh add: FIDO resident keys (-K) are not supported");
                return 1;
            }
            List<Path> keys = files.isEmpty() ? defaults() : files;
            if (keys.isEmpty()) {
                System.err.println("pqssh add: no key files given and none of the default ones exist");
                return 1;
            }
            int rc = 0;
            try {
                for (Path f : keys) {
                    rc |= delete ? remove(agent, f) : add(agent, f, constraints);
                }
            } catch (Fatal e) {
                return 255; // ssh-add's fatal(): the message is printed, the remaining files are not tried
            }
            return rc;
        }
    }

    /**
     * ssh-add -d: the key (FILE itself when it is a public key or certificate line, else {@code FILE.pub} with its
     * comment, else the private key file's public half), then, unless {@code -k}, the certificate in
     * {@code FILE-cert.pub} beside it. Succeeds when either was removed, as ssh-add; a certificate of another key
     * is ssh-add's fatal error (255).
     */
    private int remove(AgentClient agent, Path f) {
        byte[] blob;
        String comment = "";
        boolean stdin = isStdin(f);
        Path shown = shown(f);
        try {
            String text = readKey(f);
            Path pub = f.resolveSibling(f.getFileName() + ".pub");
            PublicKeyLine line = null;
            if (io.pqssh.client.keys.KeyFiles.kind(text) == io.pqssh.client.keys.KeyFiles.Kind.PUBLIC_LINE) {
                line = PublicKeyLine.parse(text.strip());
            } else if (!stdin && Files.exists(pub)) {
                line = PublicKeyLine.parse(Files.readString(pub).strip());
            }
            if (line != null) {
                blob = line.blob();
                comment = line.comment();
            } else {
                blob = OpenSshKeyV1.publicKeyBlob(text);
            }
        } catch (Exception e) {
            System.err.println("Bad key file " + shown + ": " + e.getMessage());
            return 1;
        }
        boolean removed = removeOne(agent, blob, comment, shown);
        if (keysOnly || stdin) { // ssh-add -d -: the key read from stdin only
            return removed ? 0 : 1;
        }
        Path certFile = f.resolveSibling(f.getFileName() + "-cert.pub");
        if (!Files.exists(certFile)) {
            return removed ? 0 : 1;
        }
        PublicKeyLine certLine;
        io.pqssh.core.cert.SshCertificate cert;
        try {
            certLine = PublicKeyLine.parse(Files.readString(certFile).strip());
            cert = io.pqssh.core.cert.SshCertificate.parse(certLine.blob());
        } catch (Exception e) {
            System.err.println("Failed to load certificate \"" + certFile + "\": " + e.getMessage());
            return removed ? 0 : 1;
        }
        byte[] plain = blob;
        try {
            // FILE may itself be a certificate: compare the keys, as ssh-add's sshkey_equal_public
            if (io.pqssh.core.cert.CertificateKeyTypes.isCertificate(PublicKeyLine.blobKeyType(blob))) {
                plain = io.pqssh.core.cert.SshCertificate.parse(blob).certifiedKey();
            }
        } catch (Exception e) {
            // a malformed certificate as FILE: it cannot match, reported below
        }
        if (!java.security.MessageDigest.isEqual(cert.certifiedKey(), plain)) {
            System.err.println("Certificate " + certFile + " does not match private key " + f);
            throw new Fatal();
        }
        removed |= removeOne(agent, certLine.blob(), certLine.comment(), certFile);
        return removed ? 0 : 1;
    }

    /** ssh-add's name for a key read from stdin ({@code ssh-add -} and {@code ssh-add -d -}). */
    private static final String STDIN_NAME = "(stdin)";

    private static boolean isStdin(Path f) {
        return f.toString().equals("-");
    }

    /** FILE as ssh-add's messages name it: {@code (stdin)} for {@code -}. */
    private static Path shown(Path f) {
        return isStdin(f) ? Path.of(STDIN_NAME) : f;
    }

    /** The key file's text; {@code -} reads stdin, as ssh-add. */
    private static String readKey(Path f) throws java.io.IOException {
        return isStdin(f) ? new String(System.in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                : Files.readString(f);
    }

    /** ssh-add's fatal() inside a per-file step, its message already printed. */
    private static final class Fatal extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Fatal() {
            super(null, null, false, false);
        }
    }

    /** One SSH_AGENTC_REMOVE_IDENTITY with ssh-add's messages. */
    private boolean removeOne(AgentClient agent, byte[] blob, String comment, Path shown) {
        try {
            if (!agent.remove(blob)) {
                System.err.println("Could not remove identity \"" + shown + "\": agent refused operation");
                return false;
            }
        } catch (java.io.IOException e) {
            System.err.println("Could not remove identity \"" + shown + "\": " + e.getMessage());
            return false;
        }
        if (!quiet) {
            String label;
            try {
                label = KeyDescriptions.label(PublicKeyLine.blobKeyType(blob));
            } catch (io.pqssh.core.keys.KeyFileException e) {
                label = "unknown";
            }
            System.err.println("Identity removed: " + shown + " " + label + " ("
                    + (comment.isEmpty() ? "no comment" : comment) + ")");
        }
        return true;
    }

    private int add(AgentClient agent, Path f, KeyConstraints constraints) {
        OpenSshPrivateKey k = null;
        try {
            boolean stdin = isStdin(f);
            if (!stdin) {
                KeyFilePermissions.checkPrivateKeyFile(f);
            }
            String text = readKey(f);
            f = shown(f);
            char[] pass = null;
            if (OpenSshKeyV1.isEncrypted(text)) {
                pass = passphrase(f);
                if (pass == null) {
                    System.err.println("pqssh add: " + f + " is encrypted: no terminal and no PQSSH_PASSPHRASE");
                    return 1;
                }
            }
            // RSA and ECDSA too (for OpenSSH's ssh-agent; pqssh agent refuses them)
            k = io.pqssh.client.keys.KeyFiles.readPrivate(text, pass);
            if (pass != null) {
                java.util.Arrays.fill(pass, '\0');
            }
            int rc = 1; // ssh-add: 0 once the plain key was added
            if (!certificatesOnly) {
                if (!agent.add(k.key(), k.comment().isEmpty() ? f.toString() : k.comment(), constraints)) {
                    System.err.println("Could not add identity \"" + f + "\": agent refused operation");
                    return 1;
                }
                rc = 0;
                if (!quiet) {
                    System.err.println("Identity added: " + f + " (" + (k.comment().isEmpty() ? f : k.comment())
                            + ")");
                    constraintLines(constraints);
                }
            }
            if (keysOnly || stdin) { // ssh-add -: no certificate beside stdin
                return rc;
            }
            int cert = addCertificate(agent, f, k, constraints);
            // -C: the certificate's outcome (ssh-add 9.8+ exits 1 even when it added the certificate)
            return certificatesOnly ? cert : rc | cert;
        } catch (Exception e) {
            System.err.println("Error loading key \"" + f + "\": " + e.getMessage());
            return 1;
        } finally {
            if (k != null) {
                try {
                    k.destroy();
                } catch (javax.security.auth.DestroyFailedException e) {
                    // best effort
                }
            }
        }
    }

    /**
     * ssh-add's {@code FILE-cert.pub} beside a key it added: added too, with the key's comment, when it certifies that
     * key ({@code Certificate added: CERT (KEY_ID)}), of any key type pqssh reads (RSA and ECDSA in their agent form,
     * without the public fields). Under {@code -C} a missing certificate is a silent failure, as in ssh-add.
     */
    private int addCertificate(AgentClient agent, Path f, OpenSshPrivateKey k, KeyConstraints constraints) {
        Path certFile = f.resolveSibling(f.getFileName() + "-cert.pub");
        if (!Files.exists(certFile)) {
            return certificatesOnly ? 1 : 0; // silent, as ssh-add: nothing was added under -C
        }
        io.pqssh.core.cert.SshCertificate cert;
        try {
            cert = io.pqssh.core.cert.SshCertificate.parseLine(Files.readString(certFile).strip());
        } catch (Exception e) {
            System.err.println("Failed to load certificate \"" + certFile + "\": " + e.getMessage());
            return 1;
        }
        if (!java.security.MessageDigest.isEqual(cert.certifiedKey(), k.key().publicKeyBlob())) {
            System.err.println("Certificate " + certFile + " does not match private key " + f);
            return 1;
        }
        try {
            if (!agent.add(k.key(), cert, k.comment().isEmpty() ? f.toString() : k.comment(), constraints)) {
                System.err.println("Certificate " + certFile + " (" + cert.keyId() + ") add failed: agent refused"
                        + " operation");
                return 1;
            }
        } catch (java.io.IOException e) {
            System.err.println("Certificate " + certFile + " (" + cert.keyId() + ") add failed: " + e.getMessage());
            return 1;
        }
        if (!quiet) {
            System.err.println("Certificate added: " + certFile + " (" + cert.keyId() + ")");
            constraintLines(constraints);
        }
        return 0;
    }

    /** ssh-add's lines after an added identity or certificate. */
    private static void constraintLines(KeyConstraints constraints) {
        if (constraints.hasLifetime()) {
            System.err.println("Lifetime set to " + constraints.lifetimeSeconds() + " seconds");
        }
        if (constraints.confirm()) {
            System.err.println("The user must confirm each use of the key");
        }
    }

    /** ssh-add -x / -X: the passphrase (twice to lock), then SSH_AGENTC_LOCK / UNLOCK. */
    private static int lock(AgentClient agent, boolean lock) {
        char[] p1 = lockPassphrase("Enter lock password: ");
        char[] p2 = null;
        byte[] pass = null;
        try {
            if (lock) {
                p2 = lockPassphrase("Again: ");
                if (!Arrays.equals(p1, p2)) {
                    System.err.println("Passwords do not match.");
                    return 1;
                }
            }
            pass = utf8(p1);
            String what = lock ? "lock" : "unlock";
            try {
                if (agent.lock(lock, pass)) {
                    System.err.println("Agent " + what + "ed.");
                    return 0;
                }
                System.err.println("Failed to " + what + " agent: agent refused operation");
            } catch (java.io.IOException e) {
                System.err.println("Failed to " + what + " agent: " + e.getMessage());
            }
            return 1;
        } finally {
            Arrays.fill(p1, '\0');
            if (p2 != null) {
                Arrays.fill(p2, '\0');
            }
            if (pass != null) {
                Arrays.fill(pass, (byte) 0);
            }
        }
    }

    /**
     * As ssh-add's read_passphrase(RP_ALLOW_STDIN): the terminal or SSH_ASKPASS ({@link Prompter}'s rules), else a
     * line of stdin (readpassphrase(3) without a terminal); empty when nothing answers, which the agent refuses.
     */
    private static char[] lockPassphrase(String prompt) {
        Prompter prompter = new Prompter(false, System.getenv());
        if (prompter.canAsk()) {
            char[] c = prompter.secret(prompt);
            return c == null ? new char[0] : c;
        }
        System.err.print(prompt);
        System.err.flush();
        java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
        try {
            int b;
            while ((b = System.in.read()) >= 0 && b != '\n' && b != '\r') {
                line.write(b);
            }
        } catch (java.io.IOException e) {
            // what was read so far
        }
        byte[] bytes = line.toByteArray();
        java.nio.CharBuffer cb = StandardCharsets.UTF_8.decode(java.nio.ByteBuffer.wrap(bytes));
        char[] c = new char[cb.remaining()];
        cb.get(c);
        Arrays.fill(bytes, (byte) 0);
        if (cb.hasArray()) {
            Arrays.fill(cb.array(), '\0');
        }
        return c;
    }

    private static byte[] utf8(char[] c) {
        java.nio.ByteBuffer bb = StandardCharsets.UTF_8.encode(java.nio.CharBuffer.wrap(c));
        byte[] b = new byte[bb.remaining()];
        bb.get(b);
        if (bb.hasArray()) {
            Arrays.fill(bb.array(), (byte) 0);
        }
        return b;
    }

    private static char[] passphrase(Path f) {
        String env = System.getenv("PQSSH_PASSPHRASE");
        if (env != null) {
            return env.toCharArray();
        }
        Console c = System.console();
        return c == null ? null : c.readPassword("Enter passphrase for %s: ", f);
    }

    private static List<Path> defaults() {
        Path ssh = Path.of(System.getProperty("user.home"), ".ssh");
        List<Path> out = new ArrayList<>();
        for (String n : List.of("id_mlkem768", "id_mlkem1024", "id_mlkem512", "id_mldsa44_ed25519", "id_ed25519")) {
            if (Files.isRegularFile(ssh.resolve(n))) {
                out.add(ssh.resolve(n));
            }
        }
        return out;
    }
}
