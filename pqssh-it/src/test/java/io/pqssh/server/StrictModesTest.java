package io.pqssh.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.authorized.AuthorizedKeys;
import io.pqssh.core.keys.kem.KemPublicKey;

/**
 * StrictModes for authorized files. Runs as root (chown needs it): fails loudly otherwise. The home is a temporary
 * directory (the user lookup is injected), so the walk stops there and never looks at the shared /tmp above it.
 */
class StrictModesTest {
    @TempDir
    Path tmp;

    Path home;
    Path ssh;
    Path ak;
    Path akk;
    final List<String> log = new ArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        assertEquals("root", System.getProperty("user.name"), "StrictModesTest needs root (chown to nobody)");
        home = Files.createDirectory(tmp.resolve("home"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwxr-xr-x")));
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
        ssh = Files.createDirectory(home.resolve(".ssh"));
        Files.setPosixFilePermissions(ssh, PosixFilePermissions.fromString("rwx------"));
        ak = ssh.resolve("authorized_keys");
        akk = ssh.resolve("authorized_kem_keys");
        Files.writeString(ak, new KemPublicKey(KemAlgorithm.MLKEM768, pk()).toLine("sig-file") + "\n");
        Files.writeString(akk, AuthorizedKeys.formatKemKeyLine(new KemPublicKey(KemAlgorithm.MLKEM768, pk()), "kem")
                + "\n");
        Files.setPosixFilePermissions(ak, PosixFilePermissions.fromString("rw-r--r--"));
        Files.setPosixFilePermissions(akk, PosixFilePermissions.fromString("rw-------"));
    }

    private static byte[] pk() {
        return MlKem.generate(KemAlgorithm.MLKEM768, new SecureRandom()).publicKey();
    }

    private FileKeyAuthorizers auth(boolean strict, String user) {
        return new FileKeyAuthorizers(".ssh/authorized_keys", ".ssh/authorized_kem_keys", strict,
                u -> u.equals(user) ? Optional.of(home) : Optional.empty(), log::add);
    }

    private int keys(FileKeyAuthorizers a, String user) {
        return a.keysFor(user).entries().size();
    }

    private static UserPrincipal user(String name) throws IOException {
        return java.nio.file.FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName(name);
    }

    @Test
    void cleanFilesOwnedByRootAreUsed() {
        assertEquals(2, keys(auth(true, "root"), "root"));
        assertEquals(List.of(), log);
    }

    @Test
    void groupOrWorldWritableFileIsRefusedAndLoggedOnce() throws IOException {
        Files.setPosixFilePermissions(ak, PosixFilePermissions.fromString("rw-rw-r--"));
        Files.setPosixFilePermissions(akk, PosixFilePermissions.fromString("rw-r--rw-"));
        FileKeyAuthorizers a = auth(true, "root");
        for (int i = 0; i < 3; i++) {
            assertEquals(0, keys(a, "root"));
        }
        assertEquals(2, log.size(), log.toString()); // once per file, not once per login
        assertTrue(log.get(0).contains(ak.toString()) && log.get(0).contains("group or world writable"), log.get(0));
        assertTrue(log.get(1).contains(akk.toString()) && log.get(1).contains("rw-r--rw-"), log.get(1));
        // StrictModes no: the same files are used
        assertEquals(2, keys(auth(false, "root"), "root"));
        // fixed, then broken again: logged again
        Files.setPosixFilePermissions(ak, PosixFilePermissions.fromString("rw-r--r--"));
        assertEquals(1, keys(a, "root"));
        Files.setPosixFilePermissions(ak, PosixFilePermissions.fromString("rw-r---w-"));
        assertEquals(0, keys(a, "root"));
        assertEquals(3, log.size(), log.toString());
    }

    @Test
    void fileOwnedByAnotherUserIsRefused() throws IOException {
        Files.setOwner(ak, user("nobody"));
        assertEquals(1, keys(auth(true, "root"), "root")); // only authorized_kem_keys
        assertEquals(1, log.size(), log.toString());
        assertTrue(log.get(0).contains("bad ownership for file " + ak) && log.get(0).contains("owned by nobody"),
                log.get(0));
        assertEquals(2, keys(auth(false, "root"), "root"));
    }

    @Test
    void filesOwnedByTheLoginUserOrRootAreAccepted() throws IOException {
        // login user nobody: its own files and root's are fine, daemon's are not
        Files.setOwner(home, user("nobody"));
        Files.setOwner(ssh, user("nobody"));
        Files.setOwner(ak, user("nobody"));
        assertEquals(2, keys(auth(true, "nobody"), "nobody"));
        Files.setOwner(akk, user("daemon"));
        assertEquals(1, keys(auth(true, "nobody"), "nobody"));
        assertTrue(log.get(0).contains("owned by daemon, not nobody or root"), log.toString());
    }

    @Test
    void writableOrForeignParentDirectoriesUpToTheHomeAreRefused() throws IOException {
        Files.setPosixFilePermissions(ssh, PosixFilePermissions.fromString("rwxrwx---"));
        assertEquals(0, keys(auth(true, "root"), "root"));
        assertTrue(log.get(0).contains("bad modes for directory " + ssh), log.toString());
        Files.setPosixFilePermissions(ssh, PosixFilePermissions.fromString("rwx------"));

        log.clear();
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xrwx"));
        assertEquals(0, keys(auth(true, "root"), "root"));
        assertTrue(log.get(0).contains("bad modes for directory " + home), log.toString());
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));

