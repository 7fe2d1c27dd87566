package io.pqssh.core.cert;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * Issues certificates as {@code ssh-keygen -s} does: a fresh 32-byte nonce, the certified key's fields, sorted
 * options, an empty reserved field, then the CA's key and signature. User certificates get ssh-keygen's default
 * extensions unless {@link #clearExtensions()} is called; host certificates get none.
 */
public final class CertificateSigner {
    /** ssh-keygen's default user certificate extensions ({@code -O clear} removes them). */
    public static final List<String> DEFAULT_USER_EXTENSIONS = List.of("permit-X11-forwarding",
            "permit-agent-forwarding", "permit-port-forwarding", "permit-pty", "permit-user-rc");

    private final byte[] publicKeyBlob;
    private final String keyType;
    private CertificateType type = CertificateType.USER;
    private String keyId = "";
    private long serial;
    private final List<String> principals = new ArrayList<>();
    private long validAfter;
    private long validBefore = SshCertificate.FOREVER;
    private final Map<String, byte[]> critical = new LinkedHashMap<>();
    private final Map<String, byte[]> extensions = new LinkedHashMap<>();
    private boolean defaultExtensions = true;

    private CertificateSigner(byte[] publicKeyBlob, String keyType) {
        this.publicKeyBlob = publicKeyBlob;
        this.keyType = keyType;
    }

    /** A signer for the key in a plain public key blob (a certificate is re-certified from its certified key). */
    public static CertificateSigner forKey(byte[] publicKeyBlob) throws MalformedMessageException {
        String name = new SshReader(publicKeyBlob).getUtf8();
        if (CertificateKeyTypes.isCertificate(name)) {
            return forKey(SshCertificate.parse(publicKeyBlob).certifiedKey());
        }
        if (!CertificateKeyTypes.certifiable(name)) {
            throw new MalformedMessageException("pqssh cannot certify " + SshCertificate.printable(name) + " keys");
        }
        return new CertificateSigner(publicKeyBlob.clone(), name);
    }

    public CertificateSigner type(CertificateType t) {
        this.type = Objects.requireNonNull(t);
        return this;
    }

    public CertificateSigner keyId(String id) {
        this.keyId = Objects.requireNonNull(id);
        return this;
    }

    public CertificateSigner serial(long s) {
        this.serial = s;
        return this;
    }

    public CertificateSigner principals(List<String> p) {
        principals.clear();
        principals.addAll(p);
        return this;
    }

    /** Validity in seconds since the epoch; {@code validBefore} {@link SshCertificate#FOREVER} never expires. */
    public CertificateSigner validity(long after, long before) {
        if (Long.compareUnsigned(after, before) >= 0) {
            throw new IllegalArgumentException("the validity interval is empty (it must start before it ends)");
        }
        this.validAfter = after;
        this.validBefore = before;
        return this;
    }

    /** A critical option with a string value ({@code force-command}, {@code source-address}). */
    public CertificateSigner criticalOption(String name, String value) {
        critical.put(name, new SshWriter().putString(value).toByteArray());
        return this;
    }

    /** A flag critical option (no value, as {@code verify-required}). */
    public CertificateSigner criticalFlag(String name) {
        critical.put(name, new byte[0]);
        return this;
    }

    public CertificateSigner clearExtensions() {
        defaultExtensions = false;
        extensions.clear();
        return this;
    }

    public CertificateSigner extension(String name) {
        extensions.put(name, new byte[0]);
        return this;
    }

    public CertificateSigner extension(String name, String value) {
        extensions.put(name, new SshWriter().putString(value).toByteArray());
        return this;
    }

    /** Removes one extension (ssh-keygen's {@code no-pty}, {@code no-port-forwarding}, ...). */
    public CertificateSigner removeExtension(String name) {
        materializeDefaults();
        extensions.remove(name);
        return this;
    }

    private void materializeDefaults() {
        if (defaultExtensions && type == CertificateType.USER) {
            for (String e : DEFAULT_USER_EXTENSIONS) {
                extensions.putIfAbsent(e, new byte[0]);
            }
        }
        defaultExtensions = false;
    }

    /** Signs with a 32-byte nonce from {@code random}. */
    public SshCertificate sign(CaSigner ca, SecureRandom random) throws MalformedMessageException {
        byte[] nonce = new byte[32];
        random.nextBytes(nonce);
        return sign(ca, nonce);
    }

    /** Signs with a given nonce (test vectors). */
    public SshCertificate sign(CaSigner ca, byte[] nonce) throws MalformedMessageException {
        byte[] caKey = ca.publicKeyBlob();
        String caType = SshCertificate.peekName(caKey);
        if (CertificateKeyTypes.isCertificate(caType)) {
            throw new MalformedMessageException("a certificate cannot be a CA key");
        }
        if (type == CertificateType.HOST) {
            defaultExtensions = false;
        } else {
            materializeDefaults();
        }
        SshReader r = new SshReader(publicKeyBlob);
        r.getString();
        byte[] fields = Arrays.copyOfRange(publicKeyBlob, publicKeyBlob.length - r.remaining(), publicKeyBlob.length);
        byte[] tbs = SshCertificate.encodeToBeSigned(CertificateKeyTypes.certName(keyType), nonce, fields, serial,
                type, keyId, principals, validAfter, validBefore, critical, extensions, caKey);
        byte[] sig = ca.sign(tbs);
        SshCertificate cert = SshCertificate.assemble(tbs, sig);
        if (!CertificateVerifier.signatureValid(cert)) {
            // a CA whose signatures do not verify (a broken key file or provider) must not issue
            throw new MalformedMessageException("the CA's signature over the certificate does not verify");
        }
        return cert;
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
