package io.pqssh.server.login;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One PAM transaction ({@code pam_start} .. {@code pam_end}) of the system's Linux-PAM ({@code libpam.so.0}) through
 * FFM. Only the calls that act on the transaction and not on the calling process are offered here (start, items,
 * authenticate, acct_mgmt): session modules such as pam_loginuid, pam_limits, pam_systemd and pam_keyinit change
 * the process that calls {@code pam_open_session}, which in a JVM serving every connection would be the server
 * itself (docs/security.md, "PAM"). Calls on one transaction are serialized; the conversation runs on the thread
 * that called into PAM.
 */
public final class Pam implements AutoCloseable {
    public static final int SUCCESS = 0;
    public static final int PERM_DENIED = 6;
    public static final int AUTH_ERR = 7;
    public static final int USER_UNKNOWN = 10;
    public static final int NEW_AUTHTOK_REQD = 12;
    public static final int ACCT_EXPIRED = 13;
    public static final int CONV_ERR = 19;
    public static final int ABORT = 26;
    static final int ITEM_TTY = 3;
    static final int ITEM_RHOST = 4;
    static final int PROMPT_ECHO_OFF = 1;
    static final int PROMPT_ECHO_ON = 2;
    static final int ERROR_MSG = 3;
    static final int TEXT_INFO = 4;
    /** Linux-PAM's PAM_MAX_NUM_MSG: a module asking more in one call is refused. */
    private static final int MAX_MESSAGES = 32;
    private static final int PAM_MESSAGE_SIZE = 16;
    private static final int PAM_RESPONSE_SIZE = 16;

    /** One message of a conversation: a prompt ({@link #prompt()}) or a text to show. */
    public record Message(int style, String text) {
        public boolean prompt() {
            return style == PROMPT_ECHO_OFF || style == PROMPT_ECHO_ON;
        }

        public boolean echo() {
            return style == PROMPT_ECHO_ON;
        }

        public boolean error() {
            return style == ERROR_MSG;
        }
    }

    /** Answers a module's messages: one answer per message (null for a non-prompt), or null to abort. */
    @FunctionalInterface
    public interface Conversation {
        List<String> respond(List<Message> messages) throws Exception;
    }

    private static final Native NATIVE = Native.load();
    private static final Map<Long, Conversation> CONVERSATIONS = new ConcurrentHashMap<>();
    private static final AtomicLong IDS = new AtomicLong(1);

    private final Arena arena = Arena.ofShared();
    private final long id;
    private MemorySegment handle;
    private int last = SUCCESS;

    private Pam(long id) {
        this.id = id;
    }

    /** Whether libpam could be bound (Linux with Linux-PAM installed), or why not. */
    public static String unavailableReason() {
        return NATIVE.error;
    }

    /** {@code pam_start(service, user, conv)}. */
    public static Pam start(String service, String user, Conversation conversation) throws PamException {
        NATIVE.require();
        noNul(service);
        noNul(user);
        long id = IDS.getAndIncrement();
        Pam p = new Pam(id);
        CONVERSATIONS.put(id, conversation);
        try {
            MemorySegment conv = p.arena.allocate(16, 8);
            conv.set(ADDRESS, 0, NATIVE.upcall);
            conv.set(ADDRESS, 8, MemorySegment.ofAddress(id));
            MemorySegment out = p.arena.allocate(ADDRESS);
            int rc = (int) NATIVE.start.invokeExact(p.arena.allocateFrom(service), p.arena.allocateFrom(user), conv,
                    out);
            if (rc != SUCCESS) {
                throw new PamException("pam_start(" + service + "): error " + rc, rc);
            }
            p.handle = out.get(ADDRESS, 0);
            return p;
        } catch (PamException e) {
            p.release();
            throw e;
        } catch (Throwable t) {
            p.release();
            throw new PamException("pam_start: " + t, ABORT);
        }
    }

    /** {@code pam_set_item} of a string item (PAM copies it). */
    public synchronized void setItem(int item, String value) throws PamException {
        noNul(value);
        try (Arena a = Arena.ofConfined()) {
            int rc = (int) NATIVE.setItem.invokeExact(live(), item, a.allocateFrom(value));
            if (rc != SUCCESS) {
                throw new PamException("pam_set_item(" + item + "): " + error(rc), rc);
            }
        } catch (PamException e) {
            throw e;
        } catch (Throwable t) {
            throw new PamException("pam_set_item: " + t, ABORT);
        }
    }

    /** {@code pam_acct_mgmt(flags)}: PAM's code. */
    public synchronized int acctMgmt(int flags) {
        return call(NATIVE.acctMgmt, flags);
    }

    /** {@code pam_authenticate(flags)}: PAM's code (the conversation runs on this thread meanwhile). */
    public synchronized int authenticate(int flags) {
        return call(NATIVE.authenticate, flags);
    }

    private int call(MethodHandle h, int flags) {
        try {
            last = (int) h.invokeExact(live(), flags);
        } catch (Throwable t) {
            last = ABORT;
        }
        return last;
    }

    /** {@code pam_strerror}. */
    public synchronized String error(int rc) {
        try {
            MemorySegment s = (MemorySegment) NATIVE.strerror.invokeExact(live(), rc);
            return s.equals(MemorySegment.NULL) ? "PAM error " + rc : s.reinterpret(4096).getString(0);
        } catch (Throwable t) {
            return "PAM error " + rc;
        }
    }

