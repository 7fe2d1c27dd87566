package io.pqssh.server.sftp;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * An SFTP version 3 server (draft-ietf-secsh-filexfer-02 with OpenSSH's PROTOCOL extensions) that behaves as
 * OpenSSH 9.2's sftp-server: same replies, status codes and messages, {@code ls -l} long names, extensions and
 * limits. JDK only (java.*), so a jailed child JVM can load it all before chroot ({@link #preloadClasses()}).
 *
 * <p>The server keeps its own working directory (the start directory) and resolves every relative path against
 * it; the process's working directory is never used. Paths are handed to the kernel as they are.
 */
public final class SftpFileServer {

    // packet types
    static final int INIT = 1, VERSION = 2, OPEN = 3, CLOSE = 4, READ = 5, WRITE = 6, LSTAT = 7, FSTAT = 8,
            SETSTAT = 9, FSETSTAT = 10, OPENDIR = 11, READDIR = 12, REMOVE = 13, MKDIR = 14, RMDIR = 15,
            REALPATH = 16, STAT = 17, RENAME = 18, READLINK = 19, SYMLINK = 20, STATUS = 101, HANDLE = 102,
            DATA = 103, NAME = 104, ATTRS = 105, EXTENDED = 200, EXTENDED_REPLY = 201;
    // status codes
    static final int OK = 0, EOF = 1, NO_SUCH_FILE = 2, PERMISSION_DENIED = 3, FAILURE = 4, BAD_MESSAGE = 5,
            OP_UNSUPPORTED = 8;
    static final String[] STATUS_MESSAGES = {"Success", "End of file", "No such file", "Permission denied", "Failure",
            "Bad message", "No connection", "Connection lost", "Operation unsupported"};
    // attribute flags
    static final int ATTR_SIZE = 1, ATTR_UIDGID = 2, ATTR_PERMISSIONS = 4, ATTR_ACMODTIME = 8,
            ATTR_EXTENDED = 0x80000000;
    // open flags
    static final int FXF_READ = 1, FXF_WRITE = 2, FXF_APPEND = 4, FXF_CREAT = 8, FXF_TRUNC = 0x10, FXF_EXCL = 0x20;

    /** sftp-server's SFTP_MAX_MSG_LENGTH: a longer message ends the session (exit status 11). */
    public static final int MAX_MESSAGE = 256 * 1024;
    /** sftp-server's SFTP_MAX_READ_LENGTH: a longer READ is shortened; also the largest WRITE advertised. */
    public static final int MAX_READ = MAX_MESSAGE - 1024;
    /** Open handles at most (advertised in limits@openssh.com); one more OPEN/OPENDIR gets FAILURE. */
    public static final int MAX_HANDLES = 1024;
    /** Entries per READDIR reply, as sftp-server. */
    static final int READDIR_BATCH = 100;

    /** Exit statuses as sftp-server's. */
    static final int EXIT_OK = 0, EXIT_TOO_LONG = 11, EXIT_FATAL = 255;

    /** The request names of {@code -Q requests}, {@code -p}, {@code -P}; in sftp-server's order. */
    public static final List<String> REQUEST_NAMES = List.of("open", "close", "read", "write", "lstat", "fstat",
            "setstat", "fsetstat", "opendir", "readdir", "remove", "mkdir", "rmdir", "realpath", "stat", "rename",
            "readlink", "symlink", "posix-rename", "statvfs", "fstatvfs", "hardlink", "fsync", "lsetstat", "limits",
            "expand-path", "copy-data", "home-directory", "users-groups-by-id");
    /** Extensions advertised in VERSION (wire name, short name, version string), in sftp-server's order. */
    static final String[][] EXTENSIONS = {
            {"posix-rename@openssh.com", "posix-rename", "1"}, {"statvfs@openssh.com", "statvfs", "2"},
            {"fstatvfs@openssh.com", "fstatvfs", "2"}, {"hardlink@openssh.com", "hardlink", "1"},
            {"fsync@openssh.com", "fsync", "1"}, {"lsetstat@openssh.com", "lsetstat", "1"},
            {"limits@openssh.com", "limits", "1"}, {"expand-path@openssh.com", "expand-path", "1"},
            {"copy-data", "copy-data", "1"}, {"home-directory", "home-directory", "1"},
            {"users-groups-by-id@openssh.com", "users-groups-by-id", "1"}};
    /** Requests refused in read-only mode (sftp-server's does_write). */
    static final Set<String> WRITING = Set.of("write", "setstat", "fsetstat", "remove", "mkdir", "rmdir", "rename",
            "symlink", "posix-rename", "hardlink", "fsync", "lsetstat", "copy-data");

    static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
            "Dec"};
    static final String STAT_ATTRS = "unix:mode,nlink,uid,gid,size,lastAccessTime,lastModifiedTime";
    static final LinkOption[] FOLLOW = {};
    static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};

    private final SftpServerOptions options;
    private final Consumer<String> log;
    private final int logLevel;
    private final ZoneRules zone;
    private String cwd;
    private final Handle[] handles = new Handle[MAX_HANDLES];
    private final Map<Integer, String> userNames = new HashMap<>();
    private final Map<Integer, String> groupNames = new HashMap<>();
    private final Out out = new Out();
    private boolean initDone;

    public SftpFileServer(SftpServerOptions options) {
        this(options, null);
    }

    /**
     * @param log where log lines go (without line end); null: stderr with {@code -e}, else nowhere (the JDK has no
     *            syslog client; a caller that wants sftp-server's syslog lines passes its own sink)
     */
    public SftpFileServer(SftpServerOptions options, Consumer<String> log) {
        this.options = options;
        PrintStream err = System.err;
        this.log = log != null ? log : options.logToStderr() ? err::println : s -> { };
        int lv = SftpServerOptions.LEVELS.indexOf(options.logLevel());
        this.logLevel = lv < 0 ? 2 : lv;
        this.zone = ZoneId.systemDefault().getRules();
    }

    /** What {@code sftp-server -Q FEATURE} prints (one name a line), or null for an unknown feature. */
    public static String query(String feature) {
        if (!"requests".equalsIgnoreCase(feature)) return null;
        return String.join("\n", REQUEST_NAMES) + "\n";
    }

    // ---------------------------------------------------------------- logging (sftp-server's levels)

    private static final int L_ERROR = 2, L_INFO = 3, L_VERBOSE = 4, L_DEBUG = 5, L_DEBUG3 = 8;

    private void log(int level, String msg) {
        if (level <= logLevel && !(level == L_DEBUG && logLevel < L_DEBUG)) {
            String prefix = level >= L_DEBUG ? "debug" + (level == L_DEBUG ? 1 : level - 5) + ": " : "";
            log.accept(prefix + msg);
        }
    }

    // ---------------------------------------------------------------- serving

    /** A malformed message: the session ends as sftp-server's fatal parse error (exit 255). */
    static final class Malformed extends Exception {
        Malformed(String m) { super(m, null, false, false); }
    }

    /**
     * Serves requests from {@code in}, answers to {@code out}, until {@code in} ends; returns the exit status
     * sftp-server would (0 at end of input, 11 for a message longer than {@link #MAX_MESSAGE}, 255 for a message
     * shorter than its fields or a request before INIT).
     */
    public int serve(InputStream rawIn, OutputStream rawOut) throws IOException {
        Integer oldMask = null;
        if (options.umask() != null) oldMask = Native.umask(options.umask());
        BufferedInputStream in = new BufferedInputStream(rawIn, 512 * 1024);
        BufferedOutputStream os = new BufferedOutputStream(rawOut, 512 * 1024);
        log(L_INFO, "session opened for local user " + options.user() + " from [UNKNOWN]");
        cwd = startDirectory();
        byte[] msg = new byte[MAX_MESSAGE];
        byte[] len4 = new byte[4];
        int status = EXIT_OK;
        try {
            while (true) {
                if (!readFully(in, len4, 4)) { log(L_DEBUG, "read eof"); break; }
                int len = ((len4[0] & 0xff) << 24) | ((len4[1] & 0xff) << 16) | ((len4[2] & 0xff) << 8) | (len4[3] & 0xff);
                if (len < 0 || len > MAX_MESSAGE) {
                    log(L_ERROR, "bad message from UNKNOWN local user " + options.user());
                    status = EXIT_TOO_LONG;
                    break;
                }
                if (!readFully(in, msg, len)) { log(L_DEBUG, "read eof"); break; }
                try {
                    process(new Msg(msg, len));
                } catch (Malformed e) {
                    log(L_ERROR, e.getMessage());
                    status = EXIT_FATAL;
                    break;
                }
                if (out.len > 0) {
                    os.write(out.buf, 0, out.len);
                    out.len = 0;
                }
                if (in.available() == 0) os.flush();
            }
            os.flush();
        } finally {
            for (int i = 0; i < handles.length; i++) {
                if (handles[i] != null) {
                    Handle h = handles[i];
                    if (h.channel != null) log(L_INFO, "forced close \"" + h.path + "\" bytes read " + h.bytesRead
                            + " written " + h.bytesWritten);
                    else log(L_INFO, "forced closedir \"" + h.path + "\"");
                    h.close();
                    handles[i] = null;
                }
            }
            log(L_INFO, "session closed for local user " + options.user() + " from [UNKNOWN]");
            if (oldMask != null) Native.umask(oldMask);
        }
        return status;
    }

    private static boolean readFully(InputStream in, byte[] b, int n) throws IOException {
        int off = 0;
        while (off < n) {
            int r = in.read(b, off, n - off);
            if (r < 0) return false;
            off += r;
        }
        return true;
    }

    private String startDirectory() {
        for (String d : new String[] {options.startDirectory(), options.home(), "/"}) {
            if (d != null && d.startsWith("/") && Files.isDirectory(Path.of(d))) {
                try {
                    return realpath(d);
                } catch (IOException e) {
                    // next
                }
            } else if (d != null && d.equals(options.startDirectory())) {
                log(L_ERROR, "chdir to \"" + d + "\" failed: No such file or directory");
            }
        }
        return "/";
    }

    private void process(Msg m) throws Malformed, IOException {
        int type = m.u8();
        if (type == INIT) {
            int v = m.u32();
            log(L_VERBOSE, "received client version " + v);
            out.begin(VERSION);
            out.u32(3);
            for (String[] e : EXTENSIONS) {
                if (!permitted(e[1], false)) continue;
                out.str(e[0]);
                out.str(e[2]);
            }
            out.end();
            initDone = true;
            return;
        }
        if (!initDone) throw new Malformed("Received " + type + " request before init");
        int id = m.u32();
        String name = switch (type) {
            case OPEN -> "open"; case CLOSE -> "close"; case READ -> "read"; case WRITE -> "write";
            case LSTAT -> "lstat"; case FSTAT -> "fstat"; case SETSTAT -> "setstat"; case FSETSTAT -> "fsetstat";
            case OPENDIR -> "opendir"; case READDIR -> "readdir"; case REMOVE -> "remove"; case MKDIR -> "mkdir";
            case RMDIR -> "rmdir"; case REALPATH -> "realpath"; case STAT -> "stat"; case RENAME -> "rename";
            case READLINK -> "readlink"; case SYMLINK -> "symlink";
            default -> null;
        };
        if (type == EXTENDED) {
            extended(id, m);
            return;
        }
        if (name == null) {
            log(L_ERROR, "Unknown message " + type);
            status(id, OP_UNSUPPORTED);
            return;
        }
        if (!permitted(name, true)) {
            // sftp-server reads the request's fields before refusing: a short one still ends the session
            status(id, PERMISSION_DENIED);
            return;
        }
        int mark = out.len;
        try {
            switch (type) {
                case OPEN -> open(id, m);
                case CLOSE -> close(id, m);
                case READ -> read(id, m);
                case WRITE -> write(id, m);
                case LSTAT -> stat(id, m.path(), NOFOLLOW);
                case STAT -> stat(id, m.path(), FOLLOW);
                case FSTAT -> fstat(id, m);
                case SETSTAT -> setstat(id, m.path(), m.attrs(), FOLLOW);
                case FSETSTAT -> fsetstat(id, m);
                case OPENDIR -> opendir(id, m);
                case READDIR -> readdir(id, m);
                case REMOVE -> remove(id, m);
                case MKDIR -> mkdir(id, m);
                case RMDIR -> rmdir(id, m);
                case REALPATH -> realpathRequest(id, m);
                case RENAME -> rename(id, m);
                case READLINK -> readlink(id, m);
                case SYMLINK -> symlink(id, m);
                default -> status(id, OP_UNSUPPORTED);
            }
        } catch (Malformed e) {
            throw new Malformed("process_" + name + ": parse: " + e.getMessage());
        } catch (RuntimeException e) {
            // e.g. a name the JDK cannot make a Path of: the request fails, the session goes on
            log(L_ERROR, name + ": " + e);
            out.len = mark;
            status(id, FAILURE);
        }
    }

    private boolean permitted(String name, boolean logIt) {
        if (options.readOnly() && WRITING.contains(name)) {
            if (logIt) log(L_VERBOSE, "Refusing " + name + " request in read-only mode");
            return false;
        }
        if (options.denied() != null && matchList(name, options.denied())) {
            if (logIt) log(L_VERBOSE, "Refusing denylisted " + name + " request");
            return false;
        }
        if (options.allowed() != null && !matchList(name, options.allowed())) {
            if (logIt) log(L_VERBOSE, "Refusing non-allowlisted " + name + " request");
            return false;
        }
        return true;
    }

    /** A name in a comma-separated list: exact names, as sftp-server's -p/-P (no patterns). */
    static boolean matchList(String s, List<String> names) {
        return names.contains(s);
    }

    // ---------------------------------------------------------------- replies

    private void status(int id, int code) {
        status(id, code, STATUS_MESSAGES[code]);
    }

    private void status(int id, int code, String message) {
        log(L_DEBUG3, "request " + Integer.toUnsignedString(id) + ": sent status " + code);
        if (code != OK) log(L_VERBOSE, "sent status " + message);
        out.begin(STATUS);
        out.u32(id);
        out.u32(code);
        out.str(message);
        out.str("");
        out.end();
    }

    private void status(int id, IOException e) {
        status(id, errorCode(e));
    }

    /** sftp-server's errno_to_portable, from the JDK's exception for the errno. */
    static int errorCode(IOException e) {
        if (e instanceof NoSuchFileException || e instanceof NotDirectoryException
                || e instanceof FileSystemLoopException) return NO_SUCH_FILE;
        if (e instanceof AccessDeniedException) return PERMISSION_DENIED;
        if (e instanceof NotLinkException) return BAD_MESSAGE; // EINVAL
        if (e instanceof FileAlreadyExistsException || e instanceof DirectoryNotEmptyException) return FAILURE;
        if (e instanceof FileSystemException f && f.getReason() != null) {
            String r = f.getReason();
            if (r.startsWith("Operation not permitted") || r.startsWith("Bad address")) return PERMISSION_DENIED;
            if (r.startsWith("Not a directory") || r.startsWith("Bad file descriptor")
                    || r.contains("Too many levels of symbolic links")) return NO_SUCH_FILE;
            if (r.startsWith("File name too long") || r.startsWith("Invalid argument")) return BAD_MESSAGE;
            if (r.startsWith("Function not implemented")) return OP_UNSUPPORTED;
        }
        String msg = e.getMessage();
        if (msg != null && msg.startsWith("Bad file descriptor")) return NO_SUCH_FILE;
        return FAILURE;
    }

    private void handleReply(int id, int index) {
        out.begin(HANDLE);
        out.u32(id);
        out.u32(4);
        out.u32(index);
        out.end();
    }

    private void nameReply(int id, String name) {
        out.begin(NAME);
        out.u32(id);
        out.u32(1);
        out.str(name);
        out.str(name);
        out.u32(0);
        out.end();
    }

    // ---------------------------------------------------------------- paths

    /** The client's path made absolute against the server's working directory ("" stays ""). */
    String abs(String p) {
        if (p.isEmpty() || p.startsWith("/")) return p;
        return cwd.equals("/") ? "/" + p : cwd + "/" + p;
    }

    static Path path(String abs) throws NoSuchFileException {
        if (abs.isEmpty()) throw new NoSuchFileException("");
        if (abs.indexOf('\0') >= 0) throw new NoSuchFileException(abs);
        return Path.of(abs);
    }

    /**
     * The canonical absolute path of {@code p} (relative to the working directory), symbolic links followed; the last
     * component need not exist (OpenSSH's sftp_realpath).
     */
    String realpath(String p) throws IOException {
        String a = p.isEmpty() ? cwd : abs(p);
        ArrayList<String> todo = new ArrayList<>(List.of(a.split("/")));
        ArrayList<String> done = new ArrayList<>();
        int links = 0;
        int i = 0;
        while (i < todo.size()) {
            String c = todo.get(i++);
            if (c.isEmpty() || c.equals(".")) continue;
            if (c.equals("..")) {
                if (!done.isEmpty()) done.remove(done.size() - 1);
                continue;
            }
            String candidate = join(done) + (done.isEmpty() ? "" : "/") + c;
            candidate = candidate.startsWith("/") ? candidate : "/" + candidate;
            Map<String, Object> attrs;
            try {
                attrs = Files.readAttributes(path(candidate), "unix:mode", NOFOLLOW);
            } catch (NoSuchFileException e) {
                if (remainingEmpty(todo, i)) { done.add(c); break; }
                throw e;
            }
            int mode = (Integer) attrs.get("mode");
            int kind = mode & 0170000;
            if (kind == 0120000) {
                if (++links > 32) throw new FileSystemLoopException(candidate);
                String target = Files.readSymbolicLink(path(candidate)).toString();
                ArrayList<String> rest = new ArrayList<>(List.of(target.split("/")));
                rest.addAll(todo.subList(i, todo.size()));
                todo = rest;
                i = 0;
                if (target.startsWith("/")) done.clear();
                continue;
            }
            if (kind != 0040000 && !remainingEmpty(todo, i)) throw new NotDirectoryException(candidate);
            done.add(c);
        }
        return "/" + String.join("/", done);
    }

    private static boolean remainingEmpty(List<String> todo, int from) {
        for (int k = from; k < todo.size(); k++) if (!todo.get(k).isEmpty() && !todo.get(k).equals(".")) return false;
        return true;
    }

    private static String join(List<String> parts) {
        return "/" + String.join("/", parts);
    }

    // ---------------------------------------------------------------- attributes

    /** A file's stat, as sftp-server sends it. */
    record Stat(long size, int uid, int gid, int mode, long atime, long mtime, int nlink) { }

    static Stat stat(Path p, LinkOption[] follow) throws IOException {
        Map<String, Object> a = Files.readAttributes(p, STAT_ATTRS, follow);
        return new Stat((Long) a.get("size"), (Integer) a.get("uid"), (Integer) a.get("gid"), (Integer) a.get("mode"),
                ((FileTime) a.get("lastAccessTime")).to(TimeUnit.SECONDS),
                ((FileTime) a.get("lastModifiedTime")).to(TimeUnit.SECONDS), (Integer) a.get("nlink"));
    }

    private void attrs(Stat s) {
        out.u32(ATTR_SIZE | ATTR_UIDGID | ATTR_PERMISSIONS | ATTR_ACMODTIME);
        out.u64(s.size());
        out.u32(s.uid());
        out.u32(s.gid());
        out.u32(s.mode());
        out.u32((int) s.atime());
        out.u32((int) s.mtime());
    }

    /** Attributes sent by the client. */
    record Attrs(int flags, long size, int uid, int gid, int perm, long atime, long mtime) {
        boolean has(int f) { return (flags & f) != 0; }
    }

    private void stat(int id, String p, LinkOption[] follow) {
        String a = abs(p);
        log(L_INFO, (follow == NOFOLLOW ? "lstat" : "stat") + " name \"" + a + "\"");
        try {
            Stat s = stat(path(a), follow);
            out.begin(ATTRS);
            out.u32(id);
            attrs(s);
            out.end();
        } catch (IOException e) {
            status(id, e);
        }
    }

    private void fstat(int id, Msg m) throws Malformed {
        Handle h = fileHandle(m.handle());
        if (h == null) { status(id, FAILURE); return; }
        log(L_INFO, "fstat \"" + h.path + "\"");
        try {
            Stat s = stat(path(h.path), FOLLOW);
            out.begin(ATTRS);
            out.u32(id);
            attrs(s);
            out.end();
        } catch (IOException e) {
            status(id, e);
        }
    }

    private void setstat(int id, String p, Attrs at, LinkOption[] follow) {
        String a = abs(p);
        try {
            Path path = path(a);
            IOException last = null;
            if (at.has(ATTR_SIZE)) {
                log(L_INFO, "set \"" + a + "\" size " + at.size());
                try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
                    setSize(ch, at.size());
                } catch (IOException e) { last = e; }
            }
            if (at.has(ATTR_PERMISSIONS)) {
                log(L_INFO, "set \"" + a + "\" mode " + String.format("%04o", at.perm() & 07777));
                try { Files.setAttribute(path, "unix:mode", at.perm() & 07777, follow); } catch (IOException e) { last = e; }
            }
            if (at.has(ATTR_ACMODTIME)) {
                log(L_INFO, "set \"" + a + "\" modtime " + at.mtime());
                try {
                    Files.getFileAttributeView(path, BasicFileAttributeView.class, follow).setTimes(
                            FileTime.from(at.mtime(), TimeUnit.SECONDS), FileTime.from(at.atime(), TimeUnit.SECONDS), null);
                } catch (IOException e) { last = e; }
            }
            if (at.has(ATTR_UIDGID)) {
                log(L_INFO, "set \"" + a + "\" owner " + Integer.toUnsignedString(at.uid()) + " group "
                        + Integer.toUnsignedString(at.gid()));
                try {
                    if (at.uid() != -1) Files.setAttribute(path, "unix:uid", at.uid(), follow);
                    if (at.gid() != -1) Files.setAttribute(path, "unix:gid", at.gid(), follow);
                } catch (IOException e) { last = e; }
            }
            if (last != null) status(id, last); else status(id, OK);
        } catch (IOException e) {
            status(id, e);
        }
    }

    private static void setSize(FileChannel ch, long size) throws IOException {
        long cur = ch.size();
        if (size < cur) ch.truncate(size);
        else if (size > cur) ch.write(ByteBuffer.wrap(new byte[1]), size - 1);
    }

    private void fsetstat(int id, Msg m) throws Malformed {
        Handle h = handle(m.handle(), false);
        Attrs at = m.attrs();
        if (h == null) { status(id, FAILURE); return; }
        if (h.channel != null && at.has(ATTR_SIZE)) {
            log(L_INFO, "set \"" + h.path + "\" size " + at.size());
            try {
                setSize(h.channel, at.size());
            } catch (IOException e) {
                status(id, e);
                return;
            }
            at = new Attrs(at.flags() & ~ATTR_SIZE, 0, at.uid(), at.gid(), at.perm(), at.atime(), at.mtime());
        }
        setstat(id, h.path, at, FOLLOW);
    }

    // ---------------------------------------------------------------- handles

    static final class Handle {
        final String path;
        final FileChannel channel;       // files
        final int pflags;
        DirectoryStream<Path> dir;       // directories
        Iterator<Path> entries;
        boolean dotsSent;
        long bytesRead, bytesWritten;

        Handle(String path, FileChannel channel, int pflags, DirectoryStream<Path> dir) {
            this.path = path;
            this.channel = channel;
            this.pflags = pflags;
            this.dir = dir;
            this.entries = dir == null ? null : dir.iterator();
        }

        void close() throws IOException {
            if (channel != null) channel.close();
            if (dir != null) dir.close();
        }
    }

    private int freeSlot() {
        for (int i = 0; i < handles.length; i++) if (handles[i] == null) return i;
        return -1;
    }

    /** The handle named by {@code h}, or null (unknown, or of the wrong kind: file wanted, a directory's). */
    private Handle handle(byte[] h, boolean any) {
        if (h.length != 4) return null;
        int i = ((h[0] & 0xff) << 24) | ((h[1] & 0xff) << 16) | ((h[2] & 0xff) << 8) | (h[3] & 0xff);
        if (i < 0 || i >= handles.length) return null;
        Handle x = handles[i];
        if (x == null || (!any && x.channel == null && x.dir == null)) return null;
        return x;
    }

    private Handle fileHandle(byte[] h) {
        Handle x = handle(h, true);
        return x != null && x.channel != null ? x : null;
    }

    private Handle dirHandle(byte[] h) {
        Handle x = handle(h, true);
        return x != null && x.dir != null ? x : null;
    }

    private static String flagString(int pflags) {
        StringBuilder b = new StringBuilder();
        if ((pflags & FXF_READ) != 0) b.append("READ,");
        if ((pflags & FXF_WRITE) != 0) b.append("WRITE,");
        if ((pflags & FXF_APPEND) != 0) b.append("APPEND,");
        if ((pflags & FXF_CREAT) != 0) b.append("CREATE,");
        if ((pflags & FXF_TRUNC) != 0) b.append("TRUNCATE,");
        if ((pflags & FXF_EXCL) != 0) b.append("EXCL,");
        if (b.length() > 0) b.setLength(b.length() - 1);
        return b.toString();
    }

    private void open(int id, Msg m) throws Malformed {
        String a = abs(m.path());
        int pflags = m.u32();
        Attrs at = m.attrs();
        int mode = at.has(ATTR_PERMISSIONS) ? at.perm() & 07777 : 0666;
        log(L_DEBUG3, "request " + Integer.toUnsignedString(id) + ": open flags " + pflags);
        log(L_INFO, "open \"" + a + "\" flags " + flagString(pflags) + " mode 0" + Integer.toOctalString(mode));
        boolean wr = (pflags & FXF_WRITE) != 0;
        if (options.readOnly() && (wr || (pflags & (FXF_CREAT | FXF_TRUNC)) != 0)) {
            log(L_VERBOSE, "Refusing open request in read-only mode");
            status(id, PERMISSION_DENIED);
            return;
        }
        int slot = freeSlot();
        if (slot < 0) { status(id, FAILURE); return; }
        Set<OpenOption> oo = new HashSet<>();
        if ((pflags & FXF_READ) != 0 || !wr) oo.add(StandardOpenOption.READ);
        if (wr) oo.add(StandardOpenOption.WRITE);
        if ((pflags & FXF_CREAT) != 0) {
            oo.add((pflags & FXF_EXCL) != 0 ? StandardOpenOption.CREATE_NEW : StandardOpenOption.CREATE);
        }
        if ((pflags & FXF_TRUNC) != 0 && wr) oo.add(StandardOpenOption.TRUNCATE_EXISTING);
        try {
            FileChannel ch = (pflags & FXF_CREAT) != 0
                    ? FileChannel.open(path(a), oo, perms(mode))
                    : FileChannel.open(path(a), oo);
            handles[slot] = new Handle(a, ch, pflags, null);
            handleReply(id, slot);
        } catch (IOException e) {
            status(id, e);
        }
    }

    private static FileAttribute<Set<PosixFilePermission>> perms(int mode) {
        return PosixFilePermissions.asFileAttribute(permSet(mode));
    }

    static Set<PosixFilePermission> permSet(int mode) {
        EnumSet<PosixFilePermission> s = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] all = PosixFilePermission.values(); // OWNER_READ .. OTHERS_EXECUTE, 0400 .. 0001
        for (int i = 0; i < 9; i++) if ((mode & (0400 >> i)) != 0) s.add(all[i]);
        return s;
    }

    private void close(int id, Msg m) throws Malformed {
        byte[] hb = m.handle();
        Handle h = handle(hb, true);
        if (h == null) {
            log(L_INFO, "closedir \"(null)\"");
            status(id, NO_SUCH_FILE); // sftp-server: EBADF
            return;
        }
        int i = ((hb[0] & 0xff) << 24) | ((hb[1] & 0xff) << 16) | ((hb[2] & 0xff) << 8) | (hb[3] & 0xff);
        handles[i] = null;
        if (h.channel != null) log(L_INFO, "close \"" + h.path + "\" bytes read " + h.bytesRead + " written " + h.bytesWritten);
        else log(L_INFO, "closedir \"" + h.path + "\"");
        try {
            h.close();
            status(id, OK);
        } catch (IOException e) {
            status(id, e);
        }
    }

    private void read(int id, Msg m) throws Malformed {
        Handle h = fileHandle(m.handle());
        long off = m.u64();
        int len = m.u32();
        if (h == null) { status(id, FAILURE); return; }
        if (len < 0 || len > MAX_READ) len = MAX_READ;
        try {
            int start = out.beginData(id, len);
            ByteBuffer bb = ByteBuffer.wrap(out.buf, start, len);
            long pos = off;
            while (bb.hasRemaining()) {
                int r = h.channel.read(bb, pos);
                if (r <= 0) break;
                pos += r;
            }
            int got = bb.position() - start;
            if (got == 0) {
                out.cancel();
                status(id, EOF);
                return;
            }
            out.endData(got);
            h.bytesRead += got;
        } catch (IOException e) {
            out.cancel();
            status(id, e);
        } catch (java.nio.channels.NonReadableChannelException e) {
            out.cancel();
            status(id, NO_SUCH_FILE); // sftp-server: read(2) on a write-only descriptor, EBADF
        }
    }

    private void write(int id, Msg m) throws Malformed {
        Handle h = fileHandle(m.handle());
        long off = m.u64();
        int dlen = m.u32();
        int doff = m.take(dlen);
        if (h == null) { status(id, FAILURE); return; }
        try {
            ByteBuffer bb = ByteBuffer.wrap(m.b, doff, dlen);
            long pos = (h.pflags & FXF_APPEND) != 0 ? h.channel.size() : off;
            while (bb.hasRemaining()) pos += h.channel.write(bb, pos);
            h.bytesWritten += dlen;
            status(id, OK);
        } catch (IOException e) {
            status(id, e);
        } catch (java.nio.channels.NonWritableChannelException e) {
            status(id, NO_SUCH_FILE); // sftp-server: write(2) on a read-only descriptor, EBADF
        }
    }

    private void opendir(int id, Msg m) throws Malformed {
        String a = abs(m.path());
        log(L_INFO, "opendir \"" + a + "\"");
        int slot = freeSlot();
        if (slot < 0) { status(id, FAILURE); return; }
        try {
            DirectoryStream<Path> ds = Files.newDirectoryStream(path(a));
            handles[slot] = new Handle(a, null, 0, ds);
            handleReply(id, slot);
        } catch (IOException e) {
            status(id, e);
        }
    }

    private void readdir(int id, Msg m) throws Malformed {
        Handle h = dirHandle(m.handle());
        if (h == null) { status(id, FAILURE); return; }
        List<String> names = new ArrayList<>();
        if (!h.dotsSent) {
            names.add(".");
            names.add("..");
            h.dotsSent = true;
        }
        try {
            while (names.size() < READDIR_BATCH && h.entries.hasNext()) {
                names.add(h.entries.next().getFileName().toString());
            }
        } catch (RuntimeException e) {
            // DirectoryIteratorException: end the listing as readdir's error would
        }
        long now = System.currentTimeMillis() / 1000;
        int count = 0;
        int countAt = -1;
        String base = h.path.endsWith("/") ? h.path : h.path + "/";
        for (String n : names) {
            Path p;
            Stat s;
            try {
                p = path(base + n);
                s = stat(p, NOFOLLOW);
            } catch (IOException e) {
                continue;
            }
            if (count == 0) {
                out.begin(NAME);
                out.u32(id);
                countAt = out.len;
                out.u32(0);
            }
            out.str(n);
            out.str(longName(n, s, p, now));
            attrs(s);
            count++;
        }
        if (count == 0) {
            status(id, EOF);
            return;
        }
        out.putU32At(countAt, count);
        out.end();
    }

    /** sftp-server's ls_file: {@code ls -l} style line. */
    String longName(String name, Stat s, Path p, long now) {
        String user = userNames.get(s.uid());
        String group = groupNames.get(s.gid());
        if (user == null || group == null) {
            try {
                Map<String, Object> a = Files.readAttributes(p, "unix:owner,group", NOFOLLOW);
                if (user == null) userNames.put(s.uid(), user = nameOf(a.get("owner"), s.uid()));
                if (group == null) groupNames.put(s.gid(), group = nameOf(a.get("group"), s.gid()));
            } catch (IOException | RuntimeException e) {
                if (user == null) user = Integer.toUnsignedString(s.uid());
                if (group == null) group = Integer.toUnsignedString(s.gid());
            }
        }
        StringBuilder b = new StringBuilder(80);
        b.append(modeString(s.mode())).append(' ');
        String nl = Integer.toUnsignedString(s.nlink());
        for (int k = nl.length(); k < 3; k++) b.append(' ');
        b.append(nl).append(' ');
        b.append(user);
        for (int k = user.length(); k < 8; k++) b.append(' ');
        b.append(' ').append(group);
        for (int k = group.length(); k < 8; k++) b.append(' ');
        b.append(' ');
        String sz = Long.toUnsignedString(s.size());
        for (int k = sz.length(); k < 8; k++) b.append(' ');
        b.append(sz).append(' ');
        {
            LocalDateTime t = LocalDateTime.ofEpochSecond(s.mtime(), 0, offsetAt(s.mtime()));
            b.append(MONTHS[t.getMonthValue() - 1]).append(' ');
            if (t.getDayOfMonth() < 10) b.append(' ');
            b.append(t.getDayOfMonth()).append(' ');
            if (s.mtime() <= now && now - s.mtime() < (365L * 24 * 60 * 60) / 2) {
                if (t.getHour() < 10) b.append('0');
                b.append(t.getHour()).append(':');
                if (t.getMinute() < 10) b.append('0');
                b.append(t.getMinute());
            } else {
                b.append(' ').append(t.getYear());
            }
        }
        b.append(' ').append(name);
        return b.toString();
    }

    private ZoneOffset offsetAt(long epochSecond) {
        return zone.getOffset(java.time.Instant.ofEpochSecond(epochSecond));
    }

    private static String nameOf(Object principal, int id) {
        if (principal instanceof java.security.Principal pr && pr.getName() != null) return pr.getName();
        return Integer.toUnsignedString(id);
    }

    /** BSD strmode: type, nine permission letters with s/S/t/T, and a blank (11 characters). */
    static String modeString(int mode) {
        char[] c = new char[11];
        c[0] = switch (mode & 0170000) {
            case 0040000 -> 'd'; case 0020000 -> 'c'; case 0060000 -> 'b'; case 0100000 -> '-';
            case 0120000 -> 'l'; case 0140000 -> 's'; case 0010000 -> 'p'; default -> '?';
        };
        c[1] = (mode & 0400) != 0 ? 'r' : '-';
        c[2] = (mode & 0200) != 0 ? 'w' : '-';
        c[3] = x(mode & 0100, mode & 04000, 's', 'S');
        c[4] = (mode & 040) != 0 ? 'r' : '-';
        c[5] = (mode & 020) != 0 ? 'w' : '-';
        c[6] = x(mode & 010, mode & 02000, 's', 'S');
        c[7] = (mode & 04) != 0 ? 'r' : '-';
        c[8] = (mode & 02) != 0 ? 'w' : '-';
        c[9] = x(mode & 01, mode & 01000, 't', 'T');
        c[10] = ' ';
        return new String(c);
    }

    private static char x(int exec, int special, char set, char unset) {
        if (special != 0) return exec != 0 ? set : unset;
        return exec != 0 ? 'x' : '-';
    }

    private void remove(int id, Msg m) throws Malformed {
        String a = abs(m.path());
        log(L_INFO, "remove name \"" + a + "\"");
        try {
            Path p = path(a);
            Stat s = stat(p, NOFOLLOW);
            if ((s.mode() & 0170000) == 0040000) throw new FileSystemException(a, null, "Is a directory");
            Files.delete(p);
            status(id, OK);
        } catch (IOException e) {
            status(id, e);
        }
    }

    private void mkdir(int id, Msg m) throws Malformed {
        String a = abs(m.path());
        Attrs at = m.attrs();
        int mode = at.has(ATTR_PERMISSIONS) ? at.perm() & 07777 : 0777;
        log(L_INFO, "mkdir name \"" + a + "\" mode 0" + Integer.toOctalString(mode));
        try {
            Files.createDirectory(path(a), perms(mode));
            status(id, OK);
        } catch (IOException e) {
            status(id, e);
        }
    }

    private void rmdir(int id, Msg m) throws Malformed {
        String a = abs(m.path());
        log(L_INFO, "rmdir name \"" + a + "\"");
        try {
            Path p = path(a);
            Stat s = stat(p, NOFOLLOW);
            if ((s.mode() & 0170000) != 0040000) throw new NotDirectoryException(a);
            Files.delete(p);
            status(id, OK);
        } catch (IOException e) {
            status(id, e);
        }
    }

    private void realpathRequest(int id, Msg m) throws Malformed {
        String p = m.path();
        if (p.isEmpty()) p = ".";
        log(L_VERBOSE, "realpath \"" + p + "\"");
        try {
            nameReply(id, realpath(p));
        } catch (IOException e) {
            status(id, e);
        }
    }

    private void rename(int id, Msg m) throws Malformed {
        String from = abs(m.path());
        String to = abs(m.path());
        log(L_INFO, "rename old \"" + from + "\" new \"" + to + "\"");
        try {
            Path f = path(from), t = path(to);
            Stat s = stat(f, NOFOLLOW);
            if ((s.mode() & 0170000) == 0100000) {
                // sftp-server: link then unlink, so an existing target is never replaced
                try {
                    Files.createLink(t, f);
                } catch (FileAlreadyExistsException e) {
                    throw e;
                } catch (IOException e) {
                    if (errorCode(e) != FAILURE && errorCode(e) != PERMISSION_DENIED) throw e;
                    if (exists(t)) { status(id, FAILURE); return; }
                    Files.move(f, t, StandardCopyOption.ATOMIC_MOVE);
                    status(id, OK);
                    return;
                }
                try {
                    Files.delete(f);
                } catch (IOException e) {
                    try { Files.delete(t); } catch (IOException ignored) { /* as sftp-server: best effort */ }
                    throw e;
                }
                status(id, OK);
            } else {
                if (exists(t)) { status(id, FAILURE); return; }
                Files.move(f, t, StandardCopyOption.ATOMIC_MOVE);
                status(id, OK);
            }
        } catch (IOException e) {
            status(id, e);
        }
    }

    private static boolean exists(Path p) {
        return Files.exists(p, NOFOLLOW);
    }

    private void readlink(int id, Msg m) throws Malformed {
        String a = abs(m.path());
        log(L_VERBOSE, "readlink \"" + a + "\"");
        try {
            nameReply(id, Files.readSymbolicLink(path(a)).toString());
        } catch (IOException e) {
            status(id, e);
        }
    }

    private void symlink(int id, Msg m) throws Malformed {
        // OpenSSH's order: target (the link's contents, stored as sent), then the link's path
        String target = m.path();
        String link = abs(m.path());
        log(L_INFO, "symlink old \"" + target + "\" new \"" + link + "\"");
        try {
            if (target.isEmpty() || target.indexOf('\0') >= 0) throw new NoSuchFileException(target);
            Files.createSymbolicLink(path(link), Path.of(target));
            status(id, OK);
        } catch (IOException e) {
            status(id, e);
        } catch (RuntimeException e) {
            status(id, FAILURE);
        }
    }

    // ---------------------------------------------------------------- extensions

    private void extended(int id, Msg m) throws Malformed {
        String req = m.str();
        String shortName = null;
        for (String[] e : EXTENSIONS) if (e[0].equals(req)) shortName = e[1];
        if (shortName == null) {
            log(L_ERROR, "Unknown extended request \"" + req + "\"");
            status(id, OP_UNSUPPORTED);
            return;
        }
        if (!permitted(shortName, true)) {
            status(id, PERMISSION_DENIED);
            return;
        }
        int mark = out.len;
        try {
            switch (shortName) {
                case "posix-rename" -> posixRename(id, m);
                case "statvfs" -> statvfs(id, abs(m.path()));
                case "fstatvfs" -> {
                    Handle h = handle(m.handle(), true);
                    if (h == null) status(id, FAILURE); else statvfs(id, h.path);
                }
                case "hardlink" -> hardlink(id, m);
                case "fsync" -> fsync(id, m);
                case "lsetstat" -> setstat(id, m.path(), m.attrs(), NOFOLLOW);
                case "limits" -> limits(id);
                case "expand-path" -> expandPath(id, m);
                case "copy-data" -> copyData(id, m);
                case "home-directory" -> homeDirectory(id, m);
                case "users-groups-by-id" -> usersGroups(id, m);
                default -> status(id, OP_UNSUPPORTED);
            }
        } catch (Malformed e) {
            throw new Malformed("process_extended_" + shortName.replace('-', '_') + ": parse: " + e.getMessage());
        }
        catch (RuntimeException e) {
            log(L_ERROR, shortName + ": " + e);
            out.len = mark;
            status(id, FAILURE);
        }
    }

    private void posixRename(int id, Msg m) throws Malformed {
        String from = abs(m.path()), to = abs(m.path());
        log(L_INFO, "posix-rename old \"" + from + "\" new \"" + to + "\"");
        try {
            Files.move(path(from), path(to), StandardCopyOption.ATOMIC_MOVE);
            status(id, OK);
        } catch (AtomicMoveNotSupportedException e) {
            status(id, FAILURE); // EXDEV
        } catch (IOException e) {
            status(id, e);
        }
    }

    private void hardlink(int id, Msg m) throws Malformed {
        String from = abs(m.path()), to = abs(m.path());
        log(L_INFO, "hardlink old \"" + from + "\" new \"" + to + "\"");
        try {
            Files.createLink(path(to), path(from));
            status(id, OK);
        } catch (IOException e) {
            status(id, e);
        }
    }

    private void fsync(int id, Msg m) throws Malformed {
        Handle h = fileHandle(m.handle());
        if (h == null) { status(id, FAILURE); return; }
        log(L_INFO, "fsync \"" + h.path + "\"");
        try {
            h.channel.force(true);
            status(id, OK);
        } catch (IOException e) {
            status(id, e);
        }
    }

    private void statvfs(int id, String a) {
        log(L_INFO, "statvfs \"" + a + "\"");
        try {
            long[] v = Native.statvfs(path(a).toString());
            out.begin(EXTENDED_REPLY);
            out.u32(id);
            for (long x : v) out.u64(x);
            out.end();
        } catch (IOException e) {
            status(id, e);
        }
    }

    private void limits(int id) {
        out.begin(EXTENDED_REPLY);
        out.u32(id);
        out.u64(MAX_MESSAGE);
        out.u64(MAX_READ);
        out.u64(MAX_READ);
        out.u64(MAX_HANDLES);
        out.end();
    }

    private void expandPath(int id, Msg m) throws Malformed {
        String p = m.path();
        log(L_DEBUG3, "request " + Integer.toUnsignedString(id) + ": expand, original \"" + p + "\"");
        if (p.isEmpty()) p = ".";
        if (p.equals("~")) p = ".";
        else if (p.startsWith("~/")) p = p.substring(2);
        else if (p.startsWith("~")) {
            int slash = p.indexOf('/');
            String who = slash < 0 ? p.substring(1) : p.substring(1, slash);
            String dir = who.equals(options.user()) ? options.home() : SftpServerOptions.passwdHome(who);
            if (dir == null) { status(id, NO_SUCH_FILE, "no such user"); return; }
            p = slash < 0 ? dir : dir + p.substring(slash);
        }
        try {
            String r = realpath(p);
            log(L_VERBOSE, "expand \"" + r + "\"");
            nameReply(id, r);
        } catch (IOException e) {
            status(id, e);
        }
    }

    private void copyData(int id, Msg m) throws Malformed {
        Handle r = fileHandle(m.handle());
        long roff = m.u64();
        long rlen = m.u64();
        Handle w = fileHandle(m.handle());
        long woff = m.u64();
        if (r == null || w == null) { status(id, FAILURE); return; }
        if ((w.pflags & FXF_WRITE) == 0 || ((r.pflags & FXF_READ) == 0 && (r.pflags & FXF_WRITE) != 0)) {
            status(id, NO_SUCH_FILE); // sftp-server: EBADF from the descriptor's access mode
            return;
        }
        if (r == w && (rlen == 0 || (roff < woff + (rlen) && woff < roff + rlen))) {
            status(id, FAILURE); // overlapping copy within one file
            return;
        }
        log(L_INFO, "copy-data from \"" + r.path + "\" to \"" + w.path + "\"");
        try {
            ByteBuffer bb = ByteBuffer.allocate(64 * 1024);
            long left = rlen == 0 ? Long.MAX_VALUE : rlen;
            long rp = roff, wp = woff;
            while (left > 0) {
                bb.clear();
                if (left < bb.capacity()) bb.limit((int) left);
                int n = r.channel.read(bb, rp);
                if (n <= 0) break;
                bb.flip();
                while (bb.hasRemaining()) wp += w.channel.write(bb, wp);
                rp += n;
                left -= n;
                r.bytesRead += n;
                w.bytesWritten += n;
            }
            status(id, OK);
        } catch (IOException e) {
            status(id, e);
        }
    }

    private void homeDirectory(int id, Msg m) throws Malformed {
        String who = m.str();
        String dir = who.equals(options.user()) ? options.home() : SftpServerOptions.passwdHome(who);
        log(L_DEBUG3, "request " + Integer.toUnsignedString(id) + ": home-directory \"" + who + "\"");
        if (dir == null) { status(id, FAILURE); return; }
        nameReply(id, dir);
    }

    private void usersGroups(int id, Msg m) throws Malformed {
        Msg uids = new Msg(m.bytes());
        Msg gids = new Msg(m.bytes());
        Map<Integer, String> users = idNames("/etc/passwd");
        Map<Integer, String> groups = idNames("/etc/group");
        int mark = out.len;
        out.begin(EXTENDED_REPLY);
        out.u32(id);
        int at = out.beginString();
        while (uids.left() >= 4) { int u = uids.u32(); out.str(users.getOrDefault(u, known(userNames.get(u), u))); }
        out.endString(at);
        at = out.beginString();
        while (gids.left() >= 4) { int g = gids.u32(); out.str(groups.getOrDefault(g, known(groupNames.get(g), g))); }
        out.endString(at);
        if (out.len - mark - 4 > MAX_MESSAGE) {
            out.len = mark; // a reply the client would refuse as too long
            status(id, FAILURE);
            return;
        }
        out.end();
    }

    /** A name the JDK looked up for a listing, "" when it had only the number (no such user). */
    private static String known(String name, int id) {
        return name == null || name.equals(Integer.toUnsignedString(id)) ? "" : name;
    }

    /** id → name from a passwd or group file (the JDK has no getpwuid); empty when unreadable (a bare chroot). */
    static Map<Integer, String> idNames(String file) {
        Map<Integer, String> r = new HashMap<>();
        try {
            for (String line : Files.readAllLines(Path.of(file), StandardCharsets.UTF_8)) {
                String[] f = line.split(":", -1);
                if (f.length >= 3) {
                    try { r.putIfAbsent(Integer.parseUnsignedInt(f[2]), f[0]); } catch (NumberFormatException ignored) { }
                }
            }
        } catch (IOException | RuntimeException e) {
            // none
        }
        return r;
    }

    // ---------------------------------------------------------------- wire format

    /** One message being parsed. */
    static final class Msg {
        final byte[] b;
        final int end;
        int pos;

        Msg(byte[] b, int len) { this.b = b; this.end = len; }

        Msg(byte[] b) { this(b, b.length); }

        int left() { return end - pos; }

        private void need(int n) throws Malformed {
            if (n < 0 || end - pos < n) throw new Malformed("incomplete message");
        }

        int u8() throws Malformed { need(1); return b[pos++] & 0xff; }

        int u32() throws Malformed {
            need(4);
            int v = ((b[pos] & 0xff) << 24) | ((b[pos + 1] & 0xff) << 16) | ((b[pos + 2] & 0xff) << 8) | (b[pos + 3] & 0xff);
            pos += 4;
            return v;
        }

        long u64() throws Malformed { return ((long) u32() << 32) | (u32() & 0xffffffffL); }

        /** Skips n bytes, returning where they start. */
        int take(int n) throws Malformed { need(n); int p = pos; pos += n; return p; }

        byte[] bytes() throws Malformed {
            int n = u32();
            int p = take(n);
            byte[] r = new byte[n];
            System.arraycopy(b, p, r, 0, n);
            return r;
        }

        String str() throws Malformed {
            int n = u32();
            int p = take(n);
            return new String(b, p, n, StandardCharsets.UTF_8);
        }

        String path() throws Malformed { return str(); }

        byte[] handle() throws Malformed {
            int n = u32();
            int p = take(n);
            if (n > 256) return new byte[0];
            byte[] r = new byte[n];
            System.arraycopy(b, p, r, 0, n);
            return r;
        }

        Attrs attrs() throws Malformed {
            int flags = u32();
            long size = 0, at = 0, mt = 0;
            int uid = -1, gid = -1, perm = 0;
            if ((flags & ATTR_SIZE) != 0) size = u64();
            if ((flags & ATTR_UIDGID) != 0) { uid = u32(); gid = u32(); }
            if ((flags & ATTR_PERMISSIONS) != 0) perm = u32();
            if ((flags & ATTR_ACMODTIME) != 0) { at = u32() & 0xffffffffL; mt = u32() & 0xffffffffL; }
            if ((flags & ATTR_EXTENDED) != 0) {
                int n = u32();
                for (int i = 0; i < n; i++) { str(); str(); }
            }
            return new Attrs(flags, size, uid, gid, perm, at, mt);
        }
    }

    /** The reply being built (one or more packets), written to the stream after each request. */
    static final class Out {
        byte[] buf = new byte[MAX_MESSAGE + 1024];
        int len;
        private int start;

        void ensure(int n) {
            if (len + n > buf.length) {
                byte[] nb = new byte[Math.max(buf.length * 2, len + n)];
                System.arraycopy(buf, 0, nb, 0, len);
                buf = nb;
            }
        }

        void begin(int type) {
            start = len;
            ensure(5);
            len += 4;
            buf[len++] = (byte) type;
        }

        void end() { putU32At(start, len - start - 4); }

        /** Starts a DATA reply with room for n bytes; returns where the data goes. */
        int beginData(int id, int n) {
            begin(DATA);
            u32(id);
            ensure(4 + n);
            len += 4;
            return len;
        }

        void endData(int n) {
            putU32At(len - 4, n);
            len += n;
            end();
        }

        void cancel() { len = start; }

        void u32(int v) {
            ensure(4);
            putU32At(len, v);
            len += 4;
        }

        void putU32At(int at, int v) {
            buf[at] = (byte) (v >>> 24);
            buf[at + 1] = (byte) (v >>> 16);
            buf[at + 2] = (byte) (v >>> 8);
            buf[at + 3] = (byte) v;
        }

        void u64(long v) { u32((int) (v >>> 32)); u32((int) v); }

        void str(String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            u32(b.length);
            ensure(b.length);
            System.arraycopy(b, 0, buf, len, b.length);
            len += b.length;
        }

        void u8s(byte[] b) {
            ensure(b.length);
            System.arraycopy(b, 0, buf, len, b.length);
            len += b.length;
        }

        int beginString() { int at = len; u32(0); return at; }

        void endString(int at) { putU32At(at, len - at - 4); }
    }

    // ---------------------------------------------------------------- native (FFM, JDK only)

    /** statvfs(3) and umask(2) through the FFM API (java.lang.foreign). */
    static final class Native {
        private static final Linker LINKER = Linker.nativeLinker();
        private static final MethodHandle STATVFS;
        private static final MethodHandle UMASK;
        private static final VarHandle ERRNO;
        private static final long STATE_SIZE;

        static {
            Linker.Option ccs = Linker.Option.captureCallState("errno");
            var lookup = LINKER.defaultLookup();
            STATVFS = LINKER.downcallHandle(lookup.find("statvfs").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS), ccs);
            UMASK = LINKER.downcallHandle(lookup.find("umask").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
            var layout = Linker.Option.captureStateLayout();
            ERRNO = layout.varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
            STATE_SIZE = layout.byteSize();
        }

        static int umask(int mask) {
            try {
                return (int) UMASK.invokeExact(mask);
            } catch (Throwable t) {
                throw new IllegalStateException("umask", t);
            }
        }

        /** The 11 fields of statvfs@openssh.com's reply, in its order. */
        static long[] statvfs(String path) throws IOException {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = arena.allocate(STATE_SIZE);
                MemorySegment buf = arena.allocate(256, 8);
                int r = (int) STATVFS.invokeExact(state, arena.allocateFrom(path), buf);
                if (r != 0) {
                    int errno = (int) ERRNO.get(state, 0L);
                    throw switch (errno) {
                        case 2 -> new NoSuchFileException(path);
                        case 13 -> new AccessDeniedException(path);
                        case 20 -> new NotDirectoryException(path);
                        case 40 -> new FileSystemLoopException(path);
                        default -> new FileSystemException(path, null, "errno " + errno);
                    };
                }
                // glibc's struct statvfs on 64-bit Linux: 11 unsigned longs (f_bsize .. f_namemax) then spare ints
                long[] v = new long[11];
                for (int i = 0; i < 11; i++) v[i] = buf.get(ValueLayout.JAVA_LONG, i * 8L);
                long flag = v[9];
                v[9] = (flag & 1) | (flag & 2); // ST_RDONLY, ST_NOSUID: SSH2_FXE_STATVFS_ST_RDONLY/NOSUID
                return v;
            } catch (IOException e) {
                throw e;
            } catch (Throwable t) {
                throw new FileSystemException(path, null, "statvfs: " + t);
            }
        }
    }

    // ---------------------------------------------------------------- before a chroot

    /**
     * Loads every class of this package and the JDK classes the serving path needs (file channels, directory
     * streams, unix attribute views, the exceptions for each errno, FFM downcalls, the time zone's rules), by
     * serving a short read-only session on {@code /} in memory. Call it before chroot: afterwards the JVM can open
     * neither its jars nor its lib files.
     */
    public static void preloadClasses() {
        String[] names = {
                "java.nio.file.AccessDeniedException", "java.nio.file.FileAlreadyExistsException",
                "java.nio.file.DirectoryNotEmptyException", "java.nio.file.NotDirectoryException",
                "java.nio.file.NotLinkException", "java.nio.file.FileSystemLoopException",
                "java.nio.file.AtomicMoveNotSupportedException", "java.nio.file.NoSuchFileException",
                "java.nio.file.DirectoryIteratorException", "java.nio.channels.ClosedChannelException",
                "java.io.EOFException", "java.nio.file.attribute.PosixFilePermissions",
                "sun.nio.fs.UnixFileAttributeViews$Unix", "sun.nio.fs.UnixFileAttributeViews$Posix",
                "sun.nio.fs.UnixFileAttributeViews$Basic", "sun.nio.fs.UnixUserPrincipals",
                "sun.nio.fs.UnixUserPrincipals$User", "sun.nio.fs.UnixUserPrincipals$Group",
                "sun.nio.fs.UnixSecureDirectoryStream", "sun.nio.fs.UnixDirectoryStream",
                "sun.nio.fs.UnixDirectoryStream$UnixDirectoryIterator", "sun.nio.fs.UnixCopyFile",
                "sun.nio.ch.FileChannelImpl", "sun.nio.ch.FileDispatcherImpl", "sun.nio.ch.IOUtil",
        };
        ClassLoader cl = SftpFileServer.class.getClassLoader();
        for (String n : names) {
            try {
                Class.forName(n, true, cl);
            } catch (ClassNotFoundException | LinkageError e) {
                // an internal class renamed in another JDK: the warm-up session below still loads what it uses
            }
        }
        for (Class<?> c : SftpFileServer.class.getDeclaredClasses()) init(c);
        init(SftpServerOptions.class);
        init(SftpFileServerMain.class);
        ZoneId.systemDefault().getRules().getOffset(java.time.Instant.now());
        // Runtime.exit logs through this logger (JDK 17+); configured lazily, it would read the JDK's files
        System.getLogger("java.lang.Runtime").isLoggable(System.Logger.Level.DEBUG);
        Native.umask(Native.umask(022));
        try {
            Native.statvfs("/");
        } catch (IOException ignored) {
            // loaded anyway
        }
        warmUp();
    }

    private static void init(Class<?> c) {
        try {
            Class.forName(c.getName(), true, c.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A read-only session in memory: INIT, realpath, stat, lstat, listing of "/", reading a file, errors. */
    private static void warmUp() {
        ByteArrayOutputStream req = new ByteArrayOutputStream();
        Out o = new Out();
        o.begin(INIT); o.u32(3); o.end();
        o.begin(REALPATH); o.u32(1); o.str("."); o.end();
        o.begin(STAT); o.u32(2); o.str("/"); o.end();
        o.begin(LSTAT); o.u32(3); o.str("/nonexistent-" + System.nanoTime()); o.end();
        o.begin(OPENDIR); o.u32(4); o.str("/"); o.end();
        o.begin(READDIR); o.u32(5); o.u32(4); o.u32(0); o.end();
        o.begin(READDIR); o.u32(6); o.u32(4); o.u32(0); o.end();
        o.begin(CLOSE); o.u32(7); o.u32(4); o.u32(0); o.end();
        o.begin(OPEN); o.u32(8); o.str("/proc/self/stat"); o.u32(FXF_READ); o.u32(0); o.end();
        o.begin(READ); o.u32(9); o.u32(4); o.u32(0); o.u64(0); o.u32(100); o.end();
        o.begin(FSTAT); o.u32(10); o.u32(4); o.u32(0); o.end();
        o.begin(CLOSE); o.u32(11); o.u32(4); o.u32(0); o.end();
        o.begin(EXTENDED); o.u32(12); o.str("limits@openssh.com"); o.end();
        o.begin(EXTENDED); o.u32(13); o.str("statvfs@openssh.com"); o.str("/"); o.end();
        o.begin(EXTENDED); o.u32(14); o.str("expand-path@openssh.com"); o.str("~"); o.end();
        o.begin(MKDIR); o.u32(15); o.str("/"); o.u32(0); o.end(); // refused: read-only
        o.begin(99); o.u32(16); o.end();
        req.write(o.buf, 0, o.len);
        // the writing paths, on /dev/null and on names that do not exist (nothing is created or changed)
        Out w = new Out();
        String missing = "/nonexistent-" + System.nanoTime();
        w.begin(INIT); w.u32(3); w.end();
        w.begin(OPEN); w.u32(1); w.str("/dev/null"); w.u32(FXF_READ | FXF_WRITE); w.u32(0); w.end();
        w.begin(WRITE); w.u32(2); w.u32(4); w.u32(0); w.u64(0); w.u32(3); w.u8s(new byte[3]); w.end();
        w.begin(READ); w.u32(3); w.u32(4); w.u32(0); w.u64(0); w.u32(10); w.end();
        w.begin(FSETSTAT); w.u32(4); w.u32(4); w.u32(0); w.u32(0); w.end();
        w.begin(CLOSE); w.u32(5); w.u32(4); w.u32(0); w.end();
        w.begin(OPEN); w.u32(6); w.str(missing + "/x"); w.u32(FXF_WRITE | FXF_CREAT | FXF_TRUNC);
        w.u32(ATTR_PERMISSIONS); w.u32(0600); w.end();
        w.begin(MKDIR); w.u32(7); w.str(missing + "/x"); w.u32(0); w.end();
        w.begin(REMOVE); w.u32(8); w.str(missing); w.end();
        w.begin(RMDIR); w.u32(9); w.str(missing); w.end();
        w.begin(RENAME); w.u32(10); w.str(missing); w.str(missing + "-2"); w.end();
        w.begin(SYMLINK); w.u32(11); w.str("x"); w.str(missing + "/x"); w.end();
        w.begin(SETSTAT); w.u32(12); w.str(missing); w.u32(ATTR_PERMISSIONS | ATTR_ACMODTIME | ATTR_UIDGID | ATTR_SIZE);
        w.u64(0); w.u32(0); w.u32(0); w.u32(0600); w.u32(0); w.u32(0); w.end();
        w.begin(READLINK); w.u32(13); w.str(missing); w.end();
        w.begin(EXTENDED); w.u32(14); w.str("posix-rename@openssh.com"); w.str(missing); w.str(missing + "-2"); w.end();
        w.begin(EXTENDED); w.u32(15); w.str("hardlink@openssh.com"); w.str(missing); w.str(missing + "-2"); w.end();
        w.begin(EXTENDED); w.u32(16); w.str("users-groups-by-id@openssh.com"); w.u32(4); w.u32(0); w.u32(4); w.u32(0);
        w.end();
        w.begin(EXTENDED); w.u32(17); w.str("home-directory"); w.str("root"); w.end();
        try {
            new SftpFileServer(SftpServerOptions.defaults("root", "/").withReadOnly(true))
                    .serve(new ByteArrayInputStream(req.toByteArray()), new ByteArrayOutputStream());
            new SftpFileServer(SftpServerOptions.defaults("root", "/"))
                    .serve(new ByteArrayInputStream(w.buf, 0, w.len), new ByteArrayOutputStream());
        } catch (IOException e) {
            throw new IllegalStateException("SFTP warm-up failed", e);
        }
        try {
            throw new EOFException();
        } catch (EOFException ignored) {
            // loaded
        }
    }
}
