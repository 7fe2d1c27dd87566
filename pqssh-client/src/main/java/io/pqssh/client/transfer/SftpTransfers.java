package io.pqssh.client.transfer;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.sftp.client.SftpClient;
import org.apache.sshd.sftp.client.SftpClientFactory;
import org.apache.sshd.sftp.client.SftpVersionSelector;
import org.apache.sshd.sftp.client.extensions.openssh.OpenSSHFsyncExtension;
import org.apache.sshd.sftp.client.impl.AbstractSftpClient;
import org.apache.sshd.sftp.client.impl.SftpInputStreamAsync;
import org.apache.sshd.sftp.client.impl.SftpOutputStreamAsync;
import org.apache.sshd.sftp.common.SftpConstants;

/** File and directory copies over an SFTP session (MINA's client), for {@code pqssh scp} and {@code pqssh sftp}. */
public final class SftpTransfers {
    private static final int BUFFER = 64 * 1024;

    /** A failed copy, with the message sftp prints for it; {@code %s} in it stands for the local file's name. */
    static final class TransferException extends IOException {
        private static final long serialVersionUID = 1L;
        private final String format;

        TransferException(String format, Path local) {
            super(format.replace("%s", String.valueOf(local)));
            this.format = format;
        }

        /** The message with the local file named as the user typed it (sftp's messages do). */
        String message(String shownLocal) {
            return format.replace("%s", shownLocal);
        }
    }

    /** A copy stopped by Ctrl-C (sftp prints only "Interrupt"). */
    static final class Interrupted extends InterruptedIOException {
        private static final long serialVersionUID = 1L;
    }

    /**
     * How get/put copy, as sftp's flags: {@code -r}, {@code -a} (resume: append what the destination lacks),
     * {@code -p} (the source's mode and times), {@code -f} (flush the written file to disk); {@code umask} for
     * downloaded files (sftp's lumask), a progress meter per file, and a Ctrl-C flag polled between blocks.
     */
    public record Options(boolean recursive, boolean resume, boolean preserve, boolean fsync, int umask,
            ProgressMeter.Factory meter, BooleanSupplier interrupted) {
    }

    private SftpTransfers() {
    }

    /**
     * An SFTP client speaking version 3, the one OpenSSH's sftp, scp and sftp-server speak (MINA's server would agree
     * on 6, whose attributes and statuses differ): the OpenSSH extensions and {@link SftpRequests}' attributes are
     * defined for it.
     */
    public static SftpClient open(ClientSession session) throws IOException {
        return SftpClientFactory.instance().createSftpClient(session, SftpVersionSelector.fixedVersionSelector(3));
    }

