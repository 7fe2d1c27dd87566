package io.pqssh.core.sig;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.function.Executable;

import io.pqssh.core.sig.sshsig.SshSig;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshWriter;

/** Truncated, extended and mislabelled blobs: each a clear MalformedMessageException, never a pass. */
class MalformedInputTest {
    static final byte[] DATA = SignatureKeyTypeTest.DATA;

    static String fails(Executable e, String... expect) {
        MalformedMessageException ex = assertThrows(MalformedMessageException.class, e);
        String m = ex.getMessage();
        assertTrue(m != null && !m.isBlank());
        for (String s : expect) {
            assertTrue(m.contains(s), "message \"" + m + "\" should mention \"" + s + "\"");
        }
        return m;
    }

    @ParameterizedTest
    @EnumSource(SignatureKeyType.class)
    void publicKeyBlobs(SignatureKeyType t) {
        SshSigningKey k = SignatureKeyTypeTest.key(t);
        byte[] blob = k.publicKeyBlob();
        byte[] raw = k.publicKey().rawKey();
        // truncated at every interesting point
        for (int cut : new int[] {0, 2, 4, 4 + t.sshName().length(), 6 + t.sshName().length(), blob.length - 1}) {
            fails(() -> Signatures.decodePublicKey(Arrays.copyOf(blob, cut)), "truncated");
        }
        // trailing byte after the blob
        fails(() -> Signatures.decodePublicKey(Arrays.copyOf(blob, blob.length + 1)), "trailing");
        // raw key one byte short / long, with a consistent string length
        fails(() -> Signatures.decodePublicKey(
                new SshWriter().putString(t.sshName()).putString(Arrays.copyOf(raw, raw.length - 1)).toByteArray()),
                t.sshName(), "public key must be");
        fails(() -> Signatures.decodePublicKey(
                new SshWriter().putString(t.sshName()).putString(Arrays.copyOf(raw, raw.length + 1)).toByteArray()),
                "public key must be");
        // unknown name
        fails(() -> Signatures.decodePublicKey(
                new SshWriter().putString("ssh-unknown-pq").putString(raw).toByteArray()), "unknown");
        // a scheme asked to decode another type's key
        SignatureKeyType other = t == SignatureKeyType.ED25519 ? SignatureKeyType.MLDSA_44 : SignatureKeyType.ED25519;
        fails(() -> other.scheme().decodePublicKey(blob), "expected");
    }

    @ParameterizedTest
    @EnumSource(SignatureKeyType.class)
    void signatureBlobs(SignatureKeyType t) {
        SshSigningKey k = SignatureKeyTypeTest.key(t);
        SshPublicKey pub = k.publicKey();
        byte[] sig = SignatureKeyTypeTest.sig(t);
        byte[] raw = Arrays.copyOfRange(sig, 8 + t.sshName().length(), sig.length);
        for (int cut : new int[] {0, 3, 4 + t.sshName().length(), 7 + t.sshName().length(), sig.length - 1}) {
            fails(() -> pub.verify(DATA, Arrays.copyOf(sig, cut)), "truncated");
        }
        fails(() -> pub.verify(DATA, Arrays.copyOf(sig, sig.length + 1)), "trailing");
        if (t.fixedSignatureSize()) {
            fails(() -> pub.verify(DATA, new SshWriter().putString(t.sshName())
                    .putString(Arrays.copyOf(raw, raw.length - 1)).toByteArray()), "signature must be");
        }
        fails(() -> pub.verify(DATA, new SshWriter().putString(t.sshName())
                .putString(Arrays.copyOf(raw, t.signatureSize() + 1)).toByteArray()), "signature must be");
        fails(() -> pub.verify(DATA, new SshWriter().putString("ssh-unknown-pq").putString(raw).toByteArray()),
                "unknown");
        String otherName = t == SignatureKeyType.ED25519 ? "ssh-mldsa-44" : "ssh-ed25519";
        fails(() -> pub.verify(DATA, new SshWriter().putString(otherName).putString(raw).toByteArray()),
                "expected");
        // public key blob / signature blob of different types through the facade
        byte[] otherPub = (t == SignatureKeyType.ED25519 ? SignatureKeyTypeTest.key(SignatureKeyType.MLDSA_44)
                : SignatureKeyTypeTest.key(SignatureKeyType.ED25519)).publicKeyBlob();
        fails(() -> Signatures.verify(otherPub, DATA, sig), "expected");
    }

