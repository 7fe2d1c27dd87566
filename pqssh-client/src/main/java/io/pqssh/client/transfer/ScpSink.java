package io.pqssh.client.transfer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.client.channel.ChannelExec;
import org.apache.sshd.client.session.ClientSession;

/**
 * The receiving end of the legacy SCP protocol against the server's {@code scp -f}, as OpenSSH's scp sink: every
 * name the server sends is checked before anything is written (see {@link ScpRequest}), so a hostile server cannot
 * pick which local files it writes. pqssh does this itself instead of using MINA's {@code ScpClient}, whose download
 * writes whatever name the server announces.
 */
public final class ScpSink {
    /** scp's -r, -p, -d (several sources: the target must be a directory) and -T (no name check), and the umask. */
    public record Options(boolean recursive, boolean preserve, boolean targetShouldBeDirectory, boolean checkNames,
            int umask) {
    }

    /** An error that ends the transfer, as scp's {@code exit(1)} after {@code run_err}. */
    static final class Fatal extends IOException {
        private static final long serialVersionUID = 1L;

        Fatal(String message) {
            super(message);
        }
    }

    private static final int MAX_LINE = 2048;
    private static final int BUFFER = 64 * 1024;

    private final InputStream in;
    private final OutputStream out;
    private final PrintStream err;
    private final Options o;
    private final ScpRequest request;
    private int errors;

    private ScpSink(InputStream in, OutputStream out, PrintStream err, Options o, ScpRequest request) {
        this.in = in;
        this.out = out;
        this.err = err;
        this.o = o;
        this.request = request;
    }

    /** The command OpenSSH's scp runs on the server: the path unquoted, so that the server's shell expands globs. */
    static String remoteCommand(String remotePath, Options o) {
        return "scp" + (o.recursive() ? " -r" : "") + (o.preserve() ? " -p" : "")
                + (o.targetShouldBeDirectory() ? " -d" : "") + " -f " + (remotePath.startsWith("-") ? "-- " : "")
                + remotePath;
    }

    /**
     * Copies {@code remotePath} from the server into {@code target}; messages go to {@code err} as scp prints them.
     * Returns 0, or 1 when any file failed.
     */
    public static int download(ClientSession session, String remotePath, Path target, Options o, PrintStream err)
            throws IOException {
        // as scp: the names are only checked for a plain copy; with -r the server sends a tree of other names
        ScpRequest request;
        try {
            request = o.recursive() || !o.checkNames() ? null : ScpRequest.of(remotePath);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 1;
        }
        if (o.targetShouldBeDirectory() && !Files.isDirectory(target)) {
            err.println(target + ": " + (Files.exists(target) ? "Not a directory" : "No such file or directory"));
            return 1;
        }
        try (ChannelExec ch = session.createExecChannel(remoteCommand(remotePath, o))) {
            ch.setErr(new NoClose(err));
            ch.open().verify(Duration.ofSeconds(60));
            ScpSink sink = new ScpSink(ch.getInvertedOut(), ch.getInvertedIn(), err, o, request);
            int rc;
            try {
                sink.ack();
                sink.receive(target, Files.isDirectory(target));
                rc = sink.errors == 0 ? 0 : 1;
            } catch (Fatal e) {
                if (!e.getMessage().isEmpty()) { // empty: the server's own fatal message was printed already
                    err.println(e.getMessage());
                    sink.tellServer(e.getMessage());
                }
                rc = 1;
            }
            ch.getInvertedIn().close();
            ch.waitFor(java.util.EnumSet.of(org.apache.sshd.client.channel.ClientChannelEvent.CLOSED),
                    TimeUnit.SECONDS.toMillis(10));
            Integer status = ch.getExitStatus();
            return rc != 0 || (status != null && status != 0) ? 1 : 0;
        }
    }

