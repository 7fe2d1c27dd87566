package io.pqssh.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.common.keyprovider.FileKeyPairProvider;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.scp.common.ScpTransferEventListener;
import org.apache.sshd.scp.server.ScpCommandFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's OpenSSH 9.2 {@code /usr/bin/scp} against an in-process pqssh server: the legacy SCP protocol
 * ({@code scp -O}, served by MINA's ScpCommandFactory) and 9.x's default (SFTP underneath), up and down, SHA-256 equal.
 */
class ScpTest {
    private static final Path SCP = Path.of("/usr/bin/scp");
    private static final Path SSH = Path.of("/usr/bin/ssh");
    private static final Path SSH_KEYGEN = Path.of("/usr/bin/ssh-keygen");

    @TempDir
    Path dir;

    private Path userKey;
    private Path knownHosts;
    private PqsshServer server;
    /** Files MINA's SCP (not a forked /usr/bin/scp run through the shell) finished, as "SEND|RECEIVE path bytes". */
    private final List<String> minaScp = new CopyOnWriteArrayList<>();

    private static void require(Path bin) {
        if (!Files.isExecutable(bin)) {
            fail(bin + " is missing: apt-get install openssh-client");
        }
    }

    private Result exec(List<String> cmd) throws Exception {
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            fail(String.join(" ", cmd) + " did not finish within 60 s\n" + Files.readString(err));
        }
        return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    private record Result(int rc, String out, String err) {
        String all() {
            return "rc=" + rc + "\nstdout:\n" + out + "\nstderr:\n" + err;
        }
    }

    private Path keygen(String name) throws Exception {
        Path f = dir.resolve(name);
        Result r = exec(List.of(SSH_KEYGEN.toString(), "-t", "ed25519", "-N", "", "-q", "-C", name, "-f",
                f.toString()));
        assertEquals(0, r.rc(), r.all());
        return f;
    }

    private static Path pub(Path key) {
        return key.resolveSibling(key.getFileName() + ".pub");
    }

    @BeforeEach
    void setUp() throws Exception {
        require(SCP);
        require(SSH);
        require(SSH_KEYGEN);
        Path hostKey = keygen("ssh_host_ed25519_key");
        userKey = keygen("id_ed25519");
        Path authorizedKeys = dir.resolve("authorized_keys");
        Files.writeString(authorizedKeys, Files.readString(pub(userKey)));
        FileKeyAuthorizers auth = new FileKeyAuthorizers(authorizedKeys.toAbsolutePath().toString(), "none");
        server = PqsshServer.builder().systemShell().sftp(true)
                .host("127.0.0.1").port(0).hostKeys(new FileKeyPairProvider(hostKey))
                .publickey(auth.publickey()).start();
        if (!(server.sshd().getCommandFactory() instanceof ScpCommandFactory scp)) {
            throw new AssertionError("command factory is " + server.sshd().getCommandFactory()
                    + ", not MINA's ScpCommandFactory");
        }
        scp.addEventListener(new ScpTransferEventListener() {
            @Override
            public void endFileEvent(Session session, FileOperation op, Path file, long length,
                    java.util.Set<java.nio.file.attribute.PosixFilePermission> perms, Throwable thrown) {
                if (thrown == null) {
                    minaScp.add(op + " " + file.toAbsolutePath() + " " + length);
                }
            }
        });
        knownHosts = dir.resolve("known_hosts");
        Files.writeString(knownHosts, "[127.0.0.1]:" + server.port() + " " + Files.readString(pub(hostKey)).strip()
                + "\n");
    }

    @AfterEach
    void tearDown() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private List<String> options() {
        return List.of("-F", "/dev/null", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o",
                "UserKnownHostsFile=" + knownHosts, "-o", "GlobalKnownHostsFile=/dev/null", "-o",
                "IdentitiesOnly=yes", "-o", "ConnectTimeout=10", "-i", userKey.toString());
    }

    private Result scp(boolean legacy, String from, String to) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(SCP.toString(), "-v"));
        if (legacy) {
            cmd.add("-O");
        }
        cmd.addAll(options());
        cmd.addAll(List.of("-P", String.valueOf(server.port()), from, to));
        return exec(cmd);
    }

    private static String sha256(Path f) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (InputStream in = Files.newInputStream(f)) {
            byte[] buf = new byte[1 << 16];
            int n;
            while ((n = in.read(buf)) > 0) {
                md.update(buf, 0, n);
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    private Path randomFile(String name, int size) throws Exception {
        byte[] b = new byte[size];
        SplittableRandom r = new SplittableRandom(System.nanoTime());
        for (int i = 0; i < size; i++) {
            b[i] = (byte) r.nextInt(256);
        }
        Path f = dir.resolve(name);
        Files.write(f, b);
        return f;
    }

    private void roundTrip(boolean legacy, String marker) throws Exception {
        String tag = legacy ? "legacy" : "sftp";
        Path src = randomFile("src-" + tag, 2_345_679);
        Path remote = dir.resolve("remote-" + tag).toAbsolutePath();
        Path back = dir.resolve("back-" + tag);
        String target = System.getProperty("user.name") + "@127.0.0.1:";
        Result up = scp(legacy, src.toString(), target + remote);
        assertEquals(0, up.rc(), up.all());
        assertTrue(up.err().contains(marker), "expected '" + marker + "' in scp -v output\n" + up.all());
        assertEquals(Files.size(src), Files.size(remote));
        assertEquals(sha256(src), sha256(remote), "upload " + tag);
        Result down = scp(legacy, target + remote, back.toString());
        assertEquals(0, down.rc(), down.all());
        assertTrue(down.err().contains(marker), "expected '" + marker + "' in scp -v output\n" + down.all());
        assertEquals(sha256(src), sha256(back), "download " + tag);
        // legacy: both directions served by MINA's SCP (receive = upload to the server); SFTP mode: SCP untouched
        assertEquals(legacy ? List.of("RECEIVE " + remote + " " + Files.size(src), "SEND " + remote + " "
                + Files.size(src)) : List.of(), minaScp);
    }

    @Test
    void legacyScpProtocolUploadAndDownloadAreIntact() throws Exception {
        roundTrip(true, "Sending command: scp -v -");
    }

    @Test
    void defaultScpOverSftpUploadAndDownloadAreIntact() throws Exception {
        roundTrip(false, "Sending subsystem: sftp");
    }

    @Test
    void nonScpCommandsStillRunThroughTheShellAndMissingFilesFail() throws Exception {
        List<String> cmd = new ArrayList<>(List.of(SSH.toString()));
        cmd.addAll(options());
        cmd.addAll(List.of("-p", String.valueOf(server.port()), System.getProperty("user.name") + "@127.0.0.1",
                "echo delegated; exit 3"));
        Result r = exec(cmd);
        assertEquals(3, r.rc(), r.all());
        assertEquals("delegated", r.out().strip(), r.all());
        Result missing = scp(true, System.getProperty("user.name") + "@127.0.0.1:" + dir.resolve("nope"),
                dir.resolve("x").toString());
        assertTrue(missing.rc() != 0, missing.all());
        assertTrue(Files.notExists(dir.resolve("x")), missing.all());
    }
}
