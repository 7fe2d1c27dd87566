package io.pqssh.cli.agent;

import java.io.Console;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Callable;

import io.pqssh.cli.keygen.FingerprintHash;
import io.pqssh.cli.keygen.KeyDescriptions;
import io.pqssh.core.agent.AgentClient;
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
                "Exit status: 0 success, 1 failure, 2 no agent."})
public final class AddCommand implements Callable<Integer> {
    @Parameters(paramLabel = "file", description = "Private key files.")
    List<Path> files = new ArrayList<>();

    @Option(names = "-l", description = "List fingerprints of all keys (ML-KEM keys too).")
    boolean list;

    @Option(names = "-L", description = "List public keys of all keys.")
    boolean listPublic;

    @Option(names = "-d", description = "Remove the given keys.")
    boolean delete;

    @Option(names = "-D", description = "Remove all keys.")
    boolean deleteAll;

    @Option(names = "-q", description = "Quiet.")
    boolean quiet;

    @Option(names = "-E", paramLabel = "hash", description = "Fingerprint hash: sha256 (default) or md5.")
    String hash = "sha256";

    @Override
    public Integer call() throws Exception {
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
            if (list || listPublic) {
                List<AgentClient.Identity> all = new ArrayList<>(agent.identities());
                all.addAll(agent.kemIdentities());
                if (all.isEmpty()) {
                    System.out.println("The agent has no identities.");
                    return 1;
                }
                FingerprintHash h = FingerprintHash.parse(hash);
                for (AgentClient.Identity id : all) {
                    if (list) {
                        System.out.println(KeyDescriptions.fingerprintLine(id.blob(), id.comment(), h));
                    } else {
                        System.out.println(PublicKeyLine.blobKeyType(id.blob()) + " "
                                + Base64.getEncoder().encodeToString(id.blob())
                                + (id.comment().isEmpty() ? "" : " " + id.comment()));
                    }
                }
                return 0;
            }
            if (deleteAll) {
                boolean ok = agent.removeAll();
                System.err.println(ok ? "All identities removed." : "Failed to remove all identities.");
                return ok ? 0 : 1;
            }
            List<Path> keys = files.isEmpty() ? defaults() : files;
            if (keys.isEmpty()) {
                System.err.println("pqssh add: no key files given and none of the default ones exist");
                return 1;
            }
            int rc = 0;
            for (Path f : keys) {
                rc |= delete ? remove(agent, f) : add(agent, f);
            }
            return rc;
        }
    }

    private int remove(AgentClient agent, Path f) {
        try {
            Path pub = f.resolveSibling(f.getFileName() + ".pub");
            byte[] blob = Files.exists(pub) ? Base64.getDecoder().decode(Files.readString(pub).strip().split("\\s+")[1])
                    : OpenSshKeyV1.publicKeyBlob(Files.readString(f));
            if (agent.remove(blob)) {
                System.err.println("Identity removed: " + f);
                return 0;
            }
            System.err.println("Could not remove identity \"" + f + "\": agent refused operation");
        } catch (Exception e) {
            System.err.println("Could not remove identity \"" + f + "\": " + e.getMessage());
        }
        return 1;
    }

    private int add(AgentClient agent, Path f) {
        OpenSshPrivateKey k = null;
        try {
            KeyFilePermissions.checkPrivateKeyFile(f);
            String text = Files.readString(f);
            char[] pass = null;
            if (OpenSshKeyV1.isEncrypted(text)) {
                pass = passphrase(f);
                if (pass == null) {
                    System.err.println("pqssh add: " + f + " is encrypted: no terminal and no PQSSH_PASSPHRASE");
                    return 1;
                }
            }
            k = OpenSshKeyV1.read(text, pass);
            if (pass != null) {
                java.util.Arrays.fill(pass, '\0');
            }
            if (!agent.add(k.key(), k.comment().isEmpty() ? f.toString() : k.comment())) {
                System.err.println("Could not add identity \"" + f + "\": agent refused operation");
                return 1;
            }
            if (!quiet) {
                System.err.println("Identity added: " + f + " (" + (k.comment().isEmpty() ? f : k.comment()) + ")");
            }
            return 0;
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
