package io.pqssh.lab.handshake;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Where the bytes of a login go, from the TCP byte streams the emulator reassembled: the version line and the
 * plaintext binary packets up to and including NEWKEYS are dissected by message type; everything after NEWKEYS is
 * encrypted and split by the client's auth-success time into "to auth" (service request, EXT_INFO, userauth
 * exchange) and "after auth" (channel, `true`, close). Sizes are TCP payload bytes (packet length field, padding
 * and MAC included; TCP/IP headers not).
 */
public final class SshWire {
    /** Column names, c2s then s2c: version, KEXINIT, KEX init (30), KEX reply (31), NEWKEYS, other, encrypted. */
    public static final List<String> PARTS = List.of("version", "kexinit", "kex_init", "kex_reply", "newkeys",
            "other_plain", "enc_to_auth", "enc_after_auth");

    private SshWire() {
    }

    /**
     * Dissects one direction: returns byte counts in {@link #PARTS} order.
     *
     * @param stream       the reassembled stream (may be truncated)
     * @param payloadToAuth TCP payload bytes of this direction up to auth success
     * @param payloadTotal  TCP payload bytes of this direction in total
     */
    public static long[] dissect(byte[] stream, long payloadToAuth, long payloadTotal) {
        long[] r = new long[PARTS.size()];
        int i = 0;
        // version exchange: lines up to and including the SSH- line
        while (i < stream.length) {
            int eol = indexOf(stream, (byte) '\n', i);
            if (eol < 0) {
                return tail(r, i, payloadToAuth, payloadTotal);
            }
            boolean ssh = new String(stream, i, Math.min(4, eol - i), StandardCharsets.US_ASCII).equals("SSH-");
            r[0] += eol + 1 - i;
            i = eol + 1;
            if (ssh) {
                break;
            }
        }
        while (i + 6 <= stream.length) {
            long len = ((stream[i] & 0xffL) << 24) | ((stream[i + 1] & 0xff) << 16) | ((stream[i + 2] & 0xff) << 8)
                    | (stream[i + 3] & 0xff);
            if (len < 5 || len > 256 * 1024 || i + 4 + len > stream.length) {
                break;
            }
            int type = stream[i + 5] & 0xff;
            int slot = switch (type) {
                case 20 -> 1;
                case 30 -> 2;
                case 31 -> 3;
                case 21 -> 4;
                default -> 5;
            };
            r[slot] += 4 + len;
            i += (int) (4 + len);
            if (type == 21) {
                break;
            }
        }
        return tail(r, i, payloadToAuth, payloadTotal);
    }

    private static long[] tail(long[] r, long plain, long toAuth, long total) {
        r[6] = Math.max(0, toAuth - plain);
        r[7] = Math.max(0, total - Math.max(toAuth, plain));
        return r;
    }

    private static int indexOf(byte[] b, byte v, int from) {
        for (int k = from; k < b.length; k++) {
            if (b[k] == v) {
                return k;
            }
        }
        return -1;
    }

    /** Column names for raw.csv: part_c2s..., part_s2c... */
    public static String[] columns() {
        String[] c = new String[PARTS.size() * 2];
        for (int k = 0; k < PARTS.size(); k++) {
            c[k] = PARTS.get(k) + "_c2s";
            c[PARTS.size() + k] = PARTS.get(k) + "_s2c";
        }
        return c;
    }
}
