package io.pqssh.core.cert;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * An OpenSSH key revocation list (PROTOCOL.krl), immutable: certificates revoked by serial (lists, ranges, bitmaps)
 * or key ID per CA (an empty CA: any CA), plain keys revoked explicitly or by SHA1/SHA256 hash of their blob.
 * {@link #revocation} decides as OpenSSH's {@code ssh_krl_check_key}: the key's plain blob (a certificate's certified
 * key), then a certificate's CA key, then the certificate's serial and ID. Parsing fails closed: a critical
 * extension, a signature that does not verify, a section after a signature or trailing bytes are errors.
 */
public final class Krl {
    /** "SSHKRL\n\0". */
    public static final long MAGIC = 0x5353484b524c0a00L;
    private static final int FORMAT_VERSION = 1;
    private static final int SECTION_CERTIFICATES = 1;
    private static final int SECTION_EXPLICIT_KEY = 2;
    private static final int SECTION_FINGERPRINT_SHA1 = 3;
    private static final int SECTION_SIGNATURE = 4;
    private static final int SECTION_FINGERPRINT_SHA256 = 5;
    private static final int SECTION_EXTENSION = 255;
    private static final int CERT_SERIAL_LIST = 0x20;
    private static final int CERT_SERIAL_RANGE = 0x21;
    private static final int CERT_SERIAL_BITMAP = 0x22;
    private static final int CERT_KEY_ID = 0x23;
    private static final int CERT_EXTENSION = 0x39;

    /** Serials and key IDs revoked for one CA (an empty CA blob: every CA). */
    public record CaRevocations(byte[] caKey, List<long[]> serialRanges, List<String> keyIds) {
        public CaRevocations {
            caKey = caKey.clone();
            serialRanges = List.copyOf(serialRanges);
            keyIds = List.copyOf(keyIds);
        }

        boolean revokes(SshCertificate c) {
            for (long[] r : serialRanges) {
                if (Long.compareUnsigned(c.serial(), r[0]) >= 0 && Long.compareUnsigned(c.serial(), r[1]) <= 0) {
                    return true;
                }
            }
            return keyIds.contains(c.keyId());
        }
    }

    private final long version;
    private final long generated;
    private final String comment;
    private final List<CaRevocations> certificates;
    private final TreeSet<byte[]> explicitKeys;
    private final TreeSet<byte[]> sha1;
    private final TreeSet<byte[]> sha256;

    private Krl(long version, long generated, String comment, List<CaRevocations> certificates,
            TreeSet<byte[]> explicitKeys, TreeSet<byte[]> sha1, TreeSet<byte[]> sha256) {
        this.version = version;
        this.generated = generated;
        this.comment = comment;
        this.certificates = List.copyOf(certificates);
        this.explicitKeys = explicitKeys;
        this.sha1 = sha1;
        this.sha256 = sha256;
    }

    /** Whether {@code data} starts with the KRL magic (else it is read as a list of public keys). */
    public static boolean isKrl(byte[] data) {
        if (data.length < 8) {
            return false;
        }
        long m = 0;
        for (int i = 0; i < 8; i++) {
            m = (m << 8) | (data[i] & 0xff);
        }
        return m == MAGIC;
    }

    /** Parses a binary KRL. */
    public static Krl parse(byte[] data) throws MalformedMessageException {
        SshReader r = new SshReader(data);
        if (!isKrl(data)) {
            throw new MalformedMessageException("not a KRL (bad magic)");
        }
        uint64(r);
        long format = r.getUint32();
        if (format != FORMAT_VERSION) {
            throw new MalformedMessageException("unsupported KRL format version " + format);
        }
        long version = uint64(r);
        long generated = uint64(r);
        uint64(r); // flags: none defined
        r.getString(); // reserved
        String comment = r.getUtf8();
        List<CaRevocations> certs = new ArrayList<>();
        TreeSet<byte[]> explicit = new TreeSet<>(BLOB_ORDER);
        TreeSet<byte[]> sha1 = new TreeSet<>(BLOB_ORDER);
        TreeSet<byte[]> sha256 = new TreeSet<>(BLOB_ORDER);
        List<byte[]> signers = new ArrayList<>();
        while (r.remaining() > 0) {
            int type = r.getByte();
            byte[] section = r.getString();
            if (!signers.isEmpty() && type != SECTION_SIGNATURE) {
                throw new MalformedMessageException("KRL contains non-signature section after signature");
            }
            switch (type) {
                case SECTION_CERTIFICATES -> certs.add(certificateSection(section));
                case SECTION_EXPLICIT_KEY -> blobs(section, explicit, 0, "explicit key");
                case SECTION_FINGERPRINT_SHA1 -> blobs(section, sha1, 20, "SHA1 fingerprint");
                case SECTION_FINGERPRINT_SHA256 -> blobs(section, sha256, 32, "SHA256 fingerprint");
                case SECTION_SIGNATURE -> signature(data, r, section, signers);
                case SECTION_EXTENSION -> extension(section, "KRL");
                default -> throw new MalformedMessageException("unknown KRL section type " + type);
            }
        }
        return new Krl(version, generated, comment, certs, explicit, sha1, sha256);
    }

