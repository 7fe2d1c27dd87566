package io.pqssh.inventory.scan;

import java.util.Arrays;

/**
 * Recognises a ZGrab2 {@code server_key_exchange} object seen before from its bytes, before the JSON parser splits
 * its name lists into strings: the key is the exact text of the members the reader uses (the ten name lists and
 * {@code first_kex_follows}; the per-connection {@code cookie} and the other members are not part of it), and the
 * value is the {@link KexCache.Entry} (parsed and classified KEXINIT) that text gave. Bounded and direct-mapped: a
 * slot holds the last text that hashed to it; texts over {@value #MAX_KEY} bytes are not kept.
 *
 * <p>Only a strict subset of JSON is recognised: members named without escapes, names of printable ASCII without
 * escapes, lists as arrays of such strings or {@code null}, {@code first_kex_follows} as {@code true}/{@code false},
 * other members' values as such a string, {@code true}/{@code false}/{@code null} or an integer. Anything else
 * (escapes, non-ASCII bytes, nested values in other members, malformed text) is not recognised and the reader
 * parses the object as before, so a text that is recognised is one the JSON parser reads the same way; a result is
 * kept only after the parser read it without error.
 */
final class KexText {
    static final int SLOTS = 1 << 11;
    /** Longer texts are parsed every time (a typical OpenSSH offer is ~1.3 KB). */
    static final int MAX_KEY = 1 << 12;
    /** More used members than this (duplicates) are parsed every time. */
    private static final int MAX_MEMBERS = 16;
    private static final byte[][] USED = {
        name("kex_algorithms"), name("host_key_algorithms"), name("client_to_server_ciphers"),
        name("server_to_client_ciphers"), name("client_to_server_macs"), name("server_to_client_macs"),
        name("client_to_server_compression"), name("server_to_client_compression"),
        name("client_to_server_languages"), name("server_to_client_languages"), name("first_kex_follows"),
    };
    private static final int FOLLOWS = USED.length - 1;

    private final byte[][] keys = new byte[SLOTS][];
    private final int[] hashes = new int[SLOTS];
    private final KexCache.Entry[] entries = new KexCache.Entry[SLOTS];

    /** The last {@link #scan}: the used members' byte ranges, the text's hash, its length and end. */
    private final int[] from = new int[MAX_MEMBERS];
    private final int[] to = new int[MAX_MEMBERS];
    private int members;
    private int hash;
    private int keyLength;
    private int end;

    private static byte[] name(String s) {
        return ('"' + s + '"').getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    private static final byte[] MEMBER = name("server_key_exchange");

    /**
     * Reads the object that starts with the {@code '{'} at {@code at}, the value of a member named
     * {@code server_key_exchange} (checked, so that a wrong offset cannot read another object); returns false when
     * it is not in the recognised subset. After true, {@link #end()} is the index after its {@code '}'}.
     */
    boolean scan(byte[] b, int at, int limit) {
        members = 0;
        hash = 1;
        keyLength = 0;
        if (at < 0 || at >= limit || b[at] != '{' || !afterMemberName(b, at)) {
            return false;
        }
        int i = ws(b, at + 1, limit);
        if (i < limit && b[i] == '}') {
            end = i + 1;
            return true;
        }
        while (true) {
            int nameStart = i;
            i = string(b, i, limit);
            if (i < 0) {
                return false;
            }
            int used = used(b, nameStart, i);
            i = ws(b, i, limit);
            if (i >= limit || b[i] != ':') {
                return false;
            }
            i = ws(b, i + 1, limit);
            int valueStart = i;
            if (used < 0) {
                i = scalar(b, i, limit);
            } else if (used == FOLLOWS) {
                i = literal(b, i, limit, TRUE) ? i + 4 : literal(b, i, limit, FALSE) ? i + 5 : -1;
            } else {
                i = literal(b, i, limit, NULL) ? i + 4 : array(b, i, limit);
            }
            if (i < 0) {
                return false;
            }
            if (used >= 0) {
                if (members == MAX_MEMBERS) {
                    return false;
                }
                // the member's name and value: a name is quoted and a value self-delimiting, so concatenated
                // texts are equal only when the members are
                from[members] = nameStart;
                to[members] = i;
                members++;
                keyLength += i - nameStart;
                if (keyLength > MAX_KEY) {
                    return false;
                }
                hash = hash(hash, b, nameStart, i);
            }
            i = ws(b, i, limit);
            if (i >= limit) {
                return false;
            }
            if (b[i] == '}') {
                end = i + 1;
                return true;
            }
            if (b[i] != ',') {
                return false;
            }
            i = ws(b, i + 1, limit);
        }
    }

    private static final byte[] COMPACT = ("\"server_key_exchange\":{").getBytes(
            java.nio.charset.StandardCharsets.US_ASCII);

    /**
     * The index of the '{' of the first {@code "server_key_exchange":{} in {@code b[0, len)} (zgrab2 writes compact
     * JSON), or -1. It may be anywhere in the record; the reader uses what it finds only where its parser reads a
     * {@code server_key_exchange} object at that index.
     */
    static int objectAt(byte[] b, int len) {
        int last = len - COMPACT.length;
        for (int i = 0; i <= last; i++) {
            if (b[i] == '"' && b[i + 1] == 's' && b[i + 8] == 'k'
                    && Arrays.equals(COMPACT, 0, COMPACT.length, b, i, i + COMPACT.length)) {
                return i + COMPACT.length - 1;
            }
        }
        return -1;
    }

    /** Whether {@code "server_key_exchange" :} (spaces allowed) ends just before {@code at}. */
    private static boolean afterMemberName(byte[] b, int at) {
        int i = at - 1;
        while (i >= 0 && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')) {
            i--;
        }
        if (i < 0 || b[i] != ':') {
            return false;
        }
        i--;
        while (i >= 0 && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')) {
            i--;
        }
        int start = i + 1 - MEMBER.length;
        return start >= 0 && Arrays.equals(MEMBER, 0, MEMBER.length, b, start, i + 1);
    }

    /** The index after the object of the last successful {@link #scan}. */
    int end() {
        return end;
    }

    /** The entry kept for the last scanned text, or null. */
    KexCache.Entry find(byte[] b) {
        int slot = slot();
        byte[] k = keys[slot];
        if (k == null || hashes[slot] != hash || k.length != keyLength) {
            return null;
        }
        int p = 0;
        for (int m = 0; m < members; m++) {
            int n = to[m] - from[m];
            if (!Arrays.equals(k, p, p + n, b, from[m], to[m])) {
                return null;
            }
            p += n;
        }
        return entries[slot];
    }

    /** Keeps {@code e} for the last scanned text (which must still be in {@code b}). */
    void keep(byte[] b, KexCache.Entry e) {
        byte[] k = new byte[keyLength];
        int p = 0;
        for (int m = 0; m < members; m++) {
            System.arraycopy(b, from[m], k, p, to[m] - from[m]);
            p += to[m] - from[m];
        }
        int slot = slot();
        keys[slot] = k;
        hashes[slot] = hash;
        entries[slot] = e;
    }

    private int slot() {
        return (hash ^ (hash >>> 16)) & (SLOTS - 1);
    }

    private static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    /** A hash of {@code b[from, to)} eight bytes at a time (equal texts are compared in full after it). */
    private static int hash(int h, byte[] b, int from, int to) {
        long x = h;
        int i = from;
        for (; i + 8 <= to; i += 8) {
            x = x * 0x9E3779B97F4A7C15L + (long) LONGS.get(b, i);
        }
        for (; i < to; i++) {
            x = x * 31 + b[i];
        }
        return (int) (x ^ (x >>> 32));
    }

    private static int used(byte[] b, int from, int to) {
        int len = to - from;
        for (int u = 0; u < USED.length; u++) {
            if (USED[u].length == len && Arrays.equals(USED[u], 0, len, b, from, to)) {
                return u;
            }
        }
        return -1;
    }

    /** 1 for the bytes a recognised string holds as they are: printable ASCII but '"' and '\\'. */
    private static final byte[] PLAIN = new byte[256];

    static {
        for (int c = 0x20; c <= 0x7e; c++) {
            PLAIN[c] = (byte) (c == '"' || c == '\\' ? 0 : 1);
        }
    }

    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};

