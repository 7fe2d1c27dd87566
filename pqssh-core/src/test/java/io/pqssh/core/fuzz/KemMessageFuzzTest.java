package io.pqssh.core.fuzz;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import com.code_intelligence.jazzer.junit.FuzzTest;

import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.core.auth.KemAuthRequest;
import io.pqssh.core.auth.KemChallenge;
import io.pqssh.core.auth.KemResponse;
import io.pqssh.core.wire.MalformedMessageException;

/**
 * KEMUAuth message decoders (50 publickey-kem / publickey-kem-and, 60, 61). Contract: a payload either decodes or
 * is a {@link MalformedMessageException}; a payload that decodes re-encodes to exactly the same bytes (the codecs
 * are strict: no trailing bytes, no alternative encodings), except that the publickey-kem-and boolean may be any
 * non-zero byte (RFC 4251: "all non-zero values MUST be interpreted as TRUE"; found by this target, kept as the
 * seed {@code boolean_nonzero_true}). Seeds: the KEMUAuth vectors.
 */
class KemMessageFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void request(byte[] payload) {
        KemAuthRequest r;
        try {
            r = KemAuthRequest.decode(payload);
        } catch (MalformedMessageException e) {
            assertNotNull(e.getMessage());
            return;
        }
        byte[] again = r.encode();
        if (r.method() == KemAuthMethod.PUBLICKEY_KEM_AND) {
            // RFC 4251 sec. 5: any non-zero boolean is TRUE; pqssh re-encodes it (and signs it) as 1
            int flag = 1 + 4 + r.user().getBytes(StandardCharsets.UTF_8).length + 4
                    + r.service().getBytes(StandardCharsets.UTF_8).length + 4 + r.method().wireName().length();
            assertTrue(payload[flag] != 0 && again[flag] == 1, "publickey-kem-and flag must be TRUE");
            payload = payload.clone();
            payload[flag] = 1;
        }
        assertArrayEquals(payload, again, "decode/encode must round-trip");
    }

    @FuzzTest(maxDuration = "30s")
    void challenge(byte[] payload) {
        KemChallenge c;
        try {
            c = KemChallenge.decode(payload);
        } catch (MalformedMessageException e) {
            assertNotNull(e.getMessage());
            return;
        }
        assertArrayEquals(payload, c.encode(), "decode/encode must round-trip");
    }

    @FuzzTest(maxDuration = "30s")
    void response(byte[] payload) {
        byte[] r;
        try {
            r = KemResponse.decode(payload);
        } catch (MalformedMessageException e) {
            assertNotNull(e.getMessage());
            return;
        }
        assertArrayEquals(payload, KemResponse.encode(r), "decode/encode must round-trip");
    }
}