    /**
     * A signature section ({@code byte 4, string signature_key, string signature}) as OpenSSH 9.2's
     * {@code ssh_krl_from_blob}: the signature covers the KRL from its magic through this section's key and must
     * verify, a key signs once, only signature sections may follow. As sshd and ssh-keygen -Q, which pass no
     * trusted signing keys, any valid signer is accepted: the signature proves integrity, not authority.
     */
    private static void signature(byte[] data, SshReader r, byte[] key, List<byte[]> signers)
            throws MalformedMessageException {
        int signedLength = data.length - r.remaining();
        byte[] signature = r.getString();
        for (byte[] k : signers) {
            if (MessageDigest.isEqual(k, key)) {
                throw new MalformedMessageException("KRL signed more than once with the same key");
            }
        }
        if (!CertificateVerifier.signatureValid(key, java.util.Arrays.copyOf(data, signedLength), signature)) {
            throw new MalformedMessageException("KRL signature is incorrect");
        }
        signers.add(key);
    }

    private static CaRevocations certificateSection(byte[] data) throws MalformedMessageException {
        SshReader r = new SshReader(data);
        byte[] ca = r.getString();
        r.getString(); // reserved
        List<long[]> ranges = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        while (r.remaining() > 0) {
            int type = r.getByte();
            SshReader s = new SshReader(r.getString());
            switch (type) {
                case CERT_SERIAL_LIST -> {
                    while (s.remaining() > 0) {
                        long v = uint64(s);
                        ranges.add(new long[] {v, v});
                    }
                }
                case CERT_SERIAL_RANGE -> {
                    long lo = uint64(s);
                    long hi = uint64(s);
                    if (Long.compareUnsigned(lo, hi) > 0) {
                        throw new MalformedMessageException("KRL serial range " + Long.toUnsignedString(lo) + "-"
                                + Long.toUnsignedString(hi) + " is inverted");
                    }
                    ranges.add(new long[] {lo, hi});
                    s.expectEnd("KRL serial range");
                }
                case CERT_SERIAL_BITMAP -> {
                    long offset = uint64(s);
                    byte[] mpint = s.getString();
                    BigInteger bits = new BigInteger(1, mpint);
                    // runs of set bits become one range each: ssh-keygen writes bitmaps for dense serial sets
                    for (int i = bits.getLowestSetBit(); i >= 0 && i < bits.bitLength(); i = nextSetBit(bits, i)) {
                        int end = i;
                        while (bits.testBit(end + 1)) {
                            end++;
                        }
                        ranges.add(new long[] {offset + i, offset + end});
                        i = end;
                    }
                    s.expectEnd("KRL serial bitmap");
                }
                case CERT_KEY_ID -> {
                    while (s.remaining() > 0) {
                        ids.add(s.getUtf8());
                    }
                }
                case CERT_EXTENSION -> extension(s.getRaw(s.remaining()), "KRL certificate");
                default -> throw new MalformedMessageException("unknown KRL certificate section type " + type);
            }
        }
        return new CaRevocations(ca, ranges, ids);
    }

    private static int nextSetBit(BigInteger bits, int from) {
        for (int i = from + 1; i < bits.bitLength(); i++) {
            if (bits.testBit(i)) {
                return i;
            }
        }
        return -1;
    }

    private static void extension(byte[] data, String where) throws MalformedMessageException {
        SshReader r = new SshReader(data);
        String name = r.getUtf8();
        if (r.getBoolean()) {
            throw new MalformedMessageException(where + " has the unsupported critical extension \""
                    + SshCertificate.printable(name) + "\"");
        }
    }

    private static void blobs(byte[] data, TreeSet<byte[]> into, int length, String what)
            throws MalformedMessageException {
        SshReader r = new SshReader(data);
        while (r.remaining() > 0) {
            byte[] b = r.getString();
            if (length > 0 && b.length != length) {
                throw new MalformedMessageException("KRL " + what + " of " + b.length + " bytes, " + length
                        + " expected");
            }
            into.add(b);
        }
    }

