package io.pqssh.core.sig;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.core.keys.openssh.OpenSshPrivateKey;
import io.pqssh.core.sig.sshsig.SshSig;

/** The signature codecs plugged into the openssh-key-v1 container (io.pqssh.core.keys.openssh). */
class ContainerIntegrationTest {
    private static final String DIR = "openssh-10.5/";
    private static final byte[] MSG = TestFiles.bytes(DIR + "message.txt");

    @Test
    void encryptedOpenSshCompositeKeyLoadsAndSigns() throws Exception {
        OpenSshPrivateKey k = OpenSshKeyV1.read(TestFiles.text(DIR + "id_mldsa44_ed25519_encrypted"),
                "correct horse battery staple".toCharArray());
        SshSigningKey key = assertInstanceOf(SshSigningKey.class, k.key());
        SshPublicKey pub = SshPublicKey.parseOpenSsh(TestFiles.text(DIR + "id_mldsa44_ed25519_encrypted.pub"));
        assertEquals(pub, key.publicKey());
        assertTrue(SshSig.verify(SshSig.sign(key, "file", MSG), MSG, "file", pub));
        k.destroy();
        assertTrue(key.isDestroyed());
    }

    @Test
    void unencryptedVectorsLoad() throws Exception {
        for (String f : new String[] {"id_ed25519", "id_mldsa44_ed25519"}) {
            OpenSshPrivateKey k = OpenSshKeyV1.read(TestFiles.text(DIR + f), null);
            assertEquals(SshPublicKey.parseOpenSsh(TestFiles.text(DIR + f + ".pub")),
                    ((SshSigningKey) k.key()).publicKey());
        }
    }

    @ParameterizedTest
    @EnumSource(SignatureKeyType.class)
    void everyTypeRoundTripsThroughTheContainer(SignatureKeyType t) throws Exception {
        SshSigningKey key = SignatureKeyTypeTest.key(t);
        String pem = OpenSshKeyV1.write(key, "c-" + t.sshName(), null, new SecureRandom());
        OpenSshPrivateKey back = OpenSshKeyV1.read(pem, null);
        assertEquals("c-" + t.sshName(), back.comment());
        assertArrayEquals(key.publicKeyBlob(), back.key().publicKeyBlob());
        byte[] data = "after reload".getBytes(StandardCharsets.UTF_8);
        if (t != SignatureKeyType.SLHDSA_SHA2_256F && t != SignatureKeyType.SLHDSA_SHA2_192F) {
            assertTrue(key.publicKey().verify(data, ((SshSigningKey) back.key()).sign(data)));
        }
    }
}