    public static boolean isRemoteDirectory(SftpClient sftp, String path) {
        try {
            return sftp.stat(path).isDirectory();
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * A remote directory's entries, less any whose name holds a '/': a hostile server's {@code ../../.bashrc} would
     * make a recursive download or a glob write outside the target. Skipped with sftp's own error line.
     */
    public static List<SftpClient.DirEntry> readDir(SftpClient sftp, String dir, java.io.PrintStream err)
            throws IOException {
        List<SftpClient.DirEntry> safe = new ArrayList<>();
        for (SftpClient.DirEntry e : sftp.readDir(dir)) {
            if (e.getFilename().indexOf('/') >= 0) {
                err.println("Server sent suspect path \"" + ScpSink.visible(e.getFilename()) + "\" during readdir of \""
                        + dir + "\"");
            } else {
                safe.add(e);
            }
        }
        return safe;
    }

    public static String join(String dir, String name) {
        return dir.endsWith("/") ? dir + name : dir + "/" + name;
    }

    public static String baseName(String remote) {
        String r = remote.endsWith("/") && remote.length() > 1 ? remote.substring(0, remote.length() - 1) : remote;
        int slash = r.lastIndexOf('/');
        return slash < 0 ? r : r.substring(slash + 1);
    }

    /**
     * Copies {@code local} to exactly {@code remote} (a directory needs {@code recursive}); returns the bytes written
     * (0: nothing to resume).
     */
    public static long upload(SftpClient sftp, Path local, String remote, Options o) throws IOException {
        if (Files.isDirectory(local)) {
            if (!o.recursive()) {
                throw new IOException(local + ": not a regular file (use -r for directories)");
            }
            if (!isRemoteDirectory(sftp, remote)) {
                sftp.mkdir(remote);
            }
            long n = 0;
            try (Stream<Path> children = Files.list(local)) {
                for (Path c : (Iterable<Path>) children.sorted()::iterator) {
                    n += upload(sftp, c, join(remote, c.getFileName().toString()), o);
                }
            }
            preserveRemote(sftp, local, remote, o);
            return n;
        }
        if (!Files.isRegularFile(local)) {
            throw new IOException(local + ": No such file or directory");
        }
        long size = Files.size(local);
        long offset = 0;
        if (o.resume()) {
            SftpClient.Attributes there;
            try {
                there = sftp.stat(remote);
            } catch (IOException e) {
                throw new TransferException("stat remote: " + SftpShell.text(e), local);
            }
            if (there.getSize() >= size) {
                throw new TransferException("resume \"%s\": destination file same size or larger", local);
            }
            offset = there.getSize();
        }
        // as sftp: WRITE|CREAT, and TRUNC unless resuming; a new file gets the local permission bits
        int pflags = SftpConstants.SSH_FXF_WRITE | SftpConstants.SSH_FXF_CREAT
                | (o.resume() ? 0 : SftpConstants.SSH_FXF_TRUNC);
        long written;
        try (SftpClient.CloseableHandle h = new SftpRequests(sftp).open(remote, pflags,
                SftpRequests.Change.permissions(mode(local)));
                InputStream in = Files.newInputStream(local)) {
            in.skipNBytes(offset);
            // 0: MINA sizes each SSH_FXP_WRITE to fill exactly one channel packet and builds it in a reused packet
            // buffer that is encrypted in place. A data size of its own (the packet size less 13, as for reads)
            // made every request 25 + handle bytes larger than a packet: the channel then copied it whole, copied
            // the first packet's worth again into a fresh buffer, and sent the last few bytes as a second packet
            // (issue 25: ~2.8 bytes allocated per byte uploaded, twice the packets)
            try (SftpOutputStreamAsync out = new SftpOutputStreamAsync((AbstractSftpClient) sftp, 0, remote, h,
                    false)) {
                out.setOffset(offset);
                written = copy(in, out, size, offset, local.getFileName().toString(), o);
            }
            if (o.fsync()) {
                OpenSSHFsyncExtension fsync = sftp.getExtension(OpenSSHFsyncExtension.class);
                if (!fsync.isSupported()) {
                    throw new TransferException("Server does not support fsync@openssh.com extension", local);
                }
                fsync.fsync(h);
            }
        }
        preserveRemote(sftp, local, remote, o);
        return written;
    }

    /**
     * Copies {@code remote} to exactly {@code local} (a directory needs {@code recursive}); returns the bytes written
     * (0: nothing to resume).
     */
    public static long download(SftpClient sftp, String remote, Path local, Options o) throws IOException {
        SftpClient.Attributes a = sftp.stat(remote);
        if (a.isDirectory()) {
            if (!o.recursive()) {
                throw new IOException(remote + ": not a regular file (use -r for directories)");
            }
            Files.createDirectories(local);
            long n = 0;
            for (SftpClient.DirEntry e : readDir(sftp, remote, System.err)) {
                String name = e.getFilename();
                if (name.equals(".") || name.equals("..")) {
                    continue;
                }
                n += download(sftp, join(remote, name), local.resolve(name), o);
            }
            preserveLocal(local, a, o);
            return n;
        }
        long offset = 0;
        boolean existed = Files.exists(local);
        if (o.resume() && existed) {
            offset = Files.size(local);
            if (offset > a.getSize()) {
                throw new TransferException("Unable to resume download of \"%s\": local file is larger than remote",
                        local);
            }
        }
        Set<StandardOpenOption> opts = EnumSet.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE);
        opts.add(o.resume() ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING);
        long written;
        try (SftpClient.CloseableHandle h = sftp.open(remote, EnumSet.of(SftpClient.OpenMode.Read));
                InputStream in = new SftpInputStreamAsync((AbstractSftpClient) sftp,
                        packet(sftp.getClientChannel().getLocalWindow().getPacketSize()), offset,
                        Long.MAX_VALUE / 2, remote, h, false); // to EOF: the size of a device file says nothing
                FileChannel ch = FileChannel.open(local, opts)) {
            if (!existed) {
                // as sftp's open(local, O_CREAT, mode | S_IWUSR) under its (l)umask
                setMode(local, ((a.getPermissions() & 0777) | 0200) & ~o.umask());
            }
            written = copy(in, Channels.newOutputStream(ch), a.getSize(), offset, baseName(remote), o);
            if (o.fsync()) {
                ch.force(true);
            }
        }
        preserveLocal(local, a, o);
        return written;
    }

    private static long copy(InputStream in, OutputStream out, long size, long offset, String name, Options o)
            throws IOException {
        ProgressMeter meter = o.meter().start(name, size, offset);
        AtomicLong done = meter != null ? meter.counter() : new AtomicLong(offset);
        try {
            byte[] buf = new byte[BUFFER];
            long n = 0;
            int r;
            while ((r = in.read(buf)) > 0) {
                if (o.interrupted().getAsBoolean()) {
                    throw new Interrupted();
                }
                out.write(buf, 0, r);
                n += r;
                done.addAndGet(r);
            }
            return n;
        } finally {
            if (meter != null) {
                meter.close();
            }
        }
    }

    /**
     * MINA's own read request size for a channel packet size (what {@code sftp.read(path)} would use): the
     * SSH_FXP_DATA reply (13 bytes of header) then fills one packet.
     */
    private static int packet(long packetSize) {
        return (int) packetSize - 13;
    }

    private static void preserveLocal(Path local, SftpClient.Attributes a, Options o) throws IOException {
        if (!o.preserve()) {
            return;
        }
        setMode(local, a.getPermissions() & 0777);
        Files.getFileAttributeView(local, BasicFileAttributeView.class).setTimes(a.getModifyTime(),
                a.getAccessTime(), null);
    }

    private static void preserveRemote(SftpClient sftp, Path local, String remote, Options o) throws IOException {
        if (!o.preserve()) {
            return;
        }
        FileTime mtime = Files.getLastModifiedTime(local);
        FileTime atime = (FileTime) Files.getAttribute(local, "lastAccessTime");
        new SftpRequests(sftp).setstat(remote, new SftpRequests.Change(null, null, mode(local),
                atime.toMillis() / 1000, mtime.toMillis() / 1000), true);
    }

    /** The permission bits of a local file (rwx for owner, group, others). */
    private static int mode(Path local) throws IOException {
        int mode = 0;
        for (PosixFilePermission p : Files.getPosixFilePermissions(local)) {
            mode |= 1 << (8 - p.ordinal());
        }
        return mode;
    }

    static void setMode(Path p, int mode) throws IOException {
        Set<PosixFilePermission> perms = EnumSet.noneOf(PosixFilePermission.class);
        for (PosixFilePermission x : PosixFilePermission.values()) {
            if ((mode & (1 << (8 - x.ordinal()))) != 0) {
                perms.add(x);
            }
        }
        Files.setPosixFilePermissions(p, perms);
    }
}