    /**
     * Why the key with this wire blob (plain key or certificate) is revoked, empty if it is not. A certificate that
     * does not parse is an error: the caller refuses it (OpenSSH's "Error checking authentication key").
     */
    public Optional<String> revocation(byte[] blob) throws MalformedMessageException {
        SshCertificate cert = null;
        // not plainKey(): the certificate itself is needed below
        byte[] plain = blob;
        if (CertificateKeyTypes.isCertificate(SshCertificate.peekName(blob))) {
            cert = SshCertificate.parse(blob);
            plain = cert.certifiedKey();
        }
        Optional<String> k = plainRevocation(plain, "key");
        if (k.isPresent() || cert == null) {
            return k;
        }
        Optional<String> ca = plainRevocation(cert.signatureKey(), "CA key");
        if (ca.isPresent()) {
            return ca;
        }
        for (CaRevocations c : certificates) {
            if ((c.caKey().length == 0 || MessageDigest.isEqual(c.caKey(), cert.signatureKey())) && c.revokes(cert)) {
                return Optional.of("certificate serial " + Long.toUnsignedString(cert.serial()) + " ID \""
                        + cert.keyId() + "\" revoked");
            }
        }
        return Optional.empty();
    }

    private Optional<String> plainRevocation(byte[] plain, String what) {
        if (sha1.contains(digest("SHA-1", plain))) {
            return Optional.of(what + " revoked by SHA1 hash");
        }
        if (sha256.contains(digest("SHA-256", plain))) {
            return Optional.of(what + " revoked by SHA256 hash");
        }
        if (explicitKeys.contains(plain)) {
            return Optional.of(what + " revoked explicitly");
        }
        return Optional.empty();
    }

    public long version() {
        return version;
    }

    public long generated() {
        return generated;
    }

    public String comment() {
        return comment;
    }

    public List<CaRevocations> certificates() {
        return certificates;
    }

    public List<byte[]> explicitKeys() {
        return copies(explicitKeys);
    }

    public List<byte[]> sha1() {
        return copies(sha1);
    }

    public List<byte[]> sha256() {
        return copies(sha256);
    }

    private static List<byte[]> copies(TreeSet<byte[]> s) {
        List<byte[]> out = new ArrayList<>();
        s.forEach(b -> out.add(b.clone()));
        return out;
    }

    /** A certificate's certified key, else the blob itself: KRL key and hash sections are of plain keys. */
    public static byte[] plainKey(byte[] blob) throws MalformedMessageException {
        return CertificateKeyTypes.isCertificate(SshCertificate.peekName(blob))
                ? SshCertificate.parse(blob).certifiedKey() : blob.clone();
    }

    /** {@code alg} (SHA-1, SHA-256) of {@code data}: KRL hash sections hold these of plain key blobs. */
    public static byte[] digest(String alg, byte[] data) {
        try {
            return MessageDigest.getInstance(alg).digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(alg + " unavailable", e);
        }
    }

    /** OpenSSH's blob order: bytes compared unsigned, then the shorter first (hashes: numeric order). */
    static final Comparator<byte[]> BLOB_ORDER = (a, b) -> {
        int c = Arrays.compareUnsigned(a, 0, Math.min(a.length, b.length), b, 0, Math.min(a.length, b.length));
        return c != 0 ? c : Integer.compare(a.length, b.length);
    };

    private static long uint64(SshReader r) throws MalformedMessageException {
        return (r.getUint32() << 32) | r.getUint32();
    }

    /** Builds and encodes a KRL, as {@code ssh-keygen -k} writes one. */
    public static final class Builder {
        private final Map<String, CaEntry> cas = new LinkedHashMap<>();
        private final TreeSet<byte[]> explicit = new TreeSet<>(BLOB_ORDER);
        private final TreeSet<byte[]> sha1 = new TreeSet<>(BLOB_ORDER);
        private final TreeSet<byte[]> sha256 = new TreeSet<>(BLOB_ORDER);
        private long version;
        private String comment = "";

        private static final class CaEntry {
            final byte[] ca;
            final TreeSet<Long> serials = new TreeSet<>(Long::compareUnsigned);
            final List<long[]> ranges = new ArrayList<>();
            final TreeSet<String> ids = new TreeSet<>();

            CaEntry(byte[] ca) {
                this.ca = ca;
            }
        }

