package io.pqssh.mina;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;

import org.apache.sshd.common.config.keys.writer.openssh.OpenSSHKeyPairResourceWriter;

import com.jcraft.jsch.ChannelExec;
import com.jcraft.jsch.JSch;
import com.jcraft.jsch.Session;

/** JSch (the mwiede fork), a client that knows nothing of pqssh, logging in with an Ed25519 key by public key only. */
public final class JschLogin {
    /** What one exec channel returned. */
    public record Exec(int exitStatus, String output) {
    }

    private JschLogin() {
    }

    /**
     * Logs {@code user} in to 127.0.0.1:{@code port} with {@code key} (written to {@code dir} as an OpenSSH private
     * key file), accepting any host key but asking for ssh-ed25519; {@code kex} null keeps JSch's default list. The
     * caller disconnects the session.
     */
    public static Session login(Path dir, String user, KeyPair key, int port, String kex) throws Exception {
        Path id = dir.resolve("id_ed25519");
        try (OutputStream out = Files.newOutputStream(id)) {
            OpenSSHKeyPairResourceWriter.INSTANCE.writePrivateKey(key, user + "@jsch", null, out);
        }
        JSch jsch = new JSch();
        jsch.addIdentity(id.toString());
        Session s = jsch.getSession(user, "127.0.0.1", port);
        s.setConfig("StrictHostKeyChecking", "no");
        if (kex != null) {
            s.setConfig("kex", kex);
        }
        s.setConfig("server_host_key", "ssh-ed25519");
        s.setConfig("PreferredAuthentications", "publickey");
        s.connect(30_000);
        return s;
    }

    /** Runs {@code command} on an exec channel of {@code s} and waits (30 s at most) for the channel to close. */
    public static Exec exec(Session s, String command) throws Exception {
        ChannelExec ch = (ChannelExec) s.openChannel("exec");
        ch.setCommand(command);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        InputStream in = ch.getInputStream();
        ch.connect(30_000);
        in.transferTo(out);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!ch.isClosed() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        Exec e = new Exec(ch.getExitStatus(), out.toString(StandardCharsets.UTF_8));
        ch.disconnect();
        return e;
    }
}
