package io.pqssh.server.daemon;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.server.session.LoginRecords;

/**
 * Login accounting as sshd's {@code loginrec.c} does it on Linux: utmp through glibc's {@code setutxent},
 * {@code pututxline}, {@code endutxent} (so {@code who} sees the session until it ends), wtmp through
 * {@code updwtmpx} (so {@code last} lists it with its logout), both through FFM, and lastlog
 * ({@code /var/log/lastlog}, one {@code struct lastlog} per uid) read for PrintLastLog and written at each login.
 * Records are glibc's x86_64 {@code struct utmpx} (384 bytes). A record that cannot be written is logged at DEBUG and
 * the session goes on, as with sshd (a container without {@code /run/utmp} has no utmp: glibc does not create it).
 */
public final class SystemLoginRecords implements LoginRecords {
    private static final Logger LOG = LoggerFactory.getLogger(SystemLoginRecords.class);
    static final Path WTMP = Path.of("/var/log/wtmp");
    static final Path LASTLOG = Path.of("/var/log/lastlog");

    // struct utmpx, glibc x86_64
    private static final int UTMPX_SIZE = 384;
    private static final short USER_PROCESS = 7;
    private static final short DEAD_PROCESS = 8;
    private static final int UT_PID = 4;
    private static final int UT_LINE = 8;
    private static final int UT_ID = 40;
    private static final int UT_USER = 44;
    private static final int UT_HOST = 76;
    private static final int UT_TV_SEC = 340;
    private static final int UT_TV_USEC = 344;
    private static final int UT_ADDR_V6 = 348;
    private static final int LINE_SIZE = 32;
    private static final int ID_SIZE = 4;
    private static final int USER_SIZE = 32;
    private static final int HOST_SIZE = 256;
    // struct lastlog: int32 ll_time, char ll_line[32], char ll_host[256]
    private static final int LASTLOG_SIZE = 4 + LINE_SIZE + HOST_SIZE;

    private static final Linker LINKER = Linker.nativeLinker();
    /** glibc's utmp functions keep one open file and position per process. */
    private static final Object UTMP_LOCK = new Object();

    private final Path wtmp;
    private final Path lastlog;

    public SystemLoginRecords() {
        this(WTMP, LASTLOG);
    }

    /** With other wtmp and lastlog files (tests; utmp is always glibc's). */
    SystemLoginRecords(Path wtmp, Path lastlog) {
        this.wtmp = wtmp;
        this.lastlog = lastlog;
    }

    @Override
    public void login(Entry e) {
        write(e, true);
        writeLastLog(e);
    }

    @Override
    public void logout(Entry e) {
        write(e, false);
    }

