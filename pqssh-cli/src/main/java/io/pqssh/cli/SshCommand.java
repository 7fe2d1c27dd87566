package io.pqssh.cli;

import java.io.InputStream;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PublicKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import org.apache.sshd.client.channel.ChannelShell;
import org.apache.sshd.client.channel.ClientChannelEvent;
import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.keyverifier.KnownHostsServerKeyVerifier;
import org.apache.sshd.client.keyverifier.ServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.NamedResource;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.util.security.SecurityUtils;

import io.pqssh.core.keys.KeyFilePermissions;
import io.pqssh.core.keys.kem.MlKemSshKey;
import io.pqssh.core.keys.openssh.OpenSshPrivateKey;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.mina.client.PqsshClient;
import io.pqssh.mina.kex.PqKex;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code pqssh ssh}: an OpenSSH-like client with KEM authentication and post-quantum key exchange. */
@Command(name = "ssh", mixinStandardHelpOptions = true,
        description = {"Log in to an SSH server and run a command (or a shell).",
                "Exit status: the remote command's, or 255 on connection or authentication failure.",
                "Options (-o): StrictHostKeyChecking yes|accept-new|no, UserKnownHostsFile, KexAlgorithms,",
                "RequirePostQuantumKex yes|no, WarnWeakCrypto yes|no, KEMAuthentication yes|no, IdentityKEMFile,",
                "PreferredAuthentications, PasswordAuthentication yes|no, ConnectTimeout, Port, User,",
                "NoneProbe yes|no (default no), PubkeySignDirectly yes|no (default no), GuessKex yes|no (default",
                "yes: first_kex_packet_follows when KexGuessCache shows it will be right), KexGuessCache FILE|none",
                "(default pqssh_kex_cache beside known_hosts), EarlyChannelOpen yes|no (default no; pqssh servers only);",
                "see docs/round-trips.md."})