    private static boolean literal(byte[] b, int i, int limit, byte[] word) {
        int e = i + word.length;
        return e <= limit && Arrays.equals(word, 0, word.length, b, i, e) && (e == limit || !letterOrDigit(b[e]));
    }

    private static boolean letterOrDigit(byte c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    }

    private static int ws(byte[] b, int i, int limit) {
        while (i < limit && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')) {
            i++;
        }
        return i;
    }

    /** A string of printable ASCII without escapes starting at {@code i}: the index after it, or -1. */
    private static int string(byte[] b, int i, int limit) {
        if (i >= limit || b[i] != '"') {
            return -1;
        }
        for (i++; i < limit; i++) {
            byte c = b[i];
            if (PLAIN[c & 0xff] == 0) {
                return c == '"' ? i + 1 : -1;
            }
        }
        return -1;
    }

    /** An array of such strings: the index after it, or -1. */
    private static int array(byte[] b, int i, int limit) {
        if (i >= limit || b[i] != '[') {
            return -1;
        }
        i = ws(b, i + 1, limit);
        if (i < limit && b[i] == ']') {
            return i + 1;
        }
        while (true) {
            i = string(b, i, limit);
            if (i < 0) {
                return -1;
            }
            i = ws(b, i, limit);
            if (i >= limit) {
                return -1;
            }
            if (b[i] == ']') {
                return i + 1;
            }
            if (b[i] != ',') {
                return -1;
            }
            i = ws(b, i + 1, limit);
        }
    }

    /** Such a string, true, false, null or an integer without leading zeros: the index after it, or -1. */
    private static int scalar(byte[] b, int i, int limit) {
        if (i >= limit) {
            return -1;
        }
        byte c = b[i];
        if (c == '"') {
            return string(b, i, limit);
        }
        if (literal(b, i, limit, TRUE) || literal(b, i, limit, NULL)) {
            return i + 4;
        }
        if (literal(b, i, limit, FALSE)) {
            return i + 5;
        }
        int j = c == '-' ? i + 1 : i;
        if (j >= limit || b[j] < '0' || b[j] > '9') {
            return -1;
        }
        if (b[j] == '0') {
            j++;
        } else {
            while (j < limit && b[j] >= '0' && b[j] <= '9') {
                j++;
            }
        }
        // a fraction, an exponent or more digits after a leading zero: not recognised
        if (j < limit && (b[j] == '.' || b[j] == 'e' || b[j] == 'E' || (b[j] >= '0' && b[j] <= '9'))) {
            return -1;
        }
        return j - i > 18 ? -1 : j;
    }
}