    @Override
    public Optional<LastLogin> lastLogin(int uid) {
        if (!Files.isRegularFile(lastlog)) {
            return Optional.empty();
        }
        try (FileChannel ch = FileChannel.open(lastlog, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(LASTLOG_SIZE).order(ByteOrder.nativeOrder());
            long at = Integer.toUnsignedLong(uid) * LASTLOG_SIZE;
            while (b.hasRemaining() && ch.read(b, at + b.position()) > 0) {
                // read the whole record or up to the end of the file
            }
            if (b.hasRemaining()) {
                return Optional.empty(); // past the end: never logged in
            }
            long time = Integer.toUnsignedLong(b.getInt(0));
            if (time == 0) {
                return Optional.empty();
            }
            return Optional.of(new LastLogin(Instant.ofEpochSecond(time), cString(b, 4, LINE_SIZE),
                    cString(b, 4 + LINE_SIZE, HOST_SIZE)));
        } catch (IOException e) {
            LOG.debug("lastlog {}: {}", lastlog, e.getMessage());
            return Optional.empty();
        }
    }

    /** sshd's {@code lastlog_write_entry}: only into an existing file (the login package creates it). */
    private void writeLastLog(Entry e) {
        if (!Files.isRegularFile(lastlog)) {
            return;
        }
        ByteBuffer b = ByteBuffer.allocate(LASTLOG_SIZE).order(ByteOrder.nativeOrder());
        b.putInt(0, (int) e.time().getEpochSecond());
        putCString(b, 4, LINE_SIZE, line(e.tty()));
        putCString(b, 4 + LINE_SIZE, HOST_SIZE, e.host());
        try (FileChannel ch = FileChannel.open(lastlog, StandardOpenOption.WRITE)) {
            long at = Integer.toUnsignedLong(e.uid()) * LASTLOG_SIZE;
            while (b.hasRemaining()) {
                ch.write(b, at + b.position());
            }
        } catch (IOException ex) {
            LOG.debug("lastlog {}: {}", lastlog, ex.getMessage());
        }
    }

    /** One utmpx record into utmp (replacing the line's entry) and appended to wtmp. */
    private void write(Entry e, boolean login) {
        ByteBuffer b = utmpx(e, login);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ut = a.allocate(UTMPX_SIZE, 8);
            ut.copyFrom(MemorySegment.ofBuffer(b));
            synchronized (UTMP_LOCK) {
                fn("setutxent", FunctionDescriptor.ofVoid()).invokeExact();
                MemorySegment r = (MemorySegment) fn("pututxline",
                        FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS)).invokeExact(ut);
                fn("endutxent", FunctionDescriptor.ofVoid()).invokeExact();
                if (r.equals(MemorySegment.NULL)) {
                    LOG.debug("pututxline: no utmp entry written for {} (no utmp file?)", e.tty());
                }
            }
            fn("updwtmpx", FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS))
                    .invokeExact(a.allocateFrom(wtmp.toString()), ut);
        } catch (Throwable t) {
            LOG.debug("utmp/wtmp record for {}: {}", e.tty(), t.toString());
        }
    }

    /** sshd's {@code construct_utmpx}; a logout keeps line, id, pid and user, and has no host. */
    static ByteBuffer utmpx(Entry e, boolean login) {
        ByteBuffer b = ByteBuffer.allocate(UTMPX_SIZE).order(ByteOrder.nativeOrder());
        b.putShort(0, login ? USER_PROCESS : DEAD_PROCESS);
        b.putInt(UT_PID, (int) e.pid());
        String line = line(e.tty());
        putCString(b, UT_LINE, LINE_SIZE, line);
        // sshd's line_abbrevname: the last four characters of the line ("pts/3" -> "ts/3")
        putCString(b, UT_ID, ID_SIZE, line.length() > ID_SIZE ? line.substring(line.length() - ID_SIZE) : line);
        putCString(b, UT_USER, USER_SIZE, e.user());
        b.putInt(UT_TV_SEC, (int) e.time().getEpochSecond());
        b.putInt(UT_TV_USEC, e.time().getNano() / 1000);
        if (login) {
            putCString(b, UT_HOST, HOST_SIZE, e.host());
            address(e.host()).ifPresent(addr -> {
                // ut_addr_v6: an IPv4 address in the first word, network order, as sshd's construct_utmpx
                for (int i = 0; i < addr.length; i++) {
                    b.put(UT_ADDR_V6 + i, addr[i]);
                }
            });
        }
        return b;
    }

    /** The terminal as utmp names it: without {@code /dev/}. */
    static String line(String tty) {
        return tty.startsWith("/dev/") ? tty.substring(5) : tty;
    }

    private static Optional<byte[]> address(String host) {
        if (host.isEmpty() || !(Character.isDigit(host.charAt(0)) || host.indexOf(':') >= 0)) {
            return Optional.empty();
        }
        try {
            return Optional.of(InetAddress.ofLiteral(host).getAddress());
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** As strncpy: cut at the field's size, NUL-padded, not necessarily NUL-terminated. */
    private static void putCString(ByteBuffer b, int at, int size, String s) {
        byte[] v = s.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < size; i++) {
            b.put(at + i, i < v.length ? v[i] : 0);
        }
    }

    private static String cString(ByteBuffer b, int at, int size) {
        int n = 0;
        while (n < size && b.get(at + n) != 0) {
            n++;
        }
        byte[] v = new byte[n];
        b.get(at, v);
        return new String(v, StandardCharsets.UTF_8);
    }

    private static MethodHandle fn(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), d);
    }
}