public final class SshCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "[user@]host", description = "Destination.")
    String destination;

    @Parameters(index = "1..*", paramLabel = "command", description = "Remote command.")
    List<String> command = new ArrayList<>();

    @Option(names = "-p", description = "Port (default 22).")
    Integer port;

    @Option(names = "-l", description = "Login name.")
    String loginName;

    @Option(names = "-i", description = "Identity file (ML-KEM or signature key, openssh-key-v1). Repeatable.")
    List<Path> identities = new ArrayList<>();

    @Option(names = "-o", description = "Option=value (see above). Repeatable.")
    List<String> options = new ArrayList<>();

    @Option(names = "-v", description = "Verbose.")
    boolean verbose;

    @Override
    public Integer call() throws Exception {
        Map<String, String> o = parseOptions(options);
        String user = loginName != null ? loginName : o.getOrDefault("user", System.getProperty("user.name"));
        String host = destination;
        int at = destination.lastIndexOf('@');
        if (at >= 0) {
            user = destination.substring(0, at);
            host = destination.substring(at + 1);
        }
        int p = port != null ? port : Integer.parseInt(o.getOrDefault("port", "22"));

        PqsshClient.Builder b = PqsshClient.builder()
                .serverKeyVerifier(verifier(o, host, p))
                .hostKeyOrderFrom(knownHostsFile(o))
                .requirePostQuantumKex(yes(o.getOrDefault("requirepostquantumkex", "no")))
                .warnWeakCrypto(yes(o.getOrDefault("warnweakcrypto", "yes")))
                .timeout(Duration.ofSeconds(Long.parseLong(o.getOrDefault("connecttimeout", "30"))));
        if (o.containsKey("noneprobe")) {
            b.noneProbe(yes(o.get("noneprobe")));
        }
        boolean earlyOpen = yes(o.getOrDefault("earlychannelopen", "no"));
        b.earlyChannelOpen(earlyOpen);
        if (o.containsKey("guesskex")) {
            b.guessKex(yes(o.get("guesskex")));
        }
        b.kexGuessCache(kexGuessCache(o));
        if (o.containsKey("pubkeysigndirectly")) {
            b.pubkeySignDirectly(yes(o.get("pubkeysigndirectly")));
        }
        if (o.containsKey("kexalgorithms")) {
            b.kex(PqKex.parseList(o.get("kexalgorithms"), io.pqssh.mina.kex.KexInitDefaults.CLIENT_KEX));
        }
        if (o.containsKey("preferredauthentications")) {
            b.preferredAuthentications(List.of(o.get("preferredauthentications").split(",")));
        }
        boolean kemEnabled = yes(o.getOrDefault("kemauthentication", "yes"));
        List<Path> files = new ArrayList<>(identities);
        if (o.containsKey("identitykemfile")) {
            files.add(Path.of(o.get("identitykemfile")));
        }
        if (files.isEmpty()) {
            files.addAll(defaultIdentities());
        }
        io.pqssh.core.kem.KemPrivateKey kemKey = null;
        KeyPair sigKey = null;
        for (Path f : files) {
            IdentityFiles.Loaded id = IdentityFiles.load(f);
            if (id.kem() != null && kemKey == null) {
                kemKey = id.kem();
            }
            for (KeyPair kp : id.signatureKeys()) {
                b.identity(kp);
                if (sigKey == null) {
                    sigKey = kp;
                }
            }
        }
        if (kemKey != null && kemEnabled) {
            b.kemIdentity(new KemClientIdentity(kemKey, null, sigKey));
        }
        try (PqsshClient client = b.start()) {
            if (earlyOpen && !command.isEmpty()) {
                // the channel opens behind the KEM response (pqssh servers only, docs/round-trips.md)
                try {
                    return client.loginAndExec(user, host, p, String.join(" ", command), unclosable(System.out),
                            unclosable(System.err), Duration.ofDays(365));
                } catch (PqsshClient.PostQuantumRequiredException e) {
                    System.err.println("pqssh: " + e.getMessage());
                    return 255;
                } catch (Exception e) {
                    System.err.println("pqssh: " + user + "@" + host + ": " + Errors.describe(e));
                    return 255;
                }
            }
            ClientSession session;
            try {
                session = client.login(user, host, p);
            } catch (PqsshClient.PostQuantumRequiredException e) {
                System.err.println("pqssh: " + e.getMessage());
                return 255;
            } catch (Exception e) {
                String why = Errors.describe(e);
                if (why.contains("No more authentication methods")) {
                    why = "Permission denied (no accepted authentication method)";
                }
                System.err.println("pqssh: " + user + "@" + host + ": " + why);
                return 255;
            }
            try (session) {
                if (command.isEmpty()) {
                    return shell(session);
                }
                // MINA closes the streams it is given when the channel closes: keep ours open
                return PqsshClient.exec(session, String.join(" ", command), unclosable(System.out),
                        unclosable(System.err), Duration.ofDays(365));
            }
        } finally {
            if (kemKey != null) {
                kemKey.destroy();
            }
        }
    }

    private static int shell(ClientSession session) throws Exception {
        try (ChannelShell ch = session.createShellChannel()) {
            ch.setUsePty(System.console() != null);
            ch.setIn(System.in);
            ch.setOut(unclosable(System.out));
            ch.setErr(unclosable(System.err));
            ch.open().verify(Duration.ofSeconds(30));
            ch.waitFor(EnumSet.of(ClientChannelEvent.CLOSED), 0L);
            Integer s = ch.getExitStatus();
            return s == null ? 0 : s;
        }
    }

    static java.io.OutputStream unclosable(java.io.OutputStream out) {
        return new java.io.FilterOutputStream(out) {
            @Override
            public void write(byte[] b, int off, int len) throws java.io.IOException {
                out.write(b, off, len);
            }

            @Override
            public void close() throws java.io.IOException {
                out.flush();
            }
        };
    }

    private static List<Path> defaultIdentities() {
        Path ssh = Path.of(System.getProperty("user.home"), ".ssh");
        List<Path> out = new ArrayList<>();
        for (String n : List.of("id_mlkem768", "id_mlkem1024", "id_mlkem512", "id_mldsa44_ed25519", "id_ed25519", "id_ecdsa", "id_rsa")) {
            if (Files.isRegularFile(ssh.resolve(n))) {
                out.add(ssh.resolve(n));
            }
        }
        return out;
    }

    /**
     * The servers' last KEX and host key lists, for the first_kex_packet_follows guess: {@code KexGuessCache=FILE},
     * {@code none}, or by default {@code pqssh_kex_cache} beside the known_hosts file (docs/round-trips.md).
     */
    private static io.pqssh.mina.kex.ServerProposalCache kexGuessCache(Map<String, String> o) {
        String v = o.get("kexguesscache");
        if (v != null && v.equalsIgnoreCase("none")) {
            return io.pqssh.mina.kex.ServerProposalCache.none();
        }
        Path f = v != null ? Path.of(v.replaceFirst("^~", System.getProperty("user.home")))
                : knownHostsFile(o).toAbsolutePath().resolveSibling("pqssh_kex_cache");
        return io.pqssh.mina.kex.ServerProposalCache.file(f);
    }

    private static Path knownHostsFile(Map<String, String> o) {
        return Path.of(o.getOrDefault("userknownhostsfile",
                System.getProperty("user.home") + "/.ssh/known_hosts").replaceFirst("^~",
                System.getProperty("user.home")));
    }

    private static ServerKeyVerifier verifier(Map<String, String> o, String host, int port) {
        String mode = o.getOrDefault("stricthostkeychecking", "yes").toLowerCase(Locale.ROOT);
        Path kh = knownHostsFile(o);
        KnownHostsServerKeyVerifier v = switch (mode) {
            case "no", "off" -> null;
            case "accept-new" -> new KnownHostsServerKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE, kh);
            case "yes", "ask" -> new KnownHostsServerKeyVerifier(
                    (ClientSession s, SocketAddress a, PublicKey k) -> {
                        System.err.println("No " + KeyUtils.getKeyType(k) + " host key is known for " + host
                                + (port == 22 ? "" : " port " + port) + " in " + kh + ".");
                        System.err.println("Host key fingerprint is " + KeyUtils.getFingerPrint(k));
                        System.err.println("Host key verification failed"
                                + " (use -o StrictHostKeyChecking=accept-new to trust it on first use).");
                        return false;
                    }, kh);
            default -> throw new IllegalArgumentException("StrictHostKeyChecking: expected yes, accept-new or no");
        };
        if (v == null) {
            return AcceptAllServerKeyVerifier.INSTANCE;
        }
        // a changed key is refused in every checking mode, with OpenSSH's warning
        v.setModifiedServerKeyAcceptor((s, a, entry, expected, actual) -> {
            System.err.println("@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@");
            System.err.println("@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @");
            System.err.println("@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@");
            System.err.println("The " + KeyUtils.getKeyType(actual) + " host key for " + host
                    + (port == 22 ? "" : " port " + port) + " has changed; someone could be eavesdropping on you.");
            System.err.println("Known key: " + KeyUtils.getFingerPrint(expected) + " (" + kh + ")");
            System.err.println("Offered key: " + KeyUtils.getFingerPrint(actual));
            System.err.println("Host key verification failed.");
            return false;
        });
        return v;
    }

    static Map<String, String> parseOptions(List<String> raw) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String r : raw) {
            String[] kv = r.split("\\s*=\\s*|\\s+", 2);
            if (kv.length != 2 || kv[1].isEmpty()) {
                throw new IllegalArgumentException("option '" + r + "' must be Key=value");
            }
            m.putIfAbsent(kv[0].toLowerCase(Locale.ROOT), kv[1]); // first value wins, as in ssh
        }
        return m;
    }

    static boolean yes(String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "yes", "true" -> true;
            case "no", "false" -> false;
            default -> throw new IllegalArgumentException("expected yes or no, got '" + v + "'");
        };
    }

    /** Loads identity files: pqssh/OpenSSH private keys; ML-KEM keys through pqssh, the rest through MINA. */
    static final class IdentityFiles {
        record Loaded(io.pqssh.core.kem.KemPrivateKey kem, List<KeyPair> signatureKeys) {
        }

        static Loaded load(Path f) throws Exception {
            KeyFilePermissions.checkPrivateKeyFile(f);
            String text = Files.readString(f);
            if (text.startsWith("-----BEGIN OPENSSH PRIVATE KEY-----")) {
                byte[] blob = io.pqssh.core.keys.openssh.OpenSshKeyV1.publicKeyBlob(text);
                String type = io.pqssh.core.keys.PublicKeyLine.blobKeyType(blob);
                if (io.pqssh.core.kem.KemAlgorithm.fromName(type).isPresent()) {
                    OpenSshPrivateKey k = KeygenCommand.readPrivate(f, System.getenv("PQSSH_PASSPHRASE"));
                    return new Loaded(((MlKemSshKey) k.key()).kemPrivateKey(), List.of());
                }
                if (io.pqssh.mina.keys.PqKeyPairs.isPqSignatureKeyFile(text)) {
                    // ML-DSA, the OpenSSH composite, SLH-DSA, Falcon: pqssh reads them, MINA cannot
                    OpenSshPrivateKey k = KeygenCommand.readPrivate(f, System.getenv("PQSSH_PASSPHRASE"));
                    return new Loaded(null, List.of(io.pqssh.mina.keys.PqKeyPairs.keyPair(
                            (io.pqssh.core.sig.SshSigningKey) k.key())));
                }
            } else if (isResearchIdentity(text)) {
                // the KEMUAuth research client's identity file: algorithm / public / secret lines
                return new Loaded(io.pqssh.core.keys.kem.ResearchIdentityFile.parse(text), List.of());
            }
            List<KeyPair> kps = new ArrayList<>();
            try (InputStream in = Files.newInputStream(f)) {
                Iterable<KeyPair> ids = SecurityUtils.loadKeyPairIdentities(null, NamedResource.ofName(f.toString()),
                        in, (session, resource, retry) -> System.getenv("PQSSH_PASSPHRASE"));
                if (ids != null) {
                    ids.forEach(kps::add);
                }
            }
            if (kps.isEmpty()) {
                throw new IllegalArgumentException(f + ": no usable key found");
            }
            return new Loaded(null, kps);
        }

        static boolean isResearchIdentity(String text) {
            return text.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).findFirst()
                    .map(l -> l.toLowerCase(Locale.ROOT).startsWith("algorithm")).orElse(false);
        }
    }
}
