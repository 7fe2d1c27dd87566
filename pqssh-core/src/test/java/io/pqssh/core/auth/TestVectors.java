package io.pqssh.core.auth;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Test-vector helpers that do NOT use the production encoders: a hand-written RFC 4251 assembler, the vector file
 * parser, and a SecureRandom that replays fixed bytes (so BC's and the JDK's randomized APIs become deterministic).
 */
final class TestVectors {
    static final HexFormat HEX = HexFormat.of();

    private TestVectors() {
    }

    static org.bouncycastle.crypto.params.MLKEMParameters bc(io.pqssh.core.kem.KemAlgorithm a) {
        return switch (a) {
            case MLKEM512 -> org.bouncycastle.crypto.params.MLKEMParameters.ml_kem_512;
            case MLKEM768 -> org.bouncycastle.crypto.params.MLKEMParameters.ml_kem_768;
            case MLKEM1024 -> org.bouncycastle.crypto.params.MLKEMParameters.ml_kem_1024;
        };
    }

    /** A fixed byte pattern: {@code start, start+1, ...} (mod 256), {@code n} bytes. */
    static byte[] pattern(int start, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (start + i);
        }
        return b;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** Minimal independent RFC 4251 assembler: bytes appended in the order given, nothing else. */
    static final class Manual {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Manual b(int v) {
            out.write(v);
            return this;
        }

        Manual u32(long v) {
            out.write((int) (v >> 24) & 0xff);
            out.write((int) (v >> 16) & 0xff);
            out.write((int) (v >> 8) & 0xff);
            out.write((int) v & 0xff);
            return this;
        }

        Manual s(byte[] v) {
            u32(v.length);
            out.write(v, 0, v.length);
            return this;
        }

        Manual s(String v) {
            return s(utf8(v));
        }

        Manual raw(byte[] v) {
            out.write(v, 0, v.length);
            return this;
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }

    /** CTX by hand, straight from the reference's field list. */
    static byte[] manualCtx(String user, String service, String method, String alg, byte[] pk, String chAlg,
            byte[] chPk, byte[] ct) {
        return new Manual().b(50).s(user).s(service).s(method).s(alg).s(pk)
                .b(60).s(chAlg).s(chPk).s(ct).bytes();
    }

    /** Second HMAC implementation: the JDK's SunJCE HmacSHA256 over LABEL || SID || CTX. */
    static byte[] jdkResponse(byte[] ss, byte[] sid, byte[] ctx) {
        try {
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec(ss, "HmacSHA256"));
            mac.update("ssh-publickey-kem-client-auth".getBytes(StandardCharsets.US_ASCII));
            mac.update(sid);
            mac.update(ctx);
            return mac.doFinal();
        } catch (java.security.GeneralSecurityException e) {
            throw new AssertionError(e);
        }
    }

    /** Parses {@code key=hex} lines; {@code #} starts a comment line; blank lines ignored; duplicate keys fail. */
    static Map<String, byte[]> load(String resource) {
        try (InputStream in = TestVectors.class.getResourceAsStream("/vectors/" + resource)) {
            if (in == null) {
                throw new IllegalStateException("missing vector " + resource);
            }
            Map<String, byte[]> m = new LinkedHashMap<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n")) {
                line = line.strip();
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                int eq = line.indexOf('=');
                if (eq < 1) {
                    throw new IllegalStateException(resource + ": bad line " + line);
                }
                if (m.put(line.substring(0, eq), HEX.parseHex(line.substring(eq + 1))) != null) {
                    throw new IllegalStateException(resource + ": duplicate key " + line.substring(0, eq));
                }
            }
            return m;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Replays the given bytes to nextBytes and fails if more are asked for than were provided. */
    static final class FixedRandom extends SecureRandom {
        private static final long serialVersionUID = 1L;
        private final byte[] data;
        private int pos;

        FixedRandom(byte[]... chunks) {
            super(new byte[0]);
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (byte[] c : chunks) {
                b.writeBytes(c);
            }
            this.data = b.toByteArray();
        }

        @Override
        public synchronized void nextBytes(byte[] bytes) {
            if (pos + bytes.length > data.length) {
                throw new IllegalStateException("FixedRandom exhausted: asked " + bytes.length + ", have "
                        + (data.length - pos));
            }
            System.arraycopy(data, pos, bytes, 0, bytes.length);
            pos += bytes.length;
        }

        @Override
        public byte[] generateSeed(int n) {
            byte[] b = new byte[n];
            nextBytes(b);
            return b;
        }

        int consumed() {
            return pos;
        }

        boolean exhausted() {
            return pos == data.length;
        }
    }
}
