package io.pqssh.mina.internal.keys;

import java.io.IOException;
import java.io.InputStream;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.spec.InvalidKeySpecException;
import java.util.Map;
import java.util.Optional;

import org.apache.sshd.common.SshException;
import org.apache.sshd.common.config.keys.OpenSshCertificate;
import org.apache.sshd.common.config.keys.impl.OpenSSHCertificateDecoder;
import org.apache.sshd.common.session.SessionContext;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;

import io.pqssh.core.cert.CertificateKeyTypes;
import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.mina.keys.PqCertificate;

/**
 * Decodes certificates of post-quantum signature keys into MINA's {@link OpenSshCertificate} ({@link PqCertificate}):
 * on the wire (through the parser {@link io.pqssh.mina.keys.MinaPqKeys} adds to {@code Buffer.getRawPublicKey}) and
 * in {@code -cert.pub}/{@code authorized_keys}-style lines ({@link #ENTRY}, registered per type with
 * {@code KeyUtils}). The blob is first parsed strictly by pqssh-core ({@link SshCertificate#parse}: known type, nonce
 * length, exact field count, no trailing bytes); the fields are then read with MINA's own buffer methods, as MINA
 * reads an Ed25519 certificate, so {@code Buffer.putRawPublicKey} writes the same blob back.
 */
public final class PqCertificateDecoders {
    private PqCertificateDecoders() {
    }

    /** The certified key type when {@code certType} names a certificate of a post-quantum signature key. */
    public static Optional<String> certifiedPqType(String certType) {
        return CertificateKeyTypes.plainName(certType == null ? "" : certType)
                .filter(p -> PqPublicKeyDecoders.pqType(p).isPresent());
    }

    public static boolean isPqCertificate(String certType) {
        return certifiedPqType(certType).isPresent();
    }

    /** Decodes a whole certificate blob whose first string must be {@code certType}. */
    public static PqCertificate decode(String certType, byte[] blob) throws GeneralSecurityException {
        String plain = certifiedPqType(certType).orElseThrow(
                () -> new InvalidKeySpecException("not a post-quantum certificate type: " + certType));
        SshCertificate parsed;
        try {
            parsed = SshCertificate.parse(blob);
        } catch (MalformedMessageException e) {
            throw new InvalidKeySpecException("malformed " + certType + ": " + e.getMessage(), e);
        }
        if (!parsed.certType().equals(certType)) {
            throw new InvalidKeySpecException("certificate says " + certType + " but its blob holds "
                    + parsed.certType());
        }
        PqCertificate cert = new PqCertificate(plain);
        try {
            cert.setKeyType(certType);
            cert.setCertPubKey(new ByteArrayBuffer(parsed.certifiedKey()).getRawPublicKey());
            cert.setCaPubKey(new ByteArrayBuffer(parsed.signatureKey()).getRawPublicKey());
            Buffer b = new ByteArrayBuffer(blob);
            b.getString();
            cert.setNonce(b.getBytes());
            b.getBytes(); // string pk: every post-quantum key type has this one field
            cert.setSerial(b.getLong());
            cert.setType(OpenSshCertificate.Type.fromCode(b.getInt()));
            cert.setId(b.getString());
            cert.setPrincipals(new ByteArrayBuffer(b.getBytes()).getStringList(false));
            cert.setValidAfter(b.getLong());
            cert.setValidBefore(b.getLong());
            cert.setCriticalOptions(b.getCertificateOptions());
            cert.setExtensions(b.getCertificateOptions());
            String reserved = b.getString();
            cert.setReserved(reserved.isEmpty() ? null : reserved);
            b.getBytes(); // signature key, decoded above
        } catch (SshException | RuntimeException e) {
            throw new InvalidKeySpecException("cannot decode " + certType + ": " + e.getMessage(), e);
        }
        cert.setMessage(parsed.signedData());
        cert.setSignature(parsed.signature());
        return cert;
    }

    /** {@code -cert.pub}/{@code authorized_keys} line decoder for the post-quantum certificate types. */
    public static final OpenSSHCertificateDecoder ENTRY = new OpenSSHCertificateDecoder() {
        @Override
        public OpenSshCertificate decodePublicKey(SessionContext session, String keyType, InputStream keyData,
                Map<String, String> headers) throws IOException, GeneralSecurityException {
            ByteArrayBuffer b = new ByteArrayBuffer();
            b.putString(keyType);
            b.putRawBytes(keyData.readAllBytes());
            return decode(keyType, b.getCompactData());
        }

        @Override
        public PublicKey resolve(SessionContext session, String keyType, byte[] keyData,
                Map<String, String> headers) throws IOException, GeneralSecurityException {
            return decode(keyType, keyData);
        }

        @Override
        public String toString() {
            return "pqssh post-quantum certificate entries";
        }
    };
}
