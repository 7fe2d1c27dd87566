package io.pqssh.cli.agent;

import io.pqssh.client.agent.AgentDebug;
import io.pqssh.client.agent.AskpassConfirmation;
import io.pqssh.client.agent.Lifetimes;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import io.pqssh.client.keys.FingerprintHash;
import io.pqssh.core.agent.Agent;
import io.pqssh.client.agent.AgentSocketServer;
import io.pqssh.core.agent.KeyConstraints;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code pqssh agent}: an ssh-agent holding pqssh's key types (Ed25519, ML-DSA, SLH-DSA, Falcon, the composites and
 * ML-KEM credentials) on a Unix socket; answers pqssh's KEM extension (docs/agent-protocol.md).
 */
@Command(name = "agent", mixinStandardHelpOptions = true,
        description = {"Run an authentication agent (like ssh-agent) for pqssh's key types, ML-KEM included.",
                "Prints SSH_AUTH_SOCK/SSH_AGENT_PID shell commands: eval \"$(pqssh agent)\". Add keys with pqssh add.",
                "Each use of a key added with pqssh add -c / ssh-add -c is confirmed through SSH_ASKPASS",
                "(needs DISPLAY or SSH_ASKPASS_REQUIRE=force; refused otherwise)."})
public final class AgentCommand implements Callable<Integer> {
    @Option(names = "-D", description = "Foreground mode: do not go to the background.")
    boolean foreground;

    @Option(names = "-d", description = "Debug mode: foreground, each request and its answer on stderr.")
    boolean debug;

    @Option(names = "-E", paramLabel = "fingerprint_hash",
            description = "Fingerprint hash in confirmation questions: sha256 (default) or md5.")
    String hash = "sha256";

    @Option(names = "-O", paramLabel = "option", description = "allow-remote-pkcs11, no-restrict-websafe or"
            + " websafe-allow=list: accepted as ssh-agent's, without effect (pqssh agent loads no PKCS#11 or FIDO"
            + " provider).")
    List<String> options = new ArrayList<>();

    @Option(names = "-P", paramLabel = "allowed_providers", description = "Accepted as ssh-agent's; every"
            + " PKCS#11/FIDO provider is refused whatever it says.")
    List<String> providers = new ArrayList<>();

    @Option(names = "-a", paramLabel = "bind_address", description = "Unix socket path (must not exist).")
    Path socket;

    @Option(names = "-c", description = "C-shell commands on stdout.")
    boolean csh;

    @Option(names = "-s", description = "Bourne shell commands on stdout (default).")
    boolean sh;

    @Option(names = "-k", description = "Kill the agent named by SSH_AGENT_PID.")
    boolean kill;

    @Option(names = "-t", paramLabel = "life",
            description = "Default lifetime of added keys (seconds, or 30m, 1h30m...); ssh-add -t overrides it.")
    String lifetime;

    @Override
    public Integer call() throws Exception {
        if (debug && foreground) {
            System.err.println("usage: pqssh agent [-c | -s] [-Dd] [-a bind_address] [-E fingerprint_hash]"
                    + " [-O option] [-P allowed_providers] [-t life]");
            return 1;
        }
        String invalid = invalidOption();
        if (invalid != null) {
            System.err.println(invalid);
            return 255; // ssh-agent's fatal()
        }
        if (kill) {
            return kill();
        }
        long life = KeyConstraints.NO_LIFETIME;
        if (lifetime != null) {
            life = Lifetimes.parse(lifetime);
            if (life < 0) {
                System.err.println(Lifetimes.INVALID);
                return 1;
            }
            if (life == 0) {
                life = KeyConstraints.NO_LIFETIME; // ssh-agent: 0 means keys live until removed
            }
        }
        Path path = socket != null ? socket.toAbsolutePath()
                : AgentSocketServer.newSocketPath(Path.of(System.getProperty("java.io.tmpdir")));
        if (foreground || debug) {
            return runForeground(path, life);
        }
        return startBackground(path);
    }