        /** Starts from an existing KRL (ssh-keygen -k -u), keeping its entries and comment. */
        public Builder from(Krl k) {
            version = k.version;
            comment = k.comment;
            for (CaRevocations c : k.certificates) {
                CaEntry e = ca(c.caKey());
                for (long[] r : c.serialRanges()) {
                    if (r[0] == r[1]) {
                        e.serials.add(r[0]);
                    } else {
                        e.ranges.add(r.clone());
                    }
                }
                e.ids.addAll(c.keyIds());
            }
            explicit.addAll(k.explicitKeys);
            sha1.addAll(k.sha1);
            sha256.addAll(k.sha256);
            return this;
        }

        public Builder version(long v) {
            this.version = v;
            return this;
        }

        public Builder comment(String c) {
            this.comment = c == null ? "" : c;
            return this;
        }

        private CaEntry ca(byte[] caKey) {
            return cas.computeIfAbsent(java.util.Base64.getEncoder().encodeToString(caKey),
                    k -> new CaEntry(caKey.clone()));
        }

        /** Revokes a plain key by its blob (ssh-keygen's default for a plain key). */
        public Builder revokeKey(byte[] plainBlob) {
            explicit.add(plainBlob.clone());
            return this;
        }

        public Builder revokeSha1(byte[] hash) {
            sha1.add(hash.clone());
            return this;
        }

        public Builder revokeSha256(byte[] hash) {
            sha256.add(hash.clone());
            return this;
        }

        /** Revokes serials {@code lo..hi} (inclusive, unsigned) of {@code caKey}'s certificates. */
        public Builder revokeSerials(byte[] caKey, long lo, long hi) {
            if (Long.compareUnsigned(lo, hi) > 0) {
                throw new IllegalArgumentException("serial range " + Long.toUnsignedString(lo) + "-"
                        + Long.toUnsignedString(hi) + " is inverted");
            }
            if (lo == hi) {
                ca(caKey).serials.add(lo);
            } else {
                ca(caKey).ranges.add(new long[] {lo, hi});
            }
            return this;
        }

        /** Revokes key ID {@code id} of {@code caKey}'s certificates (an empty CA blob: every CA's). */
        public Builder revokeKeyId(byte[] caKey, String id) {
            ca(caKey).ids.add(id);
            return this;
        }

        /**
         * As ssh-keygen revokes a key given as a public key line: a plain key explicitly; a certificate by serial,
         * or by key ID when its serial is 0.
         */
        public Builder revoke(byte[] blob) throws MalformedMessageException {
            if (CertificateKeyTypes.isCertificate(SshCertificate.peekName(blob))) {
                SshCertificate c = SshCertificate.parse(blob);
                return c.serial() == 0 ? revokeKeyId(c.signatureKey(), c.keyId())
                        : revokeSerials(c.signatureKey(), c.serial(), c.serial());
            }
            return revokeKey(blob);
        }

        public byte[] encode(long generatedSeconds) {
            SshWriter w = new SshWriter();
            putUint64(w, MAGIC);
            w.putUint32(FORMAT_VERSION);
            putUint64(w, version);
            putUint64(w, generatedSeconds);
            putUint64(w, 0);
            w.putString(new byte[0]).putString(comment);
            for (CaEntry e : cas.values()) {
                SshWriter s = new SshWriter();
                s.putString(e.ca).putString(new byte[0]);
                if (!e.serials.isEmpty()) {
                    SshWriter l = new SshWriter();
                    e.serials.forEach(v -> putUint64(l, v));
                    s.putByte(CERT_SERIAL_LIST).putString(l.toByteArray());
                }
                for (long[] r : e.ranges) {
                    SshWriter l = new SshWriter();
                    putUint64(l, r[0]);
                    putUint64(l, r[1]);
                    s.putByte(CERT_SERIAL_RANGE).putString(l.toByteArray());
                }
                if (!e.ids.isEmpty()) {
                    SshWriter l = new SshWriter();
                    e.ids.forEach(id -> l.putString(id.getBytes(StandardCharsets.UTF_8)));
                    s.putByte(CERT_KEY_ID).putString(l.toByteArray());
                }
                w.putByte(SECTION_CERTIFICATES).putString(s.toByteArray());
            }
            section(w, SECTION_EXPLICIT_KEY, explicit);
            section(w, SECTION_FINGERPRINT_SHA1, sha1);
            section(w, SECTION_FINGERPRINT_SHA256, sha256);
            return w.toByteArray();
        }

        private static void section(SshWriter w, int type, TreeSet<byte[]> blobs) {
            if (blobs.isEmpty()) {
                return;
            }
            SshWriter s = new SshWriter();
            blobs.forEach(s::putString);
            w.putByte(type).putString(s.toByteArray());
        }

        private static void putUint64(SshWriter w, long v) {
            w.putUint32(v >>> 32).putUint32(v & 0xffffffffL);
        }
    }
}