    /** One directory level of scp's sink loop; returns at 'E' or at the end of the stream. */
    private void receive(Path target, boolean targetIsDirectory) throws IOException {
        FileTime[] times = null;
        for (boolean first = true;; first = false) {
            int b = in.read();
            if (b < 0) {
                return;
            }
            if (b == '\n') {
                throw protocol("unexpected <newline>");
            }
            String line = readLine(b);
            if (b == 1 || b == 2) {
                err.print(visible(line.substring(1)));
                err.flush();
                if (b == 2) {
                    throw new Fatal("");
                }
                errors++;
                continue;
            }
            if (b == 'E') {
                ack();
                return;
            }
            if (line.endsWith("\n")) {
                line = line.substring(0, line.length() - 1);
            }
            if (b == 'T') {
                times = times(line);
                ack();
                continue;
            }
            if (b != 'C' && b != 'D') {
                if (first) {
                    throw new Fatal(visible(line)); // e.g. a shell's "No match." before scp ran
                }
                throw protocol("expected control record");
            }
            Header h = header(line);
            if (ScpRequest.unsafeName(h.name())) {
                throw new Fatal("error: unexpected filename: " + visible(h.name()));
            }
            if (request != null && !request.allows(h.name())) {
                throw protocol("filename does not match request");
            }
            Path np = targetIsDirectory ? target.resolve(h.name()) : target;
            if (b == 'D') {
                directory(np, h, times);
            } else {
                file(np, h, times);
            }
            times = null;
        }
    }

    private record Header(int mode, long size, String name) {
    }

    private void directory(Path np, Header h, FileTime[] times) throws IOException {
        if (!o.recursive()) {
            throw protocol("received directory without -r");
        }
        int mode = o.preserve() ? h.mode() : h.mode() & ~o.umask();
        boolean setMode = o.preserve();
        if (Files.exists(np)) {
            if (!Files.isDirectory(np)) {
                runError(np + ": Not a directory");
                return;
            }
        } else {
            setMode = true; // made writable to fill it, as scp does for a read-only source directory
            try {
                Files.createDirectory(np);
                SftpTransfers.setMode(np, mode | 0700);
            } catch (IOException e) {
                runError(np + ": " + reason(e));
                return;
            }
        }
        ack(); // each level of scp's sink starts with a 0 byte, the go-ahead for the directory's contents
        receive(np, true);
        if (times != null) {
            setTimes(np, times);
        }
        if (setMode) {
            SftpTransfers.setMode(np, mode);
        }
    }

    private void file(Path np, Header h, FileTime[] times) throws IOException {
        boolean existed = Files.exists(np);
        boolean regular = !existed || Files.isRegularFile(np);
        FileChannel fc;
        try {
            fc = FileChannel.open(np, StandardOpenOption.WRITE, StandardOpenOption.CREATE);
            if (!existed) {
                SftpTransfers.setMode(np, (h.mode() | 0200) & 0777);
            }
        } catch (IOException e) {
            runError(np + ": " + reason(e));
            return;
        }
        String noted = null;
        try (fc) {
            ack();
            byte[] buf = new byte[BUFFER];
            long left = h.size();
            while (left > 0) {
                int n = in.read(buf, 0, (int) Math.min(buf.length, left));
                if (n < 0) {
                    throw new Fatal("lost connection");
                }
                left -= n;
                if (noted == null) { // after a write error keep reading, to stay in step with the server
                    try {
                        ByteBuffer bb = ByteBuffer.wrap(buf, 0, n);
                        while (bb.hasRemaining()) {
                            fc.write(bb);
                        }
                    } catch (IOException e) {
                        noted = np + ": " + reason(e);
                    }
                }
            }
            if (noted == null && regular) {
                fc.truncate(h.size());
            }
        }
        int mode = o.preserve() ? h.mode() & 0777 : h.mode() & ~o.umask() & 0777;
        if (o.preserve() || !existed) {
            try {
                SftpTransfers.setMode(np, mode);
            } catch (IOException e) {
                noted = noted != null ? noted : np + ": set mode: " + reason(e);
            }
        }
        response();
        if (times != null && noted == null) {
            setTimes(np, times);
        }
        if (noted != null) {
            runError(noted);
        } else {
            ack();
        }
    }

