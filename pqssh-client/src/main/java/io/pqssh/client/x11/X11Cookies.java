package io.pqssh.client.x11;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.pqssh.client.ssh.ClientLog;

/**
 * ssh's {@code client_x11_get_proto}: the local display's real authorization, from {@code xauth list DISPLAY}
 * (ForwardX11Trusted yes) or from an untrusted cookie that {@code xauth generate DISPLAY MIT-MAGIC-COOKIE-1
 * untrusted timeout T} makes the X server issue (ForwardX11Trusted no: the remote clients get the SECURITY
 * extension's untrusted access, for ForwardX11Timeout plus 60 s). Without xauth data a trusted request goes on with
 * made-up data (the local server then decides by its own means), an untrusted one is not made.
 */
final class X11Cookies {
    /** ssh's X11_TIMEOUT_SLACK: the untrusted cookie outlives ForwardX11Timeout by this much. */
    static final long TIMEOUT_SLACK_SECONDS = 60;
    /** How long one xauth run may take (it talks to the X server for generate). */
    private static final long XAUTH_WAIT_SECONDS = 30;

    /** A protocol name and its data as hex, as xauth lists them. */
    record Cookie(String protocol, String hex) {
    }

    private X11Cookies() {
    }

    /** null: no X11 forwarding (said why). */
    static Cookie get(X11DisplayName display, Path xauth, boolean trusted, long timeoutSeconds, ClientLog log) {
        if (xauth != null && !Files.exists(xauth)) {
            log.debug1("No xauth program.");
            xauth = null;
        }
        Cookie got = null;
        if (xauth != null) {
            Path dir = null;
            boolean generated = false;
            try {
                if (!trusted) {
                    dir = Files.createTempDirectory("ssh-");
                    Path file = dir.resolve("xauthfile");
                    List<String> gen = new ArrayList<>(List.of(xauth.toString(), "-f", file.toString(), "generate",
                            display.xauthName(), X11Forwarding.PROTOCOL, "untrusted"));
                    if (timeoutSeconds != 0) {
                        gen.addAll(List.of("timeout", Long.toString(timeoutSeconds + TIMEOUT_SLACK_SECONDS)));
                    }
                    log.debug2("x11_get_proto: " + String.join(" ", gen));
                    generated = run(gen) != null;
                }
                if (trusted || generated) {
                    List<String> list = new ArrayList<>(List.of(xauth.toString()));
                    if (generated) {
                        list.addAll(List.of("-f", dir.resolve("xauthfile").toString()));
                    }
                    list.addAll(List.of("list", display.xauthName()));
                    log.debug2("x11_get_proto: " + String.join(" ", list));
                    got = parse(run(list));
                }
            } catch (IOException e) {
                log.debug1("xauth: " + e.getMessage());
            } finally {
                if (dir != null) {
                    deleteQuietly(dir.resolve("xauthfile"));
                    deleteQuietly(dir);
                }
            }
        }
        if (!trusted && got == null) {
            log.error("Warning: untrusted X11 forwarding setup failed: xauth key data not generated");
            return null;
        }
        if (got == null) {
            log.error("Warning: No xauth data; using fake authentication data for X11 forwarding.");
            got = new Cookie(X11Forwarding.PROTOCOL, X11Forwarding.hex(X11Forwarding.random(16)));
        }
        return got;
    }

    /** The first line's protocol and data ({@code display protocol hexdata}); null when there is none. */
    static Cookie parse(String listing) {
        if (listing == null) {
            return null;
        }
        String first = listing.lines().findFirst().orElse("").strip();
        String[] w = first.split("\\s+");
        if (w.length < 3 || !w[2].matches("([0-9a-fA-F]{2})+")) {
            return null;
        }
        return new Cookie(w[1], w[2].toLowerCase(java.util.Locale.ROOT));
    }

    /** stdout of a successful run, else null. */
    private static String run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            if (!p.waitFor(XAUTH_WAIT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return null;
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            return null;
        }
        // read after the exit: what xauth prints here is a few lines, well within the pipe's buffer
        byte[] out = p.getInputStream().readNBytes(64 * 1024);
        return p.exitValue() == 0 ? new String(out, StandardCharsets.UTF_8) : null;
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // a temporary file of our own; nothing else to do
        }
    }
}