    @Test
    void falconHeadersAndLengths() {
        SshPublicKey pub = SignatureKeyTypeTest.key(SignatureKeyType.FALCON_512).publicKey();
        byte[] sig = SignatureKeyTypeTest.sig(SignatureKeyType.FALCON_512);
        byte[] raw = Arrays.copyOfRange(sig, 8 + "ssh-falcon512".length(), sig.length);
        byte[] badHeader = raw.clone();
        badHeader[0] = 0x3a;
        fails(() -> pub.verify(DATA, new SshWriter().putString("ssh-falcon512").putString(badHeader).toByteArray()),
                "header");
        fails(() -> pub.verify(DATA, new SshWriter().putString("ssh-falcon512").putString(Arrays.copyOf(raw, 10))
                .toByteArray()), "too short");
        fails(() -> pub.verify(DATA, new SshWriter().putString("ssh-falcon512").putString(new byte[753])
                .toByteArray()), "at most 752");
        byte[] pk = pub.rawKey();
        pk[0] = 0x0a;
        fails(() -> SshPublicKey.of(SignatureKeyType.FALCON_512, pk), "header");
        // 1024: 1463 bytes is over the compressed format's maximum (1281 is legal: seen from Bouncy Castle)
        SshPublicKey pub1024 = SignatureKeyTypeTest.key(SignatureKeyType.FALCON_1024).publicKey();
        fails(() -> pub1024.verify(DATA, new SshWriter().putString("ssh-falcon1024").putString(new byte[1463])
                .toByteArray()), "at most 1462");
    }

    @Test
    void publicKeyLines() {
        fails(() -> SshPublicKey.parseOpenSsh("ssh-ed25519"), "type base64");
        fails(() -> SshPublicKey.parseOpenSsh("ssh-ed25519 !!!notbase64"), "base64");
        byte[] blob = SignatureKeyTypeTest.key(SignatureKeyType.ED25519).publicKeyBlob();
        fails(() -> SshPublicKey.parseOpenSsh("ssh-mldsa-44 " + java.util.Base64.getEncoder().encodeToString(blob)),
                "blob holds");
    }

    @Test
    void sshsigBlobs() {
        SshSigningKey k = SignatureKeyTypeTest.key(SignatureKeyType.ED25519);
        byte[] blob = SshSig.signBlob(k, "file", DATA);
        fails(() -> SshSig.parse(Arrays.copyOf(blob, blob.length - 1)), "SSHSIG blob", "exceeds");
        fails(() -> SshSig.parse(Arrays.copyOf(blob, blob.length + 1)), "trailing");
        fails(() -> SshSig.parse(Arrays.copyOf(blob, 3)), "magic");
        byte[] v2 = blob.clone();
        v2[9] = 2;
        fails(() -> SshSig.parse(v2), "version");
        fails(() -> SshSig.dearmor("junk"), "BEGIN");
        fails(() -> SshSig.dearmor(SshSig.BEGIN + "\nAAAA\n"), "END");
        fails(() -> SshSig.dearmor(SshSig.BEGIN + "\n*&^%\n" + SshSig.END), "base64");
        byte[] md5 = new SshWriter().putRaw("SSHSIG".getBytes()).putUint32(1).putString(k.publicKeyBlob())
                .putString("file").putString(new byte[0]).putString("md5").putString(k.sign(DATA)).toByteArray();
        fails(() -> SshSig.parse(md5), "hash algorithm");
    }
}
