package io.pqssh.cli.transfer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import org.apache.sshd.sftp.client.SftpClient;

/** File and directory copies over an SFTP session (MINA's client), for {@code pqssh scp} and {@code pqssh sftp}. */
final class SftpTransfers {
    private SftpTransfers() {
    }

    static boolean isRemoteDirectory(SftpClient sftp, String path) {
        try {
            return sftp.stat(path).isDirectory();
        } catch (IOException e) {
            return false;
        }
    }

    static String join(String dir, String name) {
        return dir.endsWith("/") ? dir + name : dir + "/" + name;
    }

    static String baseName(String remote) {
        String r = remote.endsWith("/") && remote.length() > 1 ? remote.substring(0, remote.length() - 1) : remote;
        int slash = r.lastIndexOf('/');
        return slash < 0 ? r : r.substring(slash + 1);
    }

    /** Copies {@code local} to exactly {@code remote} (a directory needs {@code recursive}). */
    static void upload(SftpClient sftp, Path local, String remote, boolean recursive) throws IOException {
        if (Files.isDirectory(local)) {
            if (!recursive) {
                throw new IOException(local + ": not a regular file (use -r for directories)");
            }
            if (!isRemoteDirectory(sftp, remote)) {
                sftp.mkdir(remote);
            }
            try (Stream<Path> children = Files.list(local)) {
                for (Path c : (Iterable<Path>) children.sorted()::iterator) {
                    upload(sftp, c, join(remote, c.getFileName().toString()), true);
                }
            }
            return;
        }
        if (!Files.isRegularFile(local)) {
            throw new IOException(local + ": No such file or directory");
        }
        try (InputStream in = Files.newInputStream(local); OutputStream out = sftp.write(remote)) {
            in.transferTo(out);
        }
    }

    /** Copies {@code remote} to exactly {@code local} (a directory needs {@code recursive}). */
    static void download(SftpClient sftp, String remote, Path local, boolean recursive) throws IOException {
        SftpClient.Attributes a = sftp.stat(remote);
        if (a.isDirectory()) {
            if (!recursive) {
                throw new IOException(remote + ": not a regular file (use -r for directories)");
            }
            Files.createDirectories(local);
            for (SftpClient.DirEntry e : sftp.readDir(remote)) {
                String n = e.getFilename();
                if (n.equals(".") || n.equals("..")) {
                    continue;
                }
                download(sftp, join(remote, n), local.resolve(n), true);
            }
            return;
        }
        try (InputStream in = sftp.read(remote); OutputStream out = Files.newOutputStream(local)) {
            in.transferTo(out);
        }
    }
}
