package io.pqssh.server.login;

import java.util.List;
import java.util.Optional;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.ptr.PointerByReference;

/**
 * glibc's {@code getpwnam_r(3)} and {@code getspnam_r(3)} through JNA (pqssh-mina is Java 17: no FFM), so a name
 * the files do not hold is asked of the other NSS sources in this process, as sshd does, instead of through a
 * {@code getent} process: that process made an unknown name's first request some milliseconds slower than a
 * real one's, which told names apart (bench/auth-timing.sh). The answers are rendered as {@code passwd(5)} and
 * {@code shadow(5)} lines, the form the rest of {@link SystemAccounts} reads.
 */
final class NameService {
    private static final int ERANGE = 34;
    private static final Libc LIBC = load();

    private NameService() {
    }

    /** Whether the C library could be bound; when not, callers fall back to {@code getent}. */
    static boolean available() {
        return LIBC != null;
    }

    /**
     * The entry for {@code name} in {@code database} ({@code passwd} or {@code shadow}); empty when NSS has none.
     * Throws {@link IllegalStateException} when the look-up itself failed (not "not found").
     */
    static Optional<String> lookup(String database, String name) {
        if (LIBC == null) {
            throw new IllegalStateException("libc not bound");
        }
        for (int size = 16 * 1024; size <= 1024 * 1024; size *= 4) {
            Memory buf = new Memory(size);
            PointerByReference result = new PointerByReference();
            int rc;
            String line = null;
            if ("passwd".equals(database)) {
                Passwd pw = new Passwd();
                rc = LIBC.getpwnam_r(name, pw, buf, new NativeLong(size), result);
                if (rc == 0 && result.getValue() != null) {
                    pw.read();
                    line = String.join(":", s(pw.pw_name), s(pw.pw_passwd), Integer.toUnsignedString(pw.pw_uid),
                            Integer.toUnsignedString(pw.pw_gid), s(pw.pw_gecos), s(pw.pw_dir), s(pw.pw_shell));
                }
            } else if ("shadow".equals(database)) {
                Spwd sp = new Spwd();
                rc = LIBC.getspnam_r(name, sp, buf, new NativeLong(size), result);
                if (rc == 0 && result.getValue() != null) {
                    sp.read();
                    line = String.join(":", s(sp.sp_namp), s(sp.sp_pwdp), n(sp.sp_lstchg), n(sp.sp_min),
                            n(sp.sp_max), n(sp.sp_warn), n(sp.sp_inact), n(sp.sp_expire), "");
                }
            } else {
                throw new IllegalArgumentException(database);
            }
            if (rc == ERANGE) {
                continue;
            }
            // rc != 0 other than ERANGE: ENOENT and friends mean "no entry" for these calls (glibc returns 0 and
            // a null result for a missing name, some NSS modules ENOENT); no reason to treat them differently
            return Optional.ofNullable(line);
        }
        throw new IllegalStateException(database + " entry for " + name + " larger than 1 MiB");
    }

    private static String s(String v) {
        return v == null ? "" : v;
    }

    /** shadow(5): -1 is an empty field. */
    private static String n(NativeLong v) {
        return v.longValue() == -1 ? "" : Long.toString(v.longValue());
    }

    private static Libc load() {
        try {
            return Native.load("c", Libc.class);
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            return null;
        }
    }

    interface Libc extends Library {
        int getpwnam_r(String name, Passwd pwd, Pointer buf, NativeLong buflen, PointerByReference result);

        int getspnam_r(String name, Spwd spbuf, Pointer buf, NativeLong buflen, PointerByReference result);
    }

    /** {@code struct passwd} (glibc, LP64). */
    public static final class Passwd extends Structure {
        public String pw_name;
        public String pw_passwd;
        public int pw_uid;
        public int pw_gid;
        public String pw_gecos;
        public String pw_dir;
        public String pw_shell;

        @Override
        protected List<String> getFieldOrder() {
            return List.of("pw_name", "pw_passwd", "pw_uid", "pw_gid", "pw_gecos", "pw_dir", "pw_shell");
        }
    }

    /** {@code struct spwd} (glibc, LP64). */
    public static final class Spwd extends Structure {
        public String sp_namp;
        public String sp_pwdp;
        public NativeLong sp_lstchg;
        public NativeLong sp_min;
        public NativeLong sp_max;
        public NativeLong sp_warn;
        public NativeLong sp_inact;
        public NativeLong sp_expire;
        public NativeLong sp_flag;

        @Override
        protected List<String> getFieldOrder() {
            return List.of("sp_namp", "sp_pwdp", "sp_lstchg", "sp_min", "sp_max", "sp_warn", "sp_inact",
                    "sp_expire", "sp_flag");
        }
    }
}