        log.clear();
        Files.setOwner(ssh, user("nobody"));
        assertEquals(0, keys(auth(true, "root"), "root"));
        assertTrue(log.get(0).contains("bad ownership for directory " + ssh), log.toString());

        // above the home nothing is checked
        Files.setOwner(ssh, user("root"));
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertEquals(2, keys(auth(true, "root"), "root"));
    }

    @Test
    void fileOutsideTheHomeIsCheckedUpToTheRoot() throws IOException {
        // AuthorizedKEMKeysFile /tmp/.../shared/keys/%u: the walk goes up to /, so a world-writable "shared" refuses it
        Path shared = Files.createDirectory(tmp.resolve("shared"));
        Path keys = Files.createDirectory(shared.resolve("keys"));
        Path f = Files.copy(akk, keys.resolve("root"));
        FileKeyAuthorizers a = new FileKeyAuthorizers("none", keys + "/%u", true, u -> Optional.of(home), log::add);
        assertEquals(1, keys(a, "root")); // /tmp itself is root-owned and sticky: accepted
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertEquals(0, keys(a, "root"));
        assertTrue(log.get(0).contains("bad modes for directory " + shared), log.toString());
        assertEquals(Optional.of("bad modes for directory " + shared + ": rwxrwxrwx is group or world writable"),
                UserPaths.strictModesRefusal(f, "root", Optional.of(home)));
        // sticky but not owned by root (or the user) is refused too
        Files.setAttribute(shared, "unix:mode", 01777);
        Files.setOwner(shared, user("nobody"));
        assertTrue(UserPaths.strictModesRefusal(f, "root", Optional.of(home)).orElseThrow()
                .contains("bad ownership for directory " + shared));
        Files.setOwner(shared, user("root"));
        assertEquals(Optional.empty(), UserPaths.strictModesRefusal(f, "root", Optional.of(home)));
        // the sticky exception is for directories only: a world-writable file stays refused
        Files.setAttribute(f, "unix:mode", 01666);
        assertTrue(UserPaths.strictModesRefusal(f, "root", Optional.of(home)).orElseThrow()
                .contains("bad modes for file " + f));
    }

    @Test
    void symlinkOutOfTheHomeIsNotFollowed() throws IOException {
        Path outside = Files.createDirectory(tmp.resolve("outside"));
        Path target = Files.move(ak, outside.resolve("authorized_keys"));
        Files.createSymbolicLink(ak, target);
        FileKeyAuthorizers a = auth(true, "root");
        assertEquals(1, keys(a, "root"));
        assertEquals(1, log.size(), log.toString());
        assertTrue(log.get(0).contains("symlink leads out of the home directory " + home), log.get(0));
        assertEquals(2, keys(auth(false, "root"), "root"));

        // a symlinked .ssh directory leading out is refused as well
        log.clear();
        Path outsideSsh = Files.move(ssh, outside.resolve("ssh"));
        Files.createSymbolicLink(ssh, outsideSsh);
        assertEquals(0, keys(auth(true, "root"), "root"));
        assertEquals(2, log.size(), log.toString());
    }

    @Test
    void symlinkInsideTheHomeIsFollowedAndItsTargetChecked() throws IOException {
        Path dot = Files.createDirectory(home.resolve("dotfiles"));
        Path target = Files.move(ak, dot.resolve("ak"));
        Files.createSymbolicLink(ak, target);
        assertEquals(2, keys(auth(true, "root"), "root"));
        assertEquals(List.of(), log);
        // the target's directory is what counts, not the link's
        Files.setPosixFilePermissions(dot, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertEquals(1, keys(auth(true, "root"), "root"));
        assertTrue(log.get(0).contains("bad modes for directory " + dot), log.toString());
    }

    @Test
    void configKeyword() throws Exception {
        assertTrue(new ServerConfig().strictModes, "default yes");
        ServerConfig c = new ServerConfig();
        c.apply("StrictModes no", "t:1");
        assertFalse(c.strictModes);
        c.apply("StrictModes yes", "t:2"); // first value wins, as in sshd
        assertFalse(c.strictModes);
        ServerConfig d = new ServerConfig();
        d.apply("strictmodes=yes", "t:1");
        assertTrue(d.strictModes);
        ServerConfig.ConfigException e = assertThrows(ServerConfig.ConfigException.class,
                () -> new ServerConfig().apply("StrictModes maybe", "t:9"));
        assertTrue(e.getMessage().contains("t:9") && e.getMessage().contains("yes or no"), e.getMessage());
    }
}