    /** A C string ends at its first NUL: a Java string with one would reach PAM as another, shorter one. */
    private static void noNul(String s) throws PamException {
        if (s.indexOf('\0') >= 0) {
            throw new PamException("a PAM string with a NUL byte is refused", ABORT);
        }
    }

    private MemorySegment live() {
        if (handle == null) {
            throw new IllegalStateException("PAM transaction already ended");
        }
        return handle;
    }

    /** {@code pam_end} with the last call's status. */
    @Override
    public synchronized void close() {
        if (handle != null) {
            try {
                int ignored = (int) NATIVE.end.invokeExact(handle, last);
            } catch (Throwable t) {
                // nothing more to free
            }
            handle = null;
            release();
        }
    }

    private void release() {
        CONVERSATIONS.remove(id);
        arena.close();
    }

    /**
     * The conversation function PAM calls: its messages to the {@link Conversation} registered under appdata's id,
     * the answers back in {@code malloc}ed memory, which PAM frees. Nothing may be thrown through native frames.
     */
    @SuppressWarnings("unused")
    private static int converse(int count, MemorySegment messages, MemorySegment responses, MemorySegment appdata) {
        try {
            Conversation c = CONVERSATIONS.get(appdata.address());
            if (c == null || count <= 0 || count > MAX_MESSAGES) {
                return CONV_ERR;
            }
            MemorySegment array = messages.reinterpret(count * ADDRESS.byteSize());
            List<Message> list = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                MemorySegment m = array.getAtIndex(ADDRESS, i).reinterpret(PAM_MESSAGE_SIZE);
                MemorySegment text = m.get(ADDRESS, 8);
                list.add(new Message(m.get(JAVA_INT, 0),
                        text.equals(MemorySegment.NULL) ? "" : text.reinterpret(64 * 1024).getString(0)));
            }
            List<String> answers = c.respond(List.copyOf(list));
            if (answers == null || answers.size() != count) {
                return CONV_ERR;
            }
            MemorySegment out = (MemorySegment) NATIVE.calloc.invokeExact((long) count, (long) PAM_RESPONSE_SIZE);
            if (out.equals(MemorySegment.NULL)) {
                return CONV_ERR;
            }
            out = out.reinterpret((long) count * PAM_RESPONSE_SIZE);
            for (int i = 0; i < count; i++) {
                String a = answers.get(i);
                if (a != null) {
                    byte[] b = a.getBytes(StandardCharsets.UTF_8);
                    MemorySegment s = (MemorySegment) NATIVE.calloc.invokeExact((long) b.length + 1, 1L);
                    if (!s.equals(MemorySegment.NULL)) {
                        MemorySegment.copy(MemorySegment.ofArray(b), 0, s.reinterpret(b.length + 1L), 0, b.length);
                        java.util.Arrays.fill(b, (byte) 0);
                    }
                    out.set(ADDRESS, (long) i * PAM_RESPONSE_SIZE, s);
                }
            }
            responses.reinterpret(ADDRESS.byteSize()).set(ADDRESS, 0, out);
            return SUCCESS;
        } catch (Throwable t) {
            return CONV_ERR;
        }
    }

    /** The bound functions, or why there are none. */
    private static final class Native {
        final String error;
        MethodHandle start;
        MethodHandle end;
        MethodHandle setItem;
        MethodHandle acctMgmt;
        MethodHandle authenticate;
        MethodHandle strerror;
        MethodHandle calloc;
        MemorySegment upcall;

        private Native(String error) {
            this.error = error;
        }

        static Native load() {
            if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
                return new Native("PAM is supported on Linux only");
            }
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup pam = SymbolLookup.libraryLookup("libpam.so.0", Arena.global());
                SymbolLookup libc = linker.defaultLookup();
                Native n = new Native(null);
                n.start = linker.downcallHandle(pam.findOrThrow("pam_start"),
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
                n.end = linker.downcallHandle(pam.findOrThrow("pam_end"),
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
                n.setItem = linker.downcallHandle(pam.findOrThrow("pam_set_item"),
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
                n.acctMgmt = linker.downcallHandle(pam.findOrThrow("pam_acct_mgmt"),
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
                n.authenticate = linker.downcallHandle(pam.findOrThrow("pam_authenticate"),
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
                n.strerror = linker.downcallHandle(pam.findOrThrow("pam_strerror"),
                        FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
                n.calloc = linker.downcallHandle(libc.findOrThrow("calloc"),
                        FunctionDescriptor.of(ADDRESS, JAVA_LONG, JAVA_LONG));
                MethodHandle target = MethodHandles.lookup().findStatic(Pam.class, "converse",
                        MethodType.methodType(int.class, int.class, MemorySegment.class, MemorySegment.class,
                                MemorySegment.class));
                n.upcall = linker.upcallStub(target,
                        FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS), Arena.global());
                return n;
            } catch (Throwable t) {
                return new Native("cannot use the system's PAM library libpam.so.0 (" + t.getMessage()
                        + "; Debian: libpam0g)");
            }
        }

        void require() throws PamException {
            if (error != null) {
                throw new PamException(error, ABORT);
            }
        }
    }

    /** A PAM call that failed, with PAM's code. */
    public static final class PamException extends Exception {
        private static final long serialVersionUID = 1L;
        private final int code;

        public PamException(String message, int code) {
            super(message);
            this.code = code;
        }

        public int code() {
            return code;
        }
    }
}
