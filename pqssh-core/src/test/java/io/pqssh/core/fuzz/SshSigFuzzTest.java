package io.pqssh.core.fuzz;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.charset.StandardCharsets;

import com.code_intelligence.jazzer.junit.FuzzTest;

import io.pqssh.core.sig.sshsig.SshSig;
import io.pqssh.core.wire.MalformedMessageException;

/**
 * SSHSIG ({@code ssh-keygen -Y sign} output): the armor and the blob. Contract: {@link MalformedMessageException}
 * for malformed input; a blob that parses can be verified (true or false, or MalformedMessageException for a
 * malformed inner signature), never another exception.
 */
class SshSigFuzzTest {
    private static final byte[] MESSAGE = "pqssh SSHSIG fuzz\n".getBytes(StandardCharsets.UTF_8);

    @FuzzTest(maxDuration = "30s")
    void blob(byte[] blob) {
        try {
            SshSig.Parsed p = SshSig.parse(blob);
            p.verify(MESSAGE, p.namespace());
        } catch (MalformedMessageException e) {
            assertNotNull(e.getMessage());
        }
    }

    @FuzzTest(maxDuration = "30s")
    void armored(byte[] text) {
        try {
            SshSig.Parsed p = SshSig.parse(new String(text, StandardCharsets.UTF_8));
            p.verify(MESSAGE, "file");
        } catch (MalformedMessageException e) {
            assertNotNull(e.getMessage());
        }
    }
}