    /** The server's answer after a file's data: 0 ok, 1 an error it reports, 2 a fatal one. */
    private void response() throws IOException {
        int b = in.read();
        if (b < 0) {
            throw new Fatal("lost connection");
        }
        if (b == 0) {
            return;
        }
        String line = readLine(b);
        err.print(visible(line.substring(1)));
        err.flush();
        errors++;
        if (b != 1) {
            throw new Fatal("");
        }
    }

    private void setTimes(Path p, FileTime[] t) {
        try {
            Files.getFileAttributeView(p, BasicFileAttributeView.class).setTimes(t[0], t[1], null);
        } catch (IOException e) {
            err.println(p + ": set times: " + reason(e));
            errors++;
        }
    }

    private Header header(String line) throws Fatal {
        if (line.length() < 6) {
            throw protocol("bad mode");
        }
        int mode = 0;
        for (int i = 1; i < 5; i++) {
            char c = line.charAt(i);
            if (c < '0' || c > '7') {
                throw protocol("bad mode");
            }
            mode = (mode << 3) | (c - '0');
        }
        if (line.charAt(5) != ' ') {
            throw protocol("mode not delimited");
        }
        int i = 6;
        int digits = i;
        while (i < line.length() && Character.isDigit(line.charAt(i)) && line.charAt(i) < 128) {
            i++;
        }
        if (i == digits) {
            throw protocol("size not present");
        }
        if (i >= line.length() || line.charAt(i) != ' ') {
            throw protocol("size not delimited");
        }
        long size;
        try {
            size = Long.parseLong(line.substring(digits, i));
        } catch (NumberFormatException e) {
            throw protocol("size out of range");
        }
        return new Header(mode, size, line.substring(i + 1));
    }

    /** A 'T' line: mtime seconds, microseconds, atime seconds, microseconds. */
    private static FileTime[] times(String line) throws Fatal {
        String[] f = line.substring(1).split(" ", -1);
        if (f.length != 4) {
            throw protocol("mtime.sec not delimited");
        }
        try {
            long mtime = Long.parseLong(f[0]);
            long mus = Long.parseLong(f[1]);
            long atime = Long.parseLong(f[2]);
            long aus = Long.parseLong(f[3]);
            if (mus < 0 || mus > 999_999 || aus < 0 || aus > 999_999 || mtime < 0 || atime < 0) {
                throw protocol("mtime.usec not delimited");
            }
            return new FileTime[] {FileTime.from(mtime * 1_000_000 + mus, TimeUnit.MICROSECONDS),
                FileTime.from(atime * 1_000_000 + aus, TimeUnit.MICROSECONDS)};
        } catch (NumberFormatException | ArithmeticException e) {
            throw protocol("mtime.sec not present");
        }
    }

    /** The rest of a line that started with {@code first}, including its newline if the server sent one. */
    private String readLine(int first) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        line.write(first);
        int c = first;
        while (c != '\n' && line.size() < MAX_LINE - 1) {
            c = in.read();
            if (c < 0) {
                throw protocol("lost connection");
            }
            line.write(c);
        }
        return line.toString(StandardCharsets.UTF_8);
    }

    private void ack() throws IOException {
        out.write(0);
        out.flush();
    }

    /** scp's run_err: the message locally and, prefixed with 1 and "scp: ", to the server. */
    private void runError(String message) throws IOException {
        errors++;
        err.println(message);
        tellServer(message);
    }

    private void tellServer(String message) {
        try {
            out.write(1);
            out.write(("scp: " + message + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            // the server has gone; the local message is what matters
        }
    }

    private static Fatal protocol(String why) {
        return new Fatal("protocol error: " + why);
    }

    private static String reason(IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "Permission denied";
        }
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return String.valueOf(e.getMessage());
    }

    /** Control characters the server sends are shown, not sent to the terminal (scp's snmprintf does the same). */
    static String visible(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 32 && c != '\n' && c != '\t' || c == 127) {
                b.append(String.format("\\%03o", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /** The caller's stream, left open when the channel closes. */
    private static final class NoClose extends OutputStream {
        private final PrintStream target;

        NoClose(PrintStream target) {
            this.target = target;
        }

        @Override
        public void write(int b) {
            target.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            target.write(b, off, len);
        }

        @Override
        public void flush() {
            target.flush();
        }
    }
}