    private int runForeground(Path path, long life) throws Exception {
        Agent agent = new Agent(life, new AskpassConfirmation(System.getenv(), FingerprintHash.parse(hash)),
                System::nanoTime, new io.pqssh.common.agent.HostKeySignatures());
        Thread reaper = new Thread(agent::reapUntilInterrupted, "agent-key-reaper");
        reaper.setDaemon(true);
        reaper.start();
        try (AgentSocketServer server = debug ? AgentSocketServer.start(path, () -> AgentDebug.logging(agent))
                : AgentSocketServer.start(path, agent)) {
            printEnvironment(path, ProcessHandle.current().pid());
            CountDownLatch stop = new CountDownLatch(1);
            Thread hook = new Thread(() -> {
                try {
                    server.close();
                    removeOwnDirectory(path);
                } catch (java.io.IOException e) {
                    // exiting anyway
                }
                agent.removeAll();
                stop.countDown();
            });
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                stop.await();
            } catch (InterruptedException e) {
                Runtime.getRuntime().removeShutdownHook(hook);
                agent.removeAll();
                server.close();
                removeOwnDirectory(path);
            }
        }
        return 0;
    }

    /**
     * The private directory {@link AgentSocketServer#newSocketPath} made (also when the background copy got it as
     * {@code -a}): removed once empty; any other directory is left alone.
     */
    private static void removeOwnDirectory(Path socketPath) {
        Path d = socketPath.getParent();
        if (d != null && d.getFileName().toString().startsWith("pqssh-")) {
            try {
                Files.deleteIfExists(d);
            } catch (java.io.IOException e) {
                // not empty or not ours: leave it
            }
        }
    }

    /** A JVM cannot fork: start a copy with -D in its own session and report its socket and PID. */
    private int startBackground(Path path) throws Exception {
        java.util.Optional<List<String>> self = io.pqssh.common.process.OwnCommandLine.get();
        if (self.isEmpty()) {
            System.err.println("pqssh agent: cannot find this process's command line; run with -D");
            return 1;
        }
        List<String> cmd = new ArrayList<>();
        if (Files.isExecutable(Path.of("/usr/bin/setsid"))) {
            cmd.add("/usr/bin/setsid"); // leave the terminal's session, as ssh-agent's daemon(3)
        }
        cmd.add(self.get().get(0));
        List<String> args = new ArrayList<>(self.get().subList(1, self.get().size()));
        int at = args.lastIndexOf("agent");
        if (at < 0) {
            System.err.println("pqssh agent: cannot find the agent command in this process's arguments; run with -D");
            return 1;
        }
        cmd.addAll(args.subList(0, at + 1));
        cmd.addAll(List.of("-D", "-a", path.toString()));
        if (lifetime != null) {
            cmd.addAll(List.of("-t", lifetime));
        }
        cmd.addAll(List.of("-E", hash));
        File devNull = new File("/dev/null");
        Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(devNull))
                .redirectOutput(ProcessBuilder.Redirect.to(devNull)).redirectError(ProcessBuilder.Redirect.to(devNull))
                .start();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!accepting(path)) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                p.destroy();
                System.err.println("pqssh agent: the background agent did not start");
                return 1;
            }
            Thread.sleep(50);
        }
        // with setsid the agent is setsid's child only if setsid had to fork; it execs in place otherwise
        printEnvironment(path, p.pid());
        return 0;
    }

    /** Connectable, not just there: the socket file exists a moment before the agent listens on it. */
    public static boolean accepting(Path socket) {
        try (io.pqssh.core.agent.AgentClient c = io.pqssh.core.agent.AgentClient.connect(socket)) {
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /** ssh-agent's checks of -E, -O and -P (fatal, exit 255); null when all are valid. */
    private String invalidOption() {
        try {
            FingerprintHash.parse(hash);
        } catch (IllegalArgumentException e) {
            return "Invalid hash algorithm \"" + hash + "\"";
        }
        boolean websafe = false;
        for (String o : options) {
            if (o.startsWith("websafe-allow=")) {
                if (websafe) {
                    return "websafe-allow already set";
                }
                websafe = true;
            } else if (!o.equals("no-restrict-websafe") && !o.equals("allow-remote-pkcs11")) {
                return "Unknown -O option";
            }
        }
        return providers.size() > 1 ? "-P option already specified" : null;
    }

    private void printEnvironment(Path path, long pid) {
        if (csh) {
            System.out.println("setenv SSH_AUTH_SOCK " + path + ";");
            System.out.println("setenv SSH_AGENT_PID " + pid + ";");
        } else {
            System.out.println("SSH_AUTH_SOCK=" + path + "; export SSH_AUTH_SOCK;");
            System.out.println("SSH_AGENT_PID=" + pid + "; export SSH_AGENT_PID;");
        }
        System.out.println("echo Agent pid " + pid + ";");
        System.out.flush();
    }

    private int kill() {
        String pid = System.getenv("SSH_AGENT_PID");
        if (pid == null || !pid.matches("\\d+")) {
            System.err.println("SSH_AGENT_PID not set, cannot kill agent");
            return 1;
        }
        var h = ProcessHandle.of(Long.parseLong(pid));
        if (h.isEmpty() || !h.get().destroy()) {
            System.err.println("kill: no agent with pid " + pid);
            return 1;
        }
        System.out.println(csh ? "unsetenv SSH_AUTH_SOCK;\nunsetenv SSH_AGENT_PID;"
                : "unset SSH_AUTH_SOCK;\nunset SSH_AGENT_PID;");
        System.out.println("echo Agent pid " + pid + " killed;");
        return 0;
    }
}
