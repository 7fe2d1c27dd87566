package io.pqssh.core.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;

/**
 * What the server keeps per pending challenge. The reference implementation keeps 2,384 bytes of explicit state
 * (it holds the shared secret, key and ciphertext); pqssh keeps only the expected response and what it was for.
 */
class PendingStateFootprintTest {
    private static final int N = 20_000;

    @Test
    void explicitStateIsTheExpectedValuePlusLabels() {
        KemKeyPair k = MlKem.generate(KemAlgorithm.MLKEM768, new SecureRandom());
        KemAuthServer server = new KemAuthServer(new SecureRandom());
        PendingChallenge p = server.issue(new byte[32],
                KemAuthRequest.kem("alice", "ssh-connection", new KemCredential("mlkem768", k.publicKey())))
                .pending();
        // 32-byte expected response + "mlkem768" + issue time + flag + method reference
        assertEquals(32 + 8 + 8 + 1 + 4, p.explicitStateBytes());
    }

    @Test
    void retainedHeapPerPendingChallengeIsFarBelowTheReference() {
        KemKeyPair k = MlKem.generate(KemAlgorithm.MLKEM768, new SecureRandom());
        KemAuthServer server = new KemAuthServer(new SecureRandom());
        KemAuthRequest req = KemAuthRequest.kem("alice", "ssh-connection", new KemCredential("mlkem768",
                k.publicKey()));
        byte[] sid = new byte[32];
        List<PendingChallenge> held = new ArrayList<>(N);
        long before = usedAfterGc();
        for (int i = 0; i < N; i++) {
            held.add(server.issue(sid, req).pending());
        }
        long after = usedAfterGc();
        double perChallenge = (after - before) / (double) N;
        System.out.printf("pending KEM challenge: %d explicit bytes, %.0f bytes retained heap each"
                + " (reference implementation: 2,384 explicit bytes)%n", held.get(0).explicitStateBytes(),
                perChallenge);
        assertEquals(N, held.size());
        assertTrue(perChallenge < 2384, "retained " + perChallenge + " bytes per pending challenge");
        held.forEach(PendingChallenge::cancel);
        assertTrue(held.stream().allMatch(PendingChallenge::isConsumed));
    }

    private static long usedAfterGc() {
        Runtime rt = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            used = Math.min(used, rt.totalMemory() - rt.freeMemory());
        }
        return used;
    }
}
