package io.pqssh.core.cert;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * An OpenSSH certificate (PROTOCOL.certkeys), immutable:
 * <pre>
 * string    cert type name          (e.g. ssh-ed25519-cert-v01@openssh.com)
 * string    nonce
 * ...       the certified key's fields (its plain blob without the name)
 * uint64    serial
 * uint32    type                    (1 user, 2 host)
 * string    key id
 * string    valid principals        (concatenated strings)
 * uint64    valid after
 * uint64    valid before
 * string    critical options        (string name, string data; data of a valued option is itself a string)
 * string    extensions              (same layout)
 * string    reserved
 * string    signature key           (the CA's public key blob)
 * string    signature               (the CA's signature over everything before this field)
 * </pre>
 * Parsing keeps the exact bytes, so {@link #blob()} of a parsed certificate is the input.
 */
public final class SshCertificate {
    /** uint64 valid before of a certificate that never expires. */
    public static final long FOREVER = -1L; // 0xffffffffffffffff, an unsigned maximum

    private final String certType;
    private final String keyType;
    private final byte[] nonce;
    private final byte[] keyFields;
    private final long serial;
    private final CertificateType type;
    private final String keyId;
    private final List<String> principals;
    private final long validAfter;
    private final long validBefore;
    private final Map<String, byte[]> criticalOptions;
    private final Map<String, byte[]> extensions;
    private final byte[] reserved;
    private final byte[] signatureKey;
    private final byte[] signature;
    private final int signedLength; // the number of leading blob bytes the signature covers
    private final byte[] blob;

    private SshCertificate(String certType, String keyType, byte[] nonce, byte[] keyFields, long serial,
            CertificateType type, String keyId, List<String> principals, long validAfter, long validBefore,
            Map<String, byte[]> criticalOptions, Map<String, byte[]> extensions, byte[] reserved,
            byte[] signatureKey, byte[] signature, int signedLength, byte[] blob) {
        this.certType = certType;
        this.keyType = keyType;
        this.nonce = nonce;
        this.keyFields = keyFields;
        this.serial = serial;
        this.type = type;
        this.keyId = keyId;
        this.principals = List.copyOf(principals);
        this.validAfter = validAfter;
        this.validBefore = validBefore;
        this.criticalOptions = Collections.unmodifiableMap(criticalOptions);
        this.extensions = Collections.unmodifiableMap(extensions);
        this.reserved = reserved;
        this.signatureKey = signatureKey;
        this.signature = signature;
        this.signedLength = signedLength;
        this.blob = blob;
    }

    /** Parses a certificate blob, checking its structure (not its signature or validity: see {@link CertificateVerifier}). */
    public static SshCertificate parse(byte[] blob) throws MalformedMessageException {
        SshReader r = new SshReader(blob);
        String certType = r.getUtf8();
        String keyType = CertificateKeyTypes.plainName(certType).orElseThrow(() -> new MalformedMessageException(
                "unknown certificate type \"" + printable(certType) + "\""));
        byte[] nonce = r.getString();
        if (nonce.length < 16) {
            // ssh-keygen writes 32 random bytes; the nonce is what makes signed-prefix collisions impractical
            throw new MalformedMessageException("certificate nonce is " + nonce.length + " bytes, at least 16 expected");
        }
        int keyStart = r.position();
        for (int i = 0; i < CertificateKeyTypes.keyFieldCount(keyType); i++) {
            r.getString();
        }
        byte[] keyFields = Arrays.copyOfRange(blob, keyStart, r.position());
        long serial = uint64(r);
        CertificateType type = CertificateType.of(r.getUint32());
        String keyId = r.getUtf8();
        List<String> principals = principals(r.getString());
        long validAfter = uint64(r);
        long validBefore = uint64(r);
        Map<String, byte[]> critical = options(r.getString(), "critical option");
        Map<String, byte[]> extensions = options(r.getString(), "extension");
        byte[] reserved = r.getString();
        byte[] signatureKey = r.getString();
        if (signatureKey.length == 0) {
            throw new MalformedMessageException("certificate has an empty signature key");
        }
        if (CertificateKeyTypes.isCertificate(peekName(signatureKey))) {
            throw new MalformedMessageException("certificate is signed by a certificate, not by a plain CA key");
        }
        int signedLength = r.position();
        byte[] signature = r.getString();
        r.expectEnd("certificate");
        return new SshCertificate(certType, keyType, nonce, keyFields, serial, type, keyId, principals,
                validAfter, validBefore, critical, extensions, reserved, signatureKey, signature, signedLength,
                blob.clone());
    }

    /** Parses an OpenSSH line {@code cert-type base64 [comment]} (a {@code -cert.pub} file). */
    public static SshCertificate parseLine(String line) throws MalformedMessageException {
        String[] parts = line.strip().split("[ \\t]+", 3);
        if (parts.length < 2) {
            throw new MalformedMessageException("certificate line needs \"type base64\"");
        }
        byte[] b;
        try {
            b = Base64.getDecoder().decode(parts[1]);
        } catch (IllegalArgumentException e) {
            throw new MalformedMessageException("certificate line: bad base64");
        }
        SshCertificate c = parse(b);
        if (!c.certType.equals(parts[0])) {
            throw new MalformedMessageException("certificate line says " + printable(parts[0])
                    + " but the blob holds " + c.certType);
        }
        return c;
    }

    /** The fields before {@code signature key}, written by {@link CertificateSigner}. */
    static byte[] encodeToBeSigned(String certType, byte[] nonce, byte[] keyFields, long serial, CertificateType type,
            String keyId, List<String> principals, long validAfter, long validBefore, Map<String, byte[]> critical,
            Map<String, byte[]> extensions, byte[] caKey) {
        SshWriter w = new SshWriter(512 + keyFields.length + caKey.length);
        w.putString(certType).putString(nonce).putRaw(keyFields);
        putUint64(w, serial);
        w.putUint32(type.code()).putString(keyId);
        SshWriter p = new SshWriter();
        for (String s : principals) {
            p.putString(s);
        }
        w.putString(p.toByteArray());
        putUint64(w, validAfter);
        putUint64(w, validBefore);
        w.putString(encodeOptions(critical)).putString(encodeOptions(extensions)).putString(new byte[0]);
        w.putString(caKey);
        return w.toByteArray();
    }

    static SshCertificate assemble(byte[] toBeSigned, byte[] signature) throws MalformedMessageException {
        return parse(new SshWriter(toBeSigned.length + signature.length + 4).putRaw(toBeSigned)
                .putString(signature).toByteArray());
    }

    /** The bytes the CA signed: the blob up to, not including, the signature field. */
    public byte[] signedData() {
        return Arrays.copyOf(blob, signedLength);
    }

    /** The certificate type name, e.g. {@code ssh-ed25519-cert-v01@openssh.com}. */
    public String certType() {
        return certType;
    }

    /** The certified key's plain type name, e.g. {@code ssh-ed25519}. */
    public String keyType() {
        return keyType;
    }

    public byte[] nonce() {
        return nonce.clone();
    }

    /** The certified key as a plain public key blob ({@code string keyType} then its fields). */
    public byte[] certifiedKey() {
        return new SshWriter(keyFields.length + keyType.length() + 4).putString(keyType).putRaw(keyFields)
                .toByteArray();
    }

    /** The serial as an unsigned 64-bit value held in a long ({@link Long#toUnsignedString} prints it). */
    public long serial() {
        return serial;
    }

    public CertificateType type() {
        return type;
    }

    public String keyId() {
        return keyId;
    }

    /** Valid principals; empty means any principal (OpenSSH's rule, which sshd refuses for user certs without a principals file). */
    public List<String> principals() {
        return principals;
    }

    /** Seconds since the epoch, unsigned. */
    public long validAfter() {
        return validAfter;
    }

    /** Seconds since the epoch, unsigned; {@link #FOREVER} never expires. */
    public long validBefore() {
        return validBefore;
    }

    /** Critical options in certificate order; values are the raw data fields (for valued options a nested string). */
    public Map<String, byte[]> criticalOptions() {
        return copy(criticalOptions);
    }

    /** The string value of a critical option such as {@code force-command}, or {@code null} if absent. */
    public String criticalOption(String name) throws MalformedMessageException {
        return optionValue(criticalOptions, name);
    }

    public Map<String, byte[]> extensions() {
        return copy(extensions);
    }

    public boolean hasExtension(String name) {
        return extensions.containsKey(name);
    }

    public byte[] reserved() {
        return reserved.clone();
    }

    /** The CA's public key blob. */
    public byte[] signatureKey() {
        return signatureKey.clone();
    }

    /** The CA's signature blob. */
    public byte[] signature() {
        return signature.clone();
    }

    /** The signature algorithm the CA used (the signature blob's name). */
    public String signatureAlgorithm() {
        try {
            return peekName(signature);
        } catch (MalformedMessageException e) {
            return "?";
        }
    }

    public byte[] blob() {
        return blob.clone();
    }

    /** {@code cert-type base64 [comment]}, as a {@code -cert.pub} line. */
    public String toLine(String comment) {
        String s = certType + " " + Base64.getEncoder().encodeToString(blob);
        return comment == null || comment.isEmpty() ? s : s + " " + comment;
    }

    /** SHA256 fingerprint of the certificate blob as ssh-keygen prints key fingerprints. */
    public static String fingerprint(byte[] blob) {
        try {
            return "SHA256:" + Base64.getEncoder().withoutPadding()
                    .encodeToString(MessageDigest.getInstance("SHA-256").digest(blob));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SshCertificate c && Arrays.equals(c.blob, blob);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(blob);
    }

    @Override
    public String toString() {
        return certType + " id \"" + keyId + "\" serial " + Long.toUnsignedString(serial);
    }

    // ---- encoding helpers ----

    static void putUint64(SshWriter w, long v) {
        w.putUint32(v >>> 32).putUint32(v & 0xffffffffL);
    }

    private static long uint64(SshReader r) throws MalformedMessageException {
        return (r.getUint32() << 32) | r.getUint32();
    }

    private static List<String> principals(byte[] field) throws MalformedMessageException {
        SshReader r = new SshReader(field);
        List<String> out = new ArrayList<>();
        while (r.remaining() > 0) {
            out.add(r.getUtf8());
        }
        return out;
    }

    /** Options must be unique and sorted by name (PROTOCOL.certkeys; OpenSSH refuses anything else). */
    private static Map<String, byte[]> options(byte[] field, String what) throws MalformedMessageException {
        SshReader r = new SshReader(field);
        Map<String, byte[]> out = new LinkedHashMap<>();
        String previous = null;
        while (r.remaining() > 0) {
            String name = r.getUtf8();
            byte[] data = r.getString();
            if (previous != null && compareBytes(previous, name) >= 0) {
                throw new MalformedMessageException("certificate " + what + " \"" + printable(name)
                        + "\" is " + (previous.equals(name) ? "repeated" : "out of order"));
            }
            out.put(name, data);
            previous = name;
        }
        return out;
    }

    static byte[] encodeOptions(Map<String, byte[]> options) {
        List<String> names = new ArrayList<>(options.keySet());
        names.sort(SshCertificate::compareBytes);
        SshWriter w = new SshWriter();
        for (String n : names) {
            w.putString(n).putString(options.get(n));
        }
        return w.toByteArray();
    }

    static int compareBytes(String a, String b) {
        return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    static String optionValue(Map<String, byte[]> options, String name) throws MalformedMessageException {
        byte[] data = options.get(name);
        if (data == null) {
            return null;
        }
        SshReader r = new SshReader(data);
        String v = r.getUtf8();
        r.expectEnd("certificate option " + name);
        return v;
    }

    private static Map<String, byte[]> copy(Map<String, byte[]> m) {
        Map<String, byte[]> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, v.clone()));
        return out;
    }

    static String peekName(byte[] blob) throws MalformedMessageException {
        return new SshReader(blob).getUtf8();
    }

    static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && i < 64; i++) {
            char c = s.charAt(i);
            b.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return s.length() > 64 ? b + "..." : b.toString();
    }
}
