package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Agents and agent tools for the agent end-to-end tests: {@code pqssh agent -D} and OpenSSH's {@code ssh-agent -D}
 * on a socket in the test directory, OpenSSH tools and {@code pqssh} commands run to completion with a given
 * environment (stdin /dev/null, no DISPLAY, bounded). Every process started here is stopped by {@link #close}.
 */
final class AgentHarness implements AutoCloseable {
    static final Path SSH_AGENT = Path.of("/usr/bin/ssh-agent");
    static final Path SSH_ADD = Path.of("/usr/bin/ssh-add");
    static final Duration RUN = Duration.ofSeconds(90);

    /** A finished command: its exit status and its stdout and stderr together. */
    record Run(int rc, String out) {
    }

    private final Path dir;
    private final ForwardingHarness h;
    private final List<Process> sshAgents = new ArrayList<>();

    AgentHarness(Path dir, ForwardingHarness h) {
        CliHarness.requireBinary(SSH_ADD, "openssh-client");
        CliHarness.requireBinary(SSH_AGENT, "openssh-client");
        this.dir = dir;
        this.h = h;
    }

    /**
     * An SSH_ASKPASS script in {@code dir}: appends {@code $SSH_ASKPASS_PROMPT|question} lines to {@code log} and
     * answers the content of {@code answer} ("FAIL": exit 1, as a cancelled dialog).
     */
    static Path askpass(Path dir, Path log, Path answer) throws IOException {
        Path script = dir.resolve("askpass.sh");
        Files.writeString(script, "#!/bin/sh\nprintf '%s|%s\\n' \"$SSH_ASKPASS_PROMPT\" \"$1\" >> '" + log
                + "'\na=$(cat '" + answer + "')\n[ \"$a\" = FAIL ] && exit 1\nprintf '%s\\n' \"$a\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }

    /** The environment of agents and clients: the agent's socket, pqssh's home, askpass forced if one is given. */
    static Map<String, String> env(Path sock, Path home, Path askpass) {
        Map<String, String> e = new HashMap<>();
        e.put("SSH_AUTH_SOCK", sock.toString());
        e.put("JAVA_TOOL_OPTIONS", "-Duser.home=" + home);
        if (askpass != null) {
            e.put("SSH_ASKPASS", askpass.toString());
            e.put("SSH_ASKPASS_REQUIRE", "force"); // no display here
        }
        return e;
    }

    /** Runs a tool (an OpenSSH one) with {@code env} added to this JVM's environment. */
    Run run(Map<String, String> env, String... cmd) throws Exception {
        Path out = Files.createTempFile(dir, "tool", ".out");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().remove("DISPLAY");
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", cmd) + " did not finish: " + CliHarness.read(out));
        }
        return new Run(p.exitValue(), CliHarness.read(out));
    }

    /** {@code pqssh ARGS} in its own JVM; the JVM's "Picked up JAVA_TOOL_OPTIONS" line is not part of the output. */
    Run pqssh(Map<String, String> env, String... args) throws Exception {
        ForwardingHarness.Proc p = h.startPqssh(env, args);
        int rc = p.waitFor(RUN);
        String err = CliHarness.read(p.err()).replaceFirst("^Picked up JAVA_TOOL_OPTIONS: .*\n", "");
        return new Run(rc, CliHarness.read(p.out()) + err);
    }

    /** {@code pqssh agent -D -a sock EXTRA}, running once its socket exists. */
    ForwardingHarness.Proc pqsshAgent(Path sock, Map<String, String> env, String... extra) throws Exception {
        List<String> a = new ArrayList<>(List.of("agent", "-D", "-a", sock.toString()));
        a.addAll(List.of(extra));
        ForwardingHarness.Proc agent = h.startPqssh(env, a.toArray(String[]::new));
        awaitListening(sock, agent);
        return agent;
    }

    /** Until the agent accepts connections (its socket file exists a moment before it listens). */
    static void awaitListening(Path sock, ForwardingHarness.Proc agent) throws InterruptedException {
        CliHarness.waitUntil(RUN, () -> io.pqssh.cli.agent.AgentCommand.accepting(sock) || !agent.process().isAlive(),
                agent::output);
        assertTrue(agent.process().isAlive(), agent.output());
    }

    /** OpenSSH's {@code ssh-agent -D -a sock EXTRA}, running once its socket exists. */
    Process opensshAgent(Path sock, Map<String, String> env, String... extra) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(SSH_AGENT.toString(), "-D", "-a", sock.toString()));
        cmd.addAll(List.of(extra));
        Path log = dir.resolve("ssh-agent-" + sshAgents.size() + ".out");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(log.toFile()).redirectErrorStream(true);
        pb.environment().remove("DISPLAY");
        pb.environment().putAll(env);
        Process p = pb.start();
        sshAgents.add(p);
        CliHarness.waitUntil(Duration.ofSeconds(10), () -> Files.exists(sock) || !p.isAlive(),
                () -> "ssh-agent did not start: " + CliHarness.read(log));
        return p;
    }

    @Override
    public void close() throws Exception {
        for (Process p : sshAgents) {
            if (p.isAlive()) {
                p.destroy(); // ours, by its PID
                p.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }
}
