package io.pqssh.client.agent;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.pqssh.core.agent.Agent;
import io.pqssh.client.keys.FingerprintHash;

/**
 * ssh-agent's confirmation of a confirm-constrained key ({@code ssh-add -c}): runs {@code SSH_ASKPASS} (default
 * {@value #DEFAULT_ASKPASS}) with the question as its argument and {@code SSH_ASKPASS_PROMPT=confirm} in its
 * environment. Allowed when it exits 0 and prints nothing or "yes" (any case). Askpass is used only when
 * {@code DISPLAY} or {@code WAYLAND_DISPLAY} is set or {@code SSH_ASKPASS_REQUIRE=force} ({@code never} turns it
 * off): otherwise every use is refused, as OpenSSH's readpass.c decides. One question at a time.
 */
public final class AskpassConfirmation implements Agent.UseConfirmation {
    static final String DEFAULT_ASKPASS = "/usr/bin/ssh-askpass";
    private static final long MAX_WAIT_MINUTES = 10;

    private final Map<String, String> env;
    private final FingerprintHash hash;

    public AskpassConfirmation(Map<String, String> env, FingerprintHash hash) {
        this.env = Map.copyOf(env);
        this.hash = hash;
    }

    private boolean askpassAllowed() {
        String require = env.getOrDefault("SSH_ASKPASS_REQUIRE", "");
        if (require.equalsIgnoreCase("force")) {
            return true;
        }
        if (require.equalsIgnoreCase("never")) {
            return false;
        }
        return !env.getOrDefault("DISPLAY", "").isEmpty() || !env.getOrDefault("WAYLAND_DISPLAY", "").isEmpty();
    }

    /** ssh-agent's question; {@code user} (a destination-constrained key's use) adds ssh-agent's third line. */
    String question(Agent.Entry key, String user) {
        return "Allow use of key " + key.comment() + "?\nKey fingerprint " + hash.format(key.blob()) + "."
                + (user == null ? "" : "\npublic key authentication request for user \"" + user + "\" to listed host");
    }

    @Override
    public boolean allow(Agent.Entry key) {
        return allow(key, null);
    }

    @Override
    public synchronized boolean allow(Agent.Entry key, String user) {
        if (!askpassAllowed()) {
            return false;
        }
        ProcessBuilder pb = new ProcessBuilder(env.getOrDefault("SSH_ASKPASS", DEFAULT_ASKPASS), question(key, user))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().put("SSH_ASKPASS_PROMPT", "confirm");
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            return false; // no askpass program: nobody can say yes
        }
        try {
            byte[] out;
            try (InputStream in = p.getInputStream()) {
                out = in.readNBytes(1024);
            }
            if (!p.waitFor(MAX_WAIT_MINUTES, TimeUnit.MINUTES) || p.exitValue() != 0) {
                return false;
            }
            String answer = new String(out, StandardCharsets.UTF_8);
            int end = 0;
            while (end < answer.length() && answer.charAt(end) != '\n' && answer.charAt(end) != '\r') {
                end++;
            }
            answer = answer.substring(0, end);
            return answer.isEmpty() || answer.equalsIgnoreCase("yes");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
    }
}
