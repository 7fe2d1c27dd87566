package io.pqssh.core.fuzz;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;

import io.pqssh.core.auth.KemAuthRequest;
import io.pqssh.core.auth.KemChallenge;
import io.pqssh.core.auth.KemResponse;
import io.pqssh.core.wire.MalformedMessageException;

/**
 * KEMUAuth message decoders (50 publickey-kem / publickey-kem-and, 60, 61). Contract: a payload either decodes or
 * is a {@link MalformedMessageException}; a payload that decodes re-encodes to exactly the same bytes (the codecs
 * are strict: no trailing bytes, no alternative encodings). Seeds: the KEMUAuth vectors.
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
        assertArrayEquals(payload, r.encode(), "decode/encode must round-trip");
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
