package io.pqssh.common.forward;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The server half of a SOCKS4, SOCKS4a or SOCKS5 handshake (RFC 1928, no authentication, CONNECT only), fed with the
 * bytes as they arrive, as OpenSSH's ssh runs it for dynamic forwarding ({@code -D}, {@link SocksConnection}, and
 * remote dynamic forwarding, {@code -R [bind:]port}, {@link RelayChannel}). It never
 * connects anywhere: it yields the requested host and port, and the caller answers with {@link #success()} or
 * {@link #failure(int)}. A handshake longer than {@value #MAX_BYTES} bytes is refused.
 */
public final class SocksHandshake {
    /** SOCKS5 reply codes (RFC 1928 section 6) the caller may send. */
    public static final int GENERAL_FAILURE = 1;
    public static final int NOT_ALLOWED = 2;
    public static final int NETWORK_UNREACHABLE = 3;
    public static final int HOST_UNREACHABLE = 4;
    public static final int CONNECTION_REFUSED = 5;
    private static final int COMMAND_NOT_SUPPORTED = 7;
    private static final int ADDRESS_TYPE_NOT_SUPPORTED = 8;
    static final int MAX_BYTES = 1024;

    /** What one {@link #feed} produced: bytes to send back, and then either more input, a request, or failure. */
    public static final class Step {
        private final byte[] reply;
        private final String host;
        private final int port;
        private final byte[] rest;
        private final String error;

        private Step(byte[] reply, String host, int port, byte[] rest, String error) {
            this.reply = reply;
            this.host = host;
            this.port = port;
            this.rest = rest;
            this.error = error;
        }

        /** Bytes to write to the SOCKS client now (possibly empty). */
        public byte[] reply() {
            return reply.clone();
        }

        /** The requested destination, once the request is complete; else null. */
        public String host() {
            return host;
        }

        public int port() {
            return port;
        }

        /** Bytes the client sent after its request (to be relayed once connected). */
        public byte[] rest() {
            return rest.clone();
        }

        /** Why the handshake failed (the reply, if any, tells the client); null when it did not. */
        public String error() {
            return error;
        }
    }

    private enum State { VERSION, SOCKS5_REQUEST, DONE }

    private final ByteArrayOutputStream in = new ByteArrayOutputStream();
    private State state = State.VERSION;
    private int version;

    /** Adds {@code len} received bytes and advances as far as they allow. */
    public Step feed(byte[] data, int off, int len) {
        if (state == State.DONE) {
            throw new IllegalStateException("SOCKS handshake already finished");
        }
        in.write(data, off, len);
        if (in.size() > MAX_BYTES) {
            return fail(null, new byte[0], "SOCKS handshake longer than " + MAX_BYTES + " bytes");
        }
        ByteArrayOutputStream reply = new ByteArrayOutputStream();
        while (true) {
            byte[] b = in.toByteArray();
            if (b.length == 0) {
                return more(reply);
            }
            if (state == State.VERSION) {
                version = b[0] & 0xff;
                if (version == 4) {
                    return socks4(b, reply);
                }
                if (version != 5) {
                    return fail(reply, new byte[0], "unknown SOCKS version " + version);
                }
                if (b.length < 2 || b.length < 2 + (b[1] & 0xff)) {
                    return more(reply);
                }
                int n = b[1] & 0xff;
                boolean noAuth = false;
                for (int i = 0; i < n; i++) {
                    noAuth |= b[2 + i] == 0;
                }
                if (!noAuth) {
                    return fail(reply, new byte[] {5, (byte) 0xff},
                            "SOCKS5 client offers no 'no authentication' method");
                }
                reply.writeBytes(new byte[] {5, 0});
                consume(2 + n);
                state = State.SOCKS5_REQUEST;
                continue;
            }
            return socks5Request(b, reply);
        }
    }

    private Step socks4(byte[] b, ByteArrayOutputStream reply) {
        // VN CD DSTPORT(2) DSTIP(4) USERID NUL [HOST NUL when DSTIP is 0.0.0.x, x != 0: SOCKS4a]
        if (b.length < 9) {
            return more(reply);
        }
        if (b[1] != 1) {
            return fail(reply, failure(GENERAL_FAILURE), "SOCKS4 command " + (b[1] & 0xff) + " is not CONNECT");
        }
        int port = ((b[2] & 0xff) << 8) | (b[3] & 0xff);
        int userEnd = indexOfNul(b, 8);
        if (userEnd < 0) {
            return more(reply);
        }
        int end = userEnd + 1;
        String host;
        if (b[4] == 0 && b[5] == 0 && b[6] == 0 && b[7] != 0) {
            int hostEnd = indexOfNul(b, end);
            if (hostEnd < 0) {
                return more(reply);
            }
            host = new String(b, end, hostEnd - end, StandardCharsets.US_ASCII);
            end = hostEnd + 1;
        } else {
            host = (b[4] & 0xff) + "." + (b[5] & 0xff) + "." + (b[6] & 0xff) + "." + (b[7] & 0xff);
        }
        return request(reply, host, port, b, end);
    }

    private Step socks5Request(byte[] b, ByteArrayOutputStream reply) {
        // VER CMD RSV ATYP DST.ADDR DST.PORT(2)
        if (b.length < 5) {
            return more(reply);
        }
        if (b[0] != 5) {
            return fail(reply, failure(GENERAL_FAILURE), "SOCKS5 request with version " + (b[0] & 0xff));
        }
        if (b[1] != 1) {
            return fail(reply, failure(COMMAND_NOT_SUPPORTED), "SOCKS5 command " + (b[1] & 0xff) + " is not CONNECT");
        }
        int atyp = b[3] & 0xff;
        int addrLen;
        int addrOff = 4;
        switch (atyp) {
            case 1:
                addrLen = 4;
                break;
            case 4:
                addrLen = 16;
                break;
            case 3:
                addrLen = b[4] & 0xff;
                addrOff = 5;
                break;
            default:
                return fail(reply, failure(ADDRESS_TYPE_NOT_SUPPORTED), "SOCKS5 address type " + atyp);
        }
        int end = addrOff + addrLen + 2;
        if (b.length < end) {
            return more(reply);
        }
        String host;
        if (atyp == 3) {
            host = new String(b, addrOff, addrLen, StandardCharsets.US_ASCII);
        } else {
            try {
                host = InetAddress.getByAddress(Arrays.copyOfRange(b, addrOff, addrOff + addrLen)).getHostAddress();
            } catch (UnknownHostException e) {
                return fail(reply, failure(ADDRESS_TYPE_NOT_SUPPORTED), "bad SOCKS5 address");
            }
        }
        int port = ((b[end - 2] & 0xff) << 8) | (b[end - 1] & 0xff);
        return request(reply, host, port, b, end);
    }

    private Step request(ByteArrayOutputStream reply, String host, int port, byte[] b, int end) {
        state = State.DONE;
        if (host.isEmpty()) {
            return fail(reply, failure(GENERAL_FAILURE), "empty SOCKS host name");
        }
        return new Step(reply.toByteArray(), host, port, Arrays.copyOfRange(b, end, b.length), null);
    }

    /** The SOCKS version the client speaks (4 for SOCKS4 and 4a, 5), once its first byte was read; else 0. */
    public int version() {
        return version;
    }

    /** The reply telling the client its connection is set up. */
    public byte[] success() {
        return version == 4 ? new byte[] {0, 0x5a, 0, 0, 0, 0, 0, 0}
                : new byte[] {5, 0, 0, 1, 0, 0, 0, 0, 0, 0};
    }

    /** The reply refusing the request ({@code code}: a SOCKS5 reply code; SOCKS4 has only "rejected"). */
    public byte[] failure(int code) {
        return version == 4 ? new byte[] {0, 0x5b, 0, 0, 0, 0, 0, 0}
                : new byte[] {5, (byte) code, 0, 1, 0, 0, 0, 0, 0, 0};
    }

    private void consume(int n) {
        byte[] b = in.toByteArray();
        in.reset();
        in.write(b, n, b.length - n);
    }

    private static int indexOfNul(byte[] b, int from) {
        for (int i = from; i < b.length; i++) {
            if (b[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    private static Step more(ByteArrayOutputStream reply) {
        return new Step(reply.toByteArray(), null, 0, new byte[0], null);
    }

    private Step fail(ByteArrayOutputStream before, byte[] reply, String error) {
        state = State.DONE;
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        if (before != null) {
            all.writeBytes(before.toByteArray());
        }
        all.writeBytes(reply);
        return new Step(all.toByteArray(), null, 0, new byte[0], error);
    }
}
