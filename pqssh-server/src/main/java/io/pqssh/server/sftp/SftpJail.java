package io.pqssh.server.sftp;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code internal-sftp} the way sshd serves it, in a process of its own: started as root by pqssh server with the
 * session's pipes on 0, 1 and 2, it loads every class it will need, changes root into the ChrootDirectory, becomes
 * the user for good, and only then reads the client's first byte. Nothing needs to exist inside the chroot: no
 * shell, no sftp-server, no /dev/null, no /etc/passwd.
 * <p>
 * Command line (fixed positions, written by the server, never by the client):
 * {@code ROOT UID GID USER HOME -- [internal-sftp options]}, where ROOT is the directory to change root into or
 * {@code -} for none, and UID is {@code -} when the server is not root (no change of ids). GID and USER give the
 * supplementary groups ({@code getgrouplist}); HOME is the account's home directory, the default working directory
 * when it exists (inside the chroot), else {@code /}, as sshd.
 * <p>
 * Exit status: the server's, or 1 with one line on stderr (the client's sftp shows it) when the jail cannot be
 * entered: the session never serves outside it.
 */
public final class SftpJail {
    private SftpJail() {
    }

    public static void main(String[] args) {
        int status;
        try {
            status = run(List.of(args), new FileInputStream(FileDescriptor.in), new FileOutputStream(FileDescriptor.out));
        } catch (JailException e) {
            System.err.println("internal-sftp: " + e.getMessage());
            status = 1;
        }
        System.exit(status);
    }

    /** A reason not to serve, in one line. */
    static final class JailException extends Exception {
        private static final long serialVersionUID = 1L;

        JailException(String message) {
            super(message);
        }
    }

    static int run(List<String> args, InputStream in, OutputStream out) throws JailException {
        int dashes = args.indexOf("--");
        if (dashes != 5) {
            throw new JailException("usage: ROOT UID GID USER HOME -- [options] (got " + args + ")");
        }
        String root = args.get(0);
        String user = args.get(3);
        String home = args.get(4);
        boolean switchUid = !args.get(1).equals("-");
        int uid;
        int gid;
        try {
            uid = switchUid ? Integer.parseInt(args.get(1)) : -1;
            gid = switchUid ? Integer.parseInt(args.get(2)) : -1;
        } catch (NumberFormatException e) {
            throw new JailException("bad uid or gid: " + args.subList(1, 3));
        }
        if (!root.equals("-") && !root.startsWith("/")) {
            throw new JailException("chroot path does not begin at root");
        }
        SftpServerOptions options;
        try {
            options = SftpServerOptions.parse(args.subList(dashes + 1, args.size()), user, home);
        } catch (IllegalArgumentException e) {
            throw new JailException(e.getMessage());
        }
        ProcessJail jail = new ProcessJail();
        SftpFileServer.preloadClasses();
        try {
            int[] groups = switchUid ? jail.groupsOf(user, gid) : null;
            if (!root.equals("-")) {
                jail.enter(root);
            }
            if (switchUid) {
                jail.becomeUser(uid, gid, groups);
            } else if (!root.equals("-") && jail.uids()[1] != 0) {
                throw new JailException("a ChrootDirectory needs the server to run as root");
            }
        } catch (IOException e) {
            throw new JailException(e.getMessage());
        }
        if (options.startDirectory().equals(home) && !Files.isDirectory(Path.of(home))) {
            // sshd: the home directory when it exists inside the new root, else / without a word
            options = options.withStartDirectory("/");
        }
        try {
            return new SftpFileServer(options).serve(in, out);
        } catch (IOException e) {
            throw new JailException(e.getMessage());
        }
    }

    /**
     * The command line that starts the jail for a session: {@code env -i} with a fixed environment (PATH, and
     * {@code LC_ALL=C.UTF-8}: the JDK takes the encoding of file names from the locale only), this JVM's java with
     * {@link #JVM_OPTIONS}, and only the jar (or class directory) of this class on the class path: everything the
     * jail loads is in it.
     *
     * @param root    the directory to change root into, or null
     * @param uid     the account's uid, or null when the server is not root (no change of ids)
     * @param options internal-sftp's options (the words after {@code internal-sftp})
     */
    public static List<String> command(Path root, Integer uid, int gid, String user, String home,
            List<String> options) {
        List<String> cmd = new ArrayList<>(List.of(ENV, "-i", "PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8",
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(JVM_OPTIONS);
        cmd.addAll(List.of("-cp", classPath(), SftpJail.class.getName(), root == null ? "-" : root.toString(),
                uid == null ? "-" : Integer.toString(uid), Integer.toString(gid), user, home, "--"));
        cmd.addAll(options);
        return cmd;
    }

    static final String ENV = "/usr/bin/env";
    /**
     * C1 and the serial collector (a short-lived I/O loop), no perf-data file in /tmp (it would be root's, and left
     * behind once the process cannot reach /tmp), no attach listener, FFM allowed for the libc calls.
     */
    static final List<String> JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-XX:-UsePerfData", "-XX:+DisableAttachMechanism", "-Xmx64m", "-Xshare:auto",
            "--enable-native-access=ALL-UNNAMED");

    private static String classPath() {
        try {
            return Path.of(SftpJail.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException("where is pqssh-server's jar? " + e.getMessage(), e);
        }
    }
}
