package io.pqssh.cli.startup;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import io.pqssh.cli.Main;
import io.pqssh.cli.SshCommand;
import io.pqssh.core.keys.KeyFilePermissions;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;

/**
 * The workload the launcher records into the JVM's AOT cache ({@code -XX:AOTCacheOutput}, JEP 483/514/515): a
 * real {@code pqssh server} on loopback (a child JVM, not recorded) and real {@code pqssh ssh ... true} logins
 * against it (Ed25519 publickey and ML-KEM publickey-kem, over mlkem768x25519), plus {@code keygen -l}. Everything happens in a temporary directory
 * that is removed afterwards; nothing outside it is read or written (its own known_hosts and ssh_config).
 */
public final class StartupTraining {
    private StartupTraining() {
    }

    public static void main(String[] args) throws Exception {
        SshCommand.libraryLogging(false); // as a `pqssh ssh` process, before the first logger
        Path dir = Files.createTempDirectory("pqssh-aot-training");
        PrintStream realOut = System.out;
        PrintStream realErr = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream quiet = new PrintStream(log, true, StandardCharsets.UTF_8);
        int failures = 0;
        Process server = null;
        try {
            System.setOut(quiet);
            System.setErr(quiet);
            Path host = dir.resolve("host_ed25519");
            Path user = dir.resolve("id_ed25519");
            Path kem = dir.resolve("id_mlkem768");
            writeKey(host);
            writeKey(user);
            run("keygen", "-q", "-t", "mlkem768", "-N", "", "-f", kem.toString());
            Path ak = dir.resolve("authorized_keys");
            // README's way: both public key lines in authorized_keys
            Files.writeString(ak, Files.readString(dir.resolve("id_ed25519.pub"))
                    + Files.readString(dir.resolve("id_mlkem768.pub")));
            Path portFile = dir.resolve("port");
            // the server runs in a JVM of its own: the cache then holds the client's classes only, and the JVM
            // loads every class of the cache at start-up (a client-only cache starts ~50 ms of CPU faster)
            List<String> cmd = List.of(ProcessHandle.current().info().command().orElse("java"),
                    "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                    "io.pqssh.cli.Main", "server", "-D", "-p", "0", "--port-file", portFile.toString(),
                    "-o", "ListenAddress=127.0.0.1", "-o", "HostKey=" + host, "-o", "AuthorizedKeysFile=" + ak,
                    "-o", "AuthorizedKEMKeysFile=none");
            server = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("server.log").toFile()).start();
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!(Files.exists(portFile) && Files.readString(portFile).endsWith("\n"))) {
                if (System.nanoTime() > deadline || !server.isAlive()) {
                    throw new IllegalStateException("training server did not start: "
                            + Files.readString(dir.resolve("server.log")));
                }
                Thread.sleep(20);
            }
            String port = Files.readString(portFile).strip();
            String me = System.getProperty("user.name");
            // the first login learns the host key (accept-new) and the server's KEXINIT (the KEX guess cache beside
            // known_hosts); the later ones take the everyday path: a known host and a first_kex_packet_follows guess
            String knownHosts = dir.resolve("known_hosts").toString();
            // an everyday ssh_config (the user's own and /etc/ssh/ssh_config are not read: -F)
            Path config = dir.resolve("config");
            Files.writeString(config, "Host training-*\n    User nobody\n    Port 2222\n\nHost *\n"
                    + "    ServerAliveInterval 60\n    SendEnv LANG LC_*\n    HashKnownHosts no\n");
            for (int i = 0; i < 3; i++) {
                for (Path id : List.of(user, kem)) {
                    failures += run("ssh", "-p", port, "-i", id.toString(), "-o", "StrictHostKeyChecking=accept-new",
                            "-o", "UserKnownHostsFile=" + knownHosts, "-F", config.toString(), me + "@127.0.0.1",
                            "true") == 0 ? 0 : 1;
                }
            }
            run("keygen", "-l", "-f", user.toString());
        } catch (Exception e) {
            failures++;
            quiet.println("training: " + e);
        } finally {
            if (server != null) {
                server.destroy();
                if (!server.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                    server.destroyForcibly();
                }
            }
            System.setOut(realOut);
            System.setErr(realErr);
            deleteTree(dir);
        }
        if (failures > 0) {
            // the cache is still written (whatever ran is recorded); say why it may be less effective
            realErr.println("pqssh: start-up cache training had " + failures + " failed step(s):");
            realErr.print(log.toString(StandardCharsets.UTF_8));
        }
        Runtime.getRuntime().halt(0); // leftover client threads need no orderly shutdown
    }

    private static int run(String... args) {
        if (args[0].equals("ssh")) {
            // the process's own path: SLF4J's no-op binding and the warm-up thread, as `pqssh ssh` runs
            return SshCommand.main(java.util.Arrays.asList(args).subList(1, args.length));
        }
        return Main.run(args);
    }

    private static void writeKey(Path file) throws Exception {
        SecureRandom r = new SecureRandom();
        SshSigningKey k = SshSigningKey.generate(SignatureKeyType.ED25519, r);
        KeyFilePermissions.writePrivateKeyFile(file, OpenSshKeyV1.write(k, "training", null, r));
        Files.writeString(file.resolveSibling(file.getFileName() + ".pub"), k.keyType() + " "
                + java.util.Base64.getEncoder().encodeToString(k.publicKeyBlob()) + " training\n");
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (Exception ignored) {
            // a temporary directory
        }
    }

    /** {@code StartupTraining copy DIR JAR...}: the unsigned class path copies, printed as a class path. */
    public static final class Copy {
        public static void main(String[] args) throws Exception {
            Path dir = Path.of(args[0]);
            List<Path> jars = Stream.of(args).skip(1).map(Path::of).toList();
            List<Path> copies = UnsignedJars.copy(jars, dir);
            System.out.print(String.join(":", copies.stream().map(Path::toString).toList()));
        }
    }
}
