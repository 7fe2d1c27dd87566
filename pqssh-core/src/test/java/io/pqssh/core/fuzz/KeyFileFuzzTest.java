package io.pqssh.core.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;

import com.code_intelligence.jazzer.junit.FuzzTest;

import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.PassphraseRequiredException;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.core.keys.openssh.OpenSshPrivateKey;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;

/**
 * {@code openssh-key-v1} private key files, plain and encrypted. Contract: {@link KeyFileException} or one of its
 * subclasses (wrong passphrase, passphrase required, unsupported type) for any bad input, nothing else.
 *
 * <p>bcrypt_pbkdf is deliberately slow: the reader accepts up to {@link OpenSshKeyV1#MAX_ROUNDS} rounds, which
 * would make one input take minutes. The harness skips inputs that ask for more than {@link #MAX_FUZZ_ROUNDS}
 * rounds (the range check itself is covered by the OpenSshKeyV1 tests); the encrypted seeds use 1 round.
 */
class KeyFileFuzzTest {
    /** Passphrase of every encrypted seed (the same as the ssh-keygen fixtures in /keys). */
    static final String PASSPHRASE = "pqssh test pass";
    static final int MAX_FUZZ_ROUNDS = 4;
    private static final byte[] MAGIC = "openssh-key-v1\0".getBytes(StandardCharsets.US_ASCII);

    /** Input: the binary file body (what the armor's base64 carries). */
    @FuzzTest(maxDuration = "30s")
    void binary(byte[] body) {
        if (bcryptRounds(body) > MAX_FUZZ_ROUNDS) {
            return;
        }
        String armored = OpenSshKeyV1.BEGIN + "\n" + Base64.getMimeEncoder(70, new byte[] {'\n'}).encodeToString(body)
                + "\n" + OpenSshKeyV1.END + "\n";
        char[] pass = PASSPHRASE.toCharArray();
        try {
            OpenSshPrivateKey k = OpenSshKeyV1.read(armored, pass);
            assertNotNull(k.key().publicKeyBlob());
            k.key().destroy();
        } catch (KeyFileException e) {
            assertNotNull(e.getMessage());
        } catch (javax.security.auth.DestroyFailedException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Input: the armored text. Encrypted files are read without a passphrase, which must be
     * {@link PassphraseRequiredException} before any key derivation runs; plain files are decoded in full.
     */
    @FuzzTest(maxDuration = "30s")
    void armored(byte[] text) {
        String armored = new String(text, StandardCharsets.UTF_8);
        boolean encrypted;
        try {
            encrypted = OpenSshKeyV1.isEncrypted(armored);
        } catch (KeyFileException e) {
            assertNotNull(e.getMessage());
            return;
        }
        if (encrypted) {
            assertThrows(PassphraseRequiredException.class, () -> OpenSshKeyV1.read(armored, null));
            return;
        }
        try {
            OpenSshPrivateKey k = OpenSshKeyV1.read(armored, null);
            assertEquals(k.key().keyType(), new SshReader(k.key().publicKeyBlob()).getUtf8());
        } catch (KeyFileException e) {
            assertNotNull(e.getMessage());
        } catch (MalformedMessageException e) {
            throw new AssertionError("a key that loaded has a malformed public blob", e);
        }
    }

    /** The bcrypt rounds a body asks for, or 0 when it does not parse that far (then no KDF can run). */
    static long bcryptRounds(byte[] body) {
        if (body.length < MAGIC.length || !Arrays.equals(body, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            return 0;
        }
        try {
            SshReader r = new SshReader(Arrays.copyOfRange(body, MAGIC.length, body.length));
            r.getString();
            r.getString();
            SshReader o = new SshReader(r.getString());
            o.getString();
            return o.getUint32();
        } catch (MalformedMessageException e) {
            return 0;
        }
    }
}
