package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * sshd_config Match blocks applied per connection by {@code pqssh server} (issue 20 section 2), ForceCommand and
 * ChrootDirectory, each seen by OpenSSH's ssh and sftp logging in as accounts the test creates, and each compared
 * with what {@code -T -C} prints for the same connection; AuthorizedKeysCommand run as an account the test creates.
 * Root only (useradd, a root-owned chroot), as CI runs.
 */
class SshdMatchCliTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private final List<String> users = new ArrayList<>();
    private Process server;

    @AfterEach
    void cleanUp() throws Exception {
        if (server != null) {
            server.destroy();
            if (!server.waitFor(20, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
        for (String u : users) {
            CliHarness.exec(Path.of("/"), List.of("/usr/sbin/userdel", "-r", u));
        }
    }

    /**
     * Match User (with negation), Match Address and a Match Host that would only hold if the client's own name were
     * used: each changes one setting for one connection and not for the other, and -T -C prints the same.
     */
    @Test
    void matchBlocksApplyPerConnectionAsTestModeSays(@TempDir Path dir) throws Exception {
        String a = account("pqma");
        String b = account("pqmb");
        Path key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Files.copy(CliHarness.pub(key), dir.resolve(a + "_keys"));
        Files.copy(CliHarness.pub(key), dir.resolve(b + "_keys"));
        Path banner = Files.writeString(dir.resolve("banner"), "banner-for-others\n");
        // a's ~/.ssh/rc would run before a forced command if it were allowed to (sshd: not with ForceCommand)
        Path rc = homeOf(a).resolve(".ssh/rc");
        Files.createDirectories(rc.getParent());
        Files.writeString(rc, "echo rc-ran-for-$USER >&2\n");
        CliHarness.exec(dir, List.of("chown", "-R", a + ":", rc.getParent().toString()));
        int port = CliHarness.freePort();
        Path cfg = config(dir, port, "AcceptEnv SSH_ORIGINAL_COMMAND",
                "Match User " + a,
                "  ForceCommand echo forced:$SSH_ORIGINAL_COMMAND",
                "Match User *,!" + a,
                "  Banner " + banner,
                "  PermitTTY no",
                "Match Address 127.0.0.2",
                "  PubkeyAuthentication no",
                "Match Host localhost",
                "  ForceCommand echo host-name-matched");
        startServer(dir, cfg);

        CliHarness.Result ra = ssh(dir, port, a, "127.0.0.1", "echo hi");
        assertEquals(0, ra.rc(), ra.all() + log(dir));
        assertEquals("forced:echo hi", ra.out().strip(), "Match User " + a + ": ForceCommand");
        assertFalse(ra.err().contains("banner-for-others"), "Match User *,!" + a + " must not hold for " + a);
        assertFalse(ra.err().contains("rc-ran"), "~/.ssh/rc must not run before ForceCommand:\n" + ra.all());
        CliHarness.Result rb = ssh(dir, port, b, "127.0.0.1", "echo hi");
        assertEquals(0, rb.rc(), rb.all() + log(dir));
        assertEquals("hi", rb.out().strip(), "no ForceCommand for " + b + " (Match Host uses the address)");
        assertTrue(rb.err().contains("banner-for-others"), "the negated Match block's Banner for " + b + ":\n"
                + rb.err());

        // PermitTTY no for b only: the pty request fails (and ssh -tt, which insists on one, gives up)
        CliHarness.Result tty = ssh(dir, port, b, "127.0.0.1", "tty", "-tt");
        assertTrue(tty.err().contains("PTY allocation request failed"), tty.all());
        CliHarness.Result ttyA = ssh(dir, port, a, "127.0.0.1", "tty", "-tt");
        assertFalse(ttyA.err().contains("PTY allocation request failed"), ttyA.all());
        assertEquals("permittty no", line(cfg, b, "127.0.0.1", port, "permittty"));
        assertEquals("permittty yes", line(cfg, a, "127.0.0.1", port, "permittty"));

        // a subsystem request, and a client-sent SSH_ORIGINAL_COMMAND, do not get around ForceCommand
        CliHarness.Result sub = ssh(dir, port, a, "127.0.0.1", "sftp", "-s");
        assertEquals("forced:sftp", sub.out().strip(), sub.all());
        CliHarness.Result env = ssh(dir, port, a, "127.0.0.1", "real", "-o", "SetEnv=SSH_ORIGINAL_COMMAND=evil");
        assertEquals("forced:real", env.out().strip(), env.all());

        // Match Address: the same key from 127.0.0.2 is refused, publickey being off there
        CliHarness.Result from2 = ssh(dir, port, b, "127.0.0.2", "echo hi");
        assertEquals(255, from2.rc(), "PubkeyAuthentication no from 127.0.0.2:\n" + from2.all());

        // -T -C says the same for each of these connections
        assertEquals("forcecommand echo forced:$SSH_ORIGINAL_COMMAND", line(cfg, a, "127.0.0.1", port,
                "forcecommand"));
        assertEquals("banner none", line(cfg, a, "127.0.0.1", port, "banner"));
        assertEquals("forcecommand none", line(cfg, b, "127.0.0.1", port, "forcecommand"));
        assertEquals("banner " + banner, line(cfg, b, "127.0.0.1", port, "banner"));
        assertEquals("pubkeyauthentication yes", line(cfg, b, "127.0.0.1", port, "pubkeyauthentication"));
        assertEquals("pubkeyauthentication no", line(cfg, b, "127.0.0.2", port, "pubkeyauthentication"));
    }

    /**
     * The classic sftp-only set-up: Match Group, ChrootDirectory %h, ForceCommand internal-sftp, an account whose
     * shell is nologin and a chroot with nothing in it but the user's upload directory, as sshd serves it. The user's
     * sftp sees the chroot as /, and no shell or command runs.
     */
    @Test
    void sftpOnlyChrootedUserSeesOnlyTheChroot(@TempDir Path dir) throws Exception {
        String group = "pqsg" + Integer.toString(new SecureRandom().nextInt(1 << 20), 36);
        assertEquals(0, CliHarness.exec(dir, List.of("/usr/sbin/groupadd", group)).rc());
        String c = account("pqmc", "-G", group, "-s", "/usr/sbin/nologin");
        try {
            Path home = homeOf(c);
            // sshd's rule: the chroot and every directory above it owned by root, writable by nobody else
            CliHarness.exec(dir, List.of("chown", "root:root", home.toString()));
            CliHarness.exec(dir, List.of("chmod", "755", home.toString()));
            Path upload = Files.createDirectories(home.resolve("upload"));
            CliHarness.exec(dir, List.of("chown", c + ":", upload.toString()));
            Files.writeString(upload.resolve("inside.txt"), "inside\n");
            Path key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
            Files.copy(CliHarness.pub(key), dir.resolve(c + "_keys"));
            int port = CliHarness.freePort();
            Path cfg = config(dir, port, "Match Group " + group, "  ChrootDirectory %h",
                    "  ForceCommand internal-sftp -d /upload", "  AllowTcpForwarding no");
            startServer(dir, cfg);

            Path local = Files.writeString(dir.resolve("local.txt"), "from the client\n");
            CliHarness.Result ls = sftp(dir, port, c, "pwd\nls -1 /\nls -1 /upload\nget /upload/inside.txt "
                    + dir.resolve("got.txt") + "\nput " + local + " /upload/sent.txt\n-put " + local + " /not-mine.txt\n");
            assertEquals(0, ls.rc(), ls.all() + log(dir));
            assertTrue(ls.out().contains("upload") && ls.out().contains("inside.txt"), ls.out());
            assertTrue(ls.out().contains("Remote working directory: /upload"), "internal-sftp -d:\n" + ls.out());
            assertFalse(ls.out().contains("/home") || ls.out().contains("/root") || ls.out().contains("/proc"),
                    "only the chroot is visible:\n" + ls.out());
            assertEquals("inside\n", Files.readString(dir.resolve("got.txt")));
            for (String part : List.of("bin", "lib", "usr", "dev", "etc")) {
                assertFalse(listNames(home).contains(part), "the chroot needs no /" + part + ": " + listNames(home));
            }
            Path sent = upload.resolve("sent.txt");
            assertEquals("from the client\n", Files.readString(sent));
            assertEquals(uidOf(c), Files.getAttribute(sent, "unix:uid"), "the upload is the user's");
            assertFalse(Files.exists(home.resolve("not-mine.txt")), "the user wrote into the root-owned chroot");

            CliHarness.Result shell = ssh(dir, port, c, "127.0.0.1", "id");
            assertEquals(1, shell.rc(), shell.all());
            assertTrue(shell.err().contains("This service allows sftp connections only."), shell.all());
            assertFalse(shell.out().contains("uid="), shell.all());

            assertEquals("chrootdirectory %h", line(cfg, c, "127.0.0.1", port, "chrootdirectory"));
            assertEquals("forcecommand internal-sftp -d /upload", line(cfg, c, "127.0.0.1", port, "forcecommand"));
        } finally {
            CliHarness.exec(dir, List.of("/usr/sbin/groupdel", group));
        }
    }

    /**
     * PermitUserEnvironment with ChrootDirectory: as OpenSSH 9.2's sshd (measured; do_child reads it after
     * do_setusercontext changed root and uid), ~/.ssh/environment is the home directory's path inside the chroot,
     * read as the user, its symbolic links resolved inside the chroot; the real home's file is not read.
     */
    @Test
    void userEnvironmentIsReadInsideTheChroot(@TempDir Path dir) throws Exception {
        String c = account("pqme");
        Path home = rootOwnedHome(dir, c);
        populate(home, c);
        copyProgram(home, "/bin/sh"); // the session's prelude (PermitUserRC) runs sh
        Path outside = Files.createDirectories(home.resolve(".ssh"));
        Files.writeString(outside.resolve("environment"), "PQ_WHERE=real-home\n");
        Path inside = Files.createDirectories(home.resolve(home.toString().substring(1)).resolve(".ssh"));
        Files.writeString(inside.resolve("environment"), "# inside\n  PQ_WHERE=inside-chroot\nPQ_SECOND=2\n");
        CliHarness.exec(dir, List.of("chown", "-R", c + ":", home.resolve("home").resolve(c).toString()));
        authorizeKey(dir, c);
        int port = CliHarness.freePort();
        Path cfg = config(dir, port, "PermitUserEnvironment yes", "Match User " + c, "  ChrootDirectory %h");
        startServer(dir, cfg);
        String show = "echo \"WHERE=$PQ_WHERE|SECOND=$PQ_SECOND\"";
        CliHarness.Result r = ssh(dir, port, c, "127.0.0.1", show);
        assertEquals(0, r.rc(), r.all() + log(dir));
        assertEquals("WHERE=inside-chroot|SECOND=2", r.out().strip(), r.all());
        // a symbolic link resolves inside the chroot: /pq-env exists only there, not on the host
        assertFalse(Files.exists(Path.of("/pq-env")), "the host has /pq-env");
        Files.writeString(home.resolve("pq-env"), "PQ_WHERE=linked-inside\n");
        Files.delete(inside.resolve("environment"));
        Files.createSymbolicLink(inside.resolve("environment"), Path.of("/pq-env"));
        CliHarness.Result l = ssh(dir, port, c, "127.0.0.1", show);
        assertEquals("WHERE=linked-inside|SECOND=", l.out().strip(), l.all() + log(dir));
    }

    /**
     * {@code Subsystem sftp internal-sftp -u 027} (not forced) in an empty ChrootDirectory with {@code UsePAM yes}:
     * sshd serves it in-process; pqssh's jail serves it the same way, through PAM's session stack, never through the
     * account's shell, with internal-sftp's umask; a symbolic link the admin left inside resolves inside the chroot.
     */
    @Test
    void internalSftpSubsystemServesAnEmptyChrootWithPamAndItsOptions(@TempDir Path dir) throws Exception {
        String c = account("pqmf", "-s", "/usr/sbin/nologin");
        Path home = rootOwnedHome(dir, c);
        Path drop = Files.createDirectories(home.resolve("drop"));
        CliHarness.exec(dir, List.of("chown", c + ":", drop.toString()));
        Files.createSymbolicLink(home.resolve("passwd"), Path.of("/etc/passwd"));
        authorizeKey(dir, c);
        int port = CliHarness.freePort();
        Path cfg = config(dir, port, List.of("UsePAM yes", "Subsystem sftp internal-sftp -u 027"),
                "Match User " + c, "  ChrootDirectory %h");
        startServer(dir, cfg);
        Path local = Files.writeString(dir.resolve("local.txt"), "umask\n");
        CliHarness.Result r = sftp(dir, port, c, "pwd\nput " + local + " /drop/m.txt\n-get /passwd "
                + dir.resolve("passwd-copy") + "\n");
        assertEquals(0, r.rc(), r.all() + log(dir));
        assertTrue(r.out().contains("Remote working directory: /\n"), "no home inside the chroot: /\n" + r.all());
        Path m = drop.resolve("m.txt");
        assertEquals("rw-r-----", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(m)), "internal-sftp -u 027");
        assertEquals(uidOf(c), Files.getAttribute(m, "unix:uid"));
        assertFalse(Files.exists(dir.resolve("passwd-copy")), "a link to /etc/passwd reached the host's file");
        assertEquals("subsystem sftp internal-sftp -u 027", line(cfg, c, "127.0.0.1", port, "subsystem"));
    }

    private static int uidOf(String user) throws Exception {
        return Integer.parseInt(CliHarness.exec(Path.of("/"), List.of("/usr/bin/id", "-u", user)).out().strip());
    }

    private static List<String> listNames(Path dir) throws Exception {
        try (java.util.stream.Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** A chroot the user owns (the home directory as useradd leaves it) fails the session with sshd's message. */
    @Test
    void badChrootOwnershipRefusesTheSession(@TempDir Path dir) throws Exception {
        String d = account("pqmd");
        Path key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Files.copy(CliHarness.pub(key), dir.resolve(d + "_keys"));
        int port = CliHarness.freePort();
        Path cfg = config(dir, port, "Match User " + d, "  ChrootDirectory %h", "  ForceCommand internal-sftp");
        startServer(dir, cfg);
        CliHarness.Result ls = sftp(dir, port, d, "ls /\n");
        assertNotEquals(0, ls.rc(), ls.all());
        String home = homeOf(d).toString();
        CliHarness.waitUntil(WAIT, () -> log(dir).contains("bad ownership or modes for chroot directory \""
                + home + "\""), () -> "sshd's message is not in the log:\n" + log(dir));
    }

    /** A server-wide keyword inside Match is refused at start with the file and line. */
    @Test
    void keywordNotAppliedPerConnectionIsRefusedInMatch(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("cfg");
        Files.writeString(cfg, "ListenAddress 127.0.0.1\nMatch User x\n  AcceptEnv LANG\n");
        CliHarness.Result r = CliHarness.pqssh("server", "-t", "-f", cfg.toString());
        assertEquals(255, r.rc(), r.all());
        assertTrue(r.err().contains(cfg + " line 3: AcceptEnv LANG: not supported inside Match by pqssh server"),
                r.err());
    }

    /**
     * SetEnv as OpenSSH 9.2's sshd applies it (measured): per connection through Match, the first SetEnv line that
     * applies wins and within it the first value of a name; it overrides the client's AcceptEnv variables and sshd's
     * own (USER, TERM of a pty), not SSH_CONNECTION; -T -C prints it per connection.
     */
    @Test
    void setEnvOverridesClientAndSshdVariablesButNotSshConnection(@TempDir Path dir) throws Exception {
        String a = account("pqsa");
        String b = account("pqsb");
        Path key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Files.copy(CliHarness.pub(key), dir.resolve(a + "_keys"));
        Files.copy(CliHarness.pub(key), dir.resolve(b + "_keys"));
        int port = CliHarness.freePort();
        Path cfg = config(dir, port, "AcceptEnv PQ_*",
                "Match User " + a,
                "  SetEnv PQ_FOO=admin \"PQ_QUOTED=a b\" PQ_FOO=second USER=admuser TERM=admterm SSH_CONNECTION=adm",
                "Match all",
                "  SetEnv PQ_BAR=for-others");
        startServer(dir, cfg);
        String show = "echo \"FOO=$PQ_FOO|QUOTED=$PQ_QUOTED|BAR=$PQ_BAR|USER=$USER|CONN=$SSH_CONNECTION\"";
        CliHarness.Result ra = ssh(dir, port, a, "127.0.0.1", show, "-o", "SetEnv=PQ_FOO=client");
        assertEquals(0, ra.rc(), ra.all() + log(dir));
        String outA = ra.out().strip();
        assertTrue(outA.startsWith("FOO=admin|QUOTED=a b|BAR=|USER=admuser|CONN=127.0.0.1 "), outA);
        CliHarness.Result rb = ssh(dir, port, b, "127.0.0.1", show, "-o", "SetEnv=PQ_FOO=client");
        assertEquals(0, rb.rc(), rb.all() + log(dir));
        assertTrue(rb.out().strip().startsWith("FOO=client|QUOTED=|BAR=for-others|USER=" + b + "|CONN=127.0.0.1 "),
                rb.out());
        // a pty's TERM is sshd's own variable too
        CliHarness.Result term = ssh(dir, port, a, "127.0.0.1", "echo TERM=$TERM", "-tt");
        assertTrue(term.out().contains("TERM=admterm"), term.all());
        assertEquals("setenv PQ_FOO=admin", line(cfg, a, "127.0.0.1", port, "setenv"));
        assertEquals("setenv PQ_BAR=for-others", line(cfg, b, "127.0.0.1", port, "setenv"));
    }

    /**
     * AuthorizedKeysCommand run as AuthorizedKeysCommandUser (an account the test creates: not root), with sshd's
     * tokens, argument splitting and environment; its output read as authorized_keys lines with their options, for
     * an OpenSSH publickey login and a pqssh publickey-kem login; a failing or unsafe command grants nothing.
     */
    @Test
    void authorizedKeysCommandGrantsItsKeysRunAsItsUser(@TempDir Path dir) throws Exception {
        String a = account("pqka");
        String runAs = account("pqkc");
        Path key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Path forced = CliHarness.sshKeygen(dir.resolve("id_forced"), "ed25519");
        Path kem = dir.resolve("id_mlkem768");
        CliHarness.Result kg = CliHarness.pqssh("keygen", "-t", "mlkem768", "-N", "", "-f", kem.toString(), "-q");
        assertEquals(0, kg.rc(), kg.all());
        // the program's path must be root-owned and closed to group and others, up to /; the command user writes out/
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path out = Files.createDirectory(dir.resolve("out"));
        Files.setPosixFilePermissions(out, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        Path keys = Files.writeString(dir.resolve("keys"), "# printed by the command\n"
                + Files.readString(CliHarness.pub(key))
                + "command=\"echo forced-command\",no-pty " + Files.readString(CliHarness.pub(forced))
                + Files.readString(CliHarness.pub(kem)));
        Path args = out.resolve("args");
        Path script = Files.writeString(Files.createDirectory(dir.resolve("bin")).resolve("keys-command"), "#!/bin/sh\n"
                + "{ id -un; printf '%s\\n' \"$@\"; echo \"HOME=$HOME USER=$USER PATH=$PATH\"; } > " + args + "\n"
                + "echo 'said on stderr' >&2\n"
                + "[ -e " + out.resolve("fail") + " ] && exit 3\n"
                + "cat " + keys + "\n");
        Files.setPosixFilePermissions(script, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        int port = CliHarness.freePort();
        Path cfg = config(dir, port, "AuthorizedKeysCommand " + script
                + " %u %U %t %f %k %h %C %D %% \"two words\"", "AuthorizedKeysCommandUser " + runAs);
        startServer(dir, cfg);
        assertEquals("authorizedkeyscommanduser " + runAs, line(cfg, a, "127.0.0.1", port,
                "authorizedkeyscommanduser"));

        CliHarness.Result ok = ssh(dir, port, a, "127.0.0.1", "echo key-login");
        assertEquals("key-login", ok.out().strip(), ok.all() + log(dir));
        List<String> seen = Files.readAllLines(args);
        String uid = CliHarness.exec(dir, List.of("/usr/bin/id", "-u", a)).out().strip();
        String fp = CliHarness.exec(dir, List.of(CliHarness.SSH_KEYGEN.toString(), "-lf",
                CliHarness.pub(key).toString())).out().split(" ")[1];
        assertEquals(List.of(runAs, a, uid, "ssh-ed25519", fp, Files.readString(CliHarness.pub(key)).split(" ")[1],
                homeOf(a).toString()), seen.subList(0, 7), String.join("\n", seen));
        assertTrue(seen.get(7).matches("127\\.0\\.0\\.1 \\d+ 127\\.0\\.0\\.1 " + port), seen.get(7));
        assertEquals(List.of("", "%", "two words", "HOME=" + homeOf(runAs) + " USER=" + runAs
                + " PATH=/usr/bin:/bin:/usr/sbin:/sbin"), seen.subList(8, 12), String.join("\n", seen));
        // the line's options apply as a file's would
        CliHarness.Result f = CliHarness.exec(dir, List.of(CliHarness.SSH.toString(), "-F", "none", "-o",
                "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-i",
                forced.toString(), "-p", Integer.toString(port), a + "@127.0.0.1", "echo not-forced"));
        assertEquals("forced-command", f.out().strip(), f.all() + log(dir));
        // an ML-KEM key from the command's output (publickey-kem), with pqssh's client
        CliHarness.Result k = CliHarness.pqssh("ssh", "-F", "none", "-i", kem.toString(), "-o", "BatchMode=yes",
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=" + dir.resolve("kh"), "-p",
                String.valueOf(port), a + "@127.0.0.1", "echo kem-login");
        assertEquals("kem-login", k.out().strip(), k.all() + log(dir));
        assertEquals("mlkem768", Files.readAllLines(args).get(3));
        // a non-zero exit grants nothing, even with the key printed (sshd's exited_cleanly)
        Files.writeString(out.resolve("fail"), "");
        assertNotEquals(0, ssh(dir, port, a, "127.0.0.1", "echo after-fail").rc(), "the command failed");
        assertTrue(log(dir).contains("AuthorizedKeysCommand " + script + " " + a), log(dir));
        Files.delete(out.resolve("fail"));
        // a program others could write is not run (sshd's safe_path)
        Files.setPosixFilePermissions(script, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxr-x"));
        Files.delete(args);
        assertNotEquals(0, ssh(dir, port, a, "127.0.0.1", "echo unsafe").rc(), "an unsafe program was trusted");
        assertFalse(Files.exists(args), "the unsafe program ran");
        assertTrue(log(dir).contains("Unsafe AuthorizedKeysCommand \"" + script + "\""), log(dir));
    }

    /**
     * publickey-kem takes AuthorizedKeysCommand and AuthorizedKeysFile from the connection's Match evaluation, as
     * publickey does (it used the global values): a Match block's command authorizes a KEM key the global files do
     * not hold, and a Match block's AuthorizedKeysFile withdraws a KEM key the global file holds.
     */
    @Test
    void kemLoginsTakeTheMatchBlocksKeySources(@TempDir Path dir) throws Exception {
        String a = account("pqkm");
        String b = account("pqkn");
        String c = account("pqko");
        Path kem = dir.resolve("id_mlkem768");
        CliHarness.Result kg = CliHarness.pqssh("keygen", "-t", "mlkem768", "-N", "", "-f", kem.toString(), "-q");
        assertEquals(0, kg.rc(), kg.all());
        String kemLine = Files.readString(CliHarness.pub(kem));
        Path sig = CliHarness.sshKeygen(dir.resolve("id_sig"), "ed25519");
        Files.writeString(dir.resolve(a + "_keys"), "");
        Files.writeString(dir.resolve(b + "_keys"), kemLine);
        Files.writeString(dir.resolve(c + "_keys"), "");
        Files.writeString(dir.resolve("empty_keys"), "");
        // the program's path must be root-owned and closed to group and others, up to / (sshd's safe_path)
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path keys = Files.writeString(dir.resolve("command_keys"), kemLine + Files.readString(CliHarness.pub(sig)));
        Path script = Files.writeString(Files.createDirectory(dir.resolve("bin")).resolve("keys-command"),
                "#!/bin/sh\ncat " + keys + "\n");
        Files.setPosixFilePermissions(script, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(keys, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        int port = CliHarness.freePort();
        Path cfg = config(dir, port, "Match User " + a, "  AuthorizedKeysCommand " + script + " %u",
                "  AuthorizedKeysCommandUser nobody", "Match User " + b, "  AuthorizedKeysFile " + dir.resolve(
                        "empty_keys"), "Match User " + c, "  AuthorizedKeysCommand " + script + " %u",
                "  AuthorizedKeysCommandUser nobody", "  AuthenticationMethods publickey-kem-and");
        startServer(dir, cfg);
        assertEquals("authorizedkeyscommand " + script + " %u", line(cfg, a, "127.0.0.1", port,
                "authorizedkeyscommand"));

        CliHarness.Result ka = kemSsh(dir, kem, port, a, "echo kem-by-match-command");
        assertEquals("kem-by-match-command", ka.out().strip(), ka.all() + log(dir));
        CliHarness.Result kb = kemSsh(dir, kem, port, b, "echo kem-by-global-file");
        assertNotEquals(0, kb.rc(), "the Match block's AuthorizedKeysFile holds no key:\n" + kb.all() + log(dir));
        assertFalse(kb.out().contains("kem-by-global-file"), kb.all());
        // publickey-kem-and: its KEM key and its signature key, both from the Match block's command
        CliHarness.Result kc = kemSsh(dir, kem, port, c, "echo kem-and-by-match-command", "-i", sig.toString());
        assertEquals("kem-and-by-match-command", kc.out().strip(), kc.all() + log(dir));
        assertTrue(log(dir).contains("Accepted publickey-kem-and for " + c), log(dir));
    }

    private static CliHarness.Result kemSsh(Path dir, Path kem, int port, String user, String command,
            String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("ssh", "-F", "none", "-i", kem.toString(), "-o",
                "BatchMode=yes", "-o", "IdentityAgent=none", "-o", "StrictHostKeyChecking=no", "-o",
                "UserKnownHostsFile=" + dir.resolve("kh"), "-p", String.valueOf(port)));
        args.addAll(List.of(more));
        args.addAll(List.of(user + "@127.0.0.1", command));
        return CliHarness.pqssh(args.toArray(String[]::new));
    }

    /**
     * MaxSessions counts the sessions OpenSSH's ssh multiplexes over one connection (ControlMaster): with ten open,
     * the eleventh fails to open (the master prints {@code open failed}), as against sshd. Root logs in with a key (sshd's
     * default PermitRootLogin prohibit-password).
     */
    @Test
    void maxSessionsRefusesTheEleventhMultiplexedSession(@TempDir Path dir) throws Exception {
        Path key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Files.copy(CliHarness.pub(key), dir.resolve("root_keys"));
        int port = CliHarness.freePort();
        startServer(dir, config(dir, port, "MaxSessions 10"));
        Path sock = dir.resolve("mux");
        List<String> base = List.of(CliHarness.SSH.toString(), "-F", "none", "-o", "BatchMode=yes", "-o",
                "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-i", key.toString(), "-p",
                Integer.toString(port), "-S", sock.toString());
        List<Process> started = new ArrayList<>();
        try {
            List<String> m = new ArrayList<>(base);
            m.addAll(List.of("-M", "-N", "root@127.0.0.1"));
            started.add(new ProcessBuilder(m).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectErrorStream(true).redirectOutput(dir.resolve("master.out").toFile()).start());
            CliHarness.waitUntil(WAIT, () -> Files.exists(sock), () -> "no ControlMaster socket:\n"
                    + CliHarness.read(dir.resolve("master.out")) + log(dir));
            for (int i = 1; i <= 10; i++) {
                List<String> c = new ArrayList<>(base);
                c.addAll(List.of("root@127.0.0.1", "echo up; exec sleep 300"));
                Process p = new ProcessBuilder(c).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                        .redirectError(dir.resolve("session" + i + ".err").toFile()).start();
                started.add(p);
                String first = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream()))
                        .readLine();
                assertEquals("up", first, "session " + i + ": " + CliHarness.read(dir.resolve("session" + i
                        + ".err")) + log(dir));
            }
            List<String> c = new ArrayList<>(base);
            c.addAll(List.of("root@127.0.0.1", "echo eleventh"));
            CliHarness.Result r = CliHarness.exec(dir, c);
            // the master's channel open fails as against sshd; the mux client then says so and, as ssh does when
            // multiplexing fails, runs the command over a connection of its own
            assertTrue(r.err().contains("mux_client_request_session: session request failed: Session open refused"
                    + " by peer"), r.all());
            CliHarness.waitUntil(WAIT, () -> CliHarness.read(dir.resolve("master.out")).contains("open failed"),
                    () -> "master: " + CliHarness.read(dir.resolve("master.out")));
            assertTrue(CliHarness.read(dir.resolve("master.out")).matches("(?s).*channel \\d+: open failed: connect"
                    + " failed: open failed.*"), CliHarness.read(dir.resolve("master.out")));
            assertTrue(log(dir).contains("no more sessions (MaxSessions 10)"), log(dir));
        } finally {
            for (Process p : started.reversed()) {
                p.destroy();
                p.waitFor(20, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * ClientAliveInterval/ClientAliveCountMax against OpenSSH's ssh stopped with SIGSTOP (it answers nothing): the
     * server drops the connection with sshd's log line within a bounded time; ssh, continued, finds it closed.
     */
    @Test
    void clientAliveDropsAStoppedOpenSshClient(@TempDir Path dir) throws Exception {
        Path key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Files.copy(CliHarness.pub(key), dir.resolve("root_keys"));
        int port = CliHarness.freePort();
        startServer(dir, config(dir, port, "ClientAliveInterval 1", "ClientAliveCountMax 2"));
        Process p = new ProcessBuilder(CliHarness.SSH.toString(), "-F", "none", "-o", "BatchMode=yes", "-o",
                "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-i", key.toString(), "-p",
                Integer.toString(port), "root@127.0.0.1", "echo up; exec sleep 300")
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectError(dir.resolve("ssh.err").toFile()).start();
        try {
            assertEquals("up", new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream()))
                    .readLine(), CliHarness.read(dir.resolve("ssh.err")) + log(dir));
            assertEquals(0, CliHarness.exec(dir, List.of("/bin/kill", "-STOP", Long.toString(p.pid()))).rc());
            // 1 s interval, 2 unanswered: about 3 s; the bound only guards against never
            CliHarness.waitUntil(WAIT, () -> log(dir).contains("Timeout, client not responding from user root"
                    + " 127.0.0.1 port"), () -> "not dropped:" + log(dir));
            assertEquals(0, CliHarness.exec(dir, List.of("/bin/kill", "-CONT", Long.toString(p.pid()))).rc());
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "ssh still connected");
            assertEquals(255, p.exitValue(), CliHarness.read(dir.resolve("ssh.err")));
        } finally {
            CliHarness.exec(dir, List.of("/bin/kill", "-CONT", Long.toString(p.pid())));
            p.destroy();
            p.waitFor(20, TimeUnit.SECONDS);
        }
    }

    private String account(String prefix, String... extra) throws Exception {
        if (!"root".equals(CliHarness.user())) {
            fail("SshdMatchCliTest creates accounts (useradd) and root-owned chroots: run as root (CI does)");
        }
        String name = prefix + Integer.toString(new SecureRandom().nextInt(1 << 24), 36);
        List<String> cmd = new ArrayList<>(List.of("/usr/sbin/useradd", "-m", "-s", "/bin/bash", "-p", "*"));
        cmd.addAll(List.of(extra));
        cmd.add(name);
        CliHarness.Result r = CliHarness.exec(Path.of("/"), cmd);
        assertEquals(0, r.rc(), r.all());
        users.add(name);
        return name;
    }

    /** The account's home made a chroot as sshd requires: owned by root and writable by nobody else. */
    private static Path rootOwnedHome(Path dir, String user) throws Exception {
        Path home = homeOf(user);
        CliHarness.exec(dir, List.of("chown", "root:root", home.toString()));
        CliHarness.exec(dir, List.of("chmod", "755", home.toString()));
        return home;
    }

    /** dir/id_ed25519, authorized for {@code user} by the configuration's AuthorizedKeysFile. */
    private static void authorizeKey(Path dir, String user) throws Exception {
        Path key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Files.copy(CliHarness.pub(key), dir.resolve(user + "_keys"));
    }

    private static Path homeOf(String user) throws Exception {
        return Path.of(CliHarness.exec(Path.of("/"), List.of("/usr/bin/getent", "passwd", user)).out().strip()
                .split(":")[5]);
    }

    /**
     * What pqssh runs inside a chroot: bash (its session trampoline), OpenSSH's sftp-server, their libraries, and
     * /dev/null and passwd/group lines for the user (sftp-server opens the one and looks its user up in the other).
     * sshd's in-process internal-sftp needs none of them.
     */
    private static void populate(Path root, String user) throws Exception {
        for (String program : List.of("/bin/bash", "/usr/lib/openssh/sftp-server")) {
            copyProgram(root, program);
        }
        Files.createDirectories(root.resolve("dev"));
        assertEquals(0, CliHarness.exec(root, List.of("/usr/bin/mknod", "-m", "666", root.resolve("dev/null")
                .toString(), "c", "1", "3")).rc());
        Path etc = Files.createDirectories(root.resolve("etc"));
        Files.writeString(etc.resolve("passwd"), CliHarness.exec(Path.of("/"), List.of("/usr/bin/getent",
                "passwd", "root", user)).out());
        Files.writeString(etc.resolve("group"), CliHarness.exec(Path.of("/"), List.of("/usr/bin/getent",
                "group", "root")).out());
    }

    /** {@code program} and the libraries ldd lists for it, at the same paths inside {@code root}. */
    private static void copyProgram(Path root, String program) throws Exception {
        copyInto(root, Path.of(program).toRealPath());
        Path link = root.resolve(program.substring(1));
        if (!Files.exists(link)) {
            Files.createDirectories(link.getParent());
            Files.copy(Path.of(program).toRealPath(), link);
        }
        for (String l : CliHarness.exec(Path.of("/"), List.of("/usr/bin/ldd", program)).out().split("\n")) {
            for (String word : l.strip().split("\\s+")) {
                if (word.startsWith("/")) {
                    copyInto(root, Path.of(word));
                    copyInto(root, Path.of(word).toRealPath());
                }
            }
        }
    }

    private static void copyInto(Path root, Path file) throws Exception {
        Path target = root.resolve(file.toString().substring(1));
        if (!Files.exists(target)) {
            Files.createDirectories(target.getParent());
            Files.copy(file.toRealPath(), target);
        }
    }

    private static Path config(Path dir, int port, String... more) throws Exception {
        return config(dir, port, List.of("UsePAM no"), more);
    }

    /** With {@code first} before the defaults (sshd: the first value of a keyword wins). */
    private static Path config(Path dir, int port, List<String> first, String... more) throws Exception {
        Path hostKey = dir.resolve("host_key");
        if (!Files.exists(hostKey)) {
            CliHarness.sshKeygen(hostKey, "ed25519");
        }
        List<String> lines = new ArrayList<>(first);
        lines.addAll(List.of("ListenAddress 127.0.0.1", "Port " + port, "HostKey " + hostKey,
                "AuthorizedKeysFile " + dir + "/%u_keys", "StrictModes no", "UsePAM no", "PrintMotd no",
                "PrintLastLog no"));
        lines.addAll(List.of(more));
        Path cfg = dir.resolve("sshd_config");
        Files.writeString(cfg, String.join("\n", lines) + "\n");
        return cfg;
    }

    private void startServer(Path dir, Path cfg) throws Exception {
        Path err = dir.resolve("server.err");
        server = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), "io.pqssh.cli.Main", "server", "-D", "-f", cfg.toString())
                .directory(dir.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(dir.resolve("server.out").toFile()).redirectError(err.toFile()).start();
        CliHarness.waitUntil(WAIT, () -> CliHarness.read(err).contains("pqssh server listening")
                || !server.isAlive(), () -> "server did not start:\n" + CliHarness.read(err));
        assertTrue(server.isAlive(), "server did not start:\n" + CliHarness.read(err));
    }

    private static String log(Path dir) {
        return "\n--- server log ---\n" + CliHarness.read(dir.resolve("server.err"));
    }

    /** The line of {@code keyword} in {@code -T -C} for this connection. */
    private static String line(Path cfg, String user, String addr, int port, String keyword) throws Exception {
        CliHarness.Result r = CliHarness.pqssh("server", "-T", "-f", cfg.toString(), "-C", "user=" + user
                + ",host=" + addr + ",addr=" + addr + ",laddr=127.0.0.1,lport=" + port);
        assertEquals(0, r.rc(), r.all());
        return r.out().lines().filter(l -> l.startsWith(keyword + " ")).findFirst().orElse("(no " + keyword + ")");
    }

    private static CliHarness.Result ssh(Path dir, int port, String user, String from, String command,
            String... extra) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(CliHarness.SSH.toString(), "-F", "none", "-o", "BatchMode=yes",
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "ConnectTimeout=20",
                "-i", dir.resolve("id_ed25519").toString(), "-p", Integer.toString(port), "-b", from));
        cmd.addAll(List.of(extra));
        cmd.add(user + "@127.0.0.1");
        cmd.add(command);
        return CliHarness.exec(dir, cmd);
    }

    private static CliHarness.Result sftp(Path dir, int port, String user, String batch) throws Exception {
        Path b = Files.writeString(dir.resolve("batch"), batch);
        return CliHarness.exec(dir, List.of("/usr/bin/sftp", "-F", "none", "-o", "BatchMode=yes", "-o",
                "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "ConnectTimeout=20",
                "-i", dir.resolve("id_ed25519").toString(), "-P", Integer.toString(port), "-b", b.toString(),
                user + "@127.0.0.1"));
    }
}
