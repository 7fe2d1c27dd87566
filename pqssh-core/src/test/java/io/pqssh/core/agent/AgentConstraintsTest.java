package io.pqssh.core.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.core.auth.KemChallenge;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.keys.kem.MlKemSshKey;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * {@link Agent}'s key constraints (lifetime, confirm, unknown ones), its default lifetime and lock/unlock, on the
 * wire messages ssh-add sends, for signature and ML-KEM keys alike. A fake clock makes lifetimes exact.
 */
class AgentConstraintsTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] FAILURE = {AgentProtocol.SSH_AGENT_FAILURE};
    private static final byte[] SUCCESS = {AgentProtocol.SSH_AGENT_SUCCESS};

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final List<String> asked = new ArrayList<>();
    private final AtomicBoolean answer = new AtomicBoolean(true);

    private Agent agent(long defaultLifetime) {
        return new Agent(defaultLifetime, e -> {
            asked.add(e.comment());
            return answer.get();
        }, now::get);
    }

    private static SshSigningKey ed25519() {
        return SshSigningKey.generate(SignatureKeyType.ED25519, RANDOM);
    }

    private static MlKemSshKey mlkem() {
        return new MlKemSshKey(MlKem.generate(KemAlgorithm.MLKEM768, RANDOM));
    }

    private static byte[] add(SshPrivateKey key, String comment, byte[] tail) {
        SshWriter w = new SshWriter().putByte(tail.length == 0 ? AgentProtocol.SSH_AGENTC_ADD_IDENTITY
                : AgentProtocol.SSH_AGENTC_ADD_ID_CONSTRAINED).putString(key.keyType());
        key.writePrivateFields(w);
        return w.putString(comment).putRaw(tail).toByteArray();
    }

    private static byte[] constraints(KeyConstraints c) {
        return c.write(new SshWriter()).toByteArray();
    }

    private static byte[] sign(SshPrivateKey key) {
        return new SshWriter().putByte(AgentProtocol.SSH_AGENTC_SIGN_REQUEST).putString(key.publicKeyBlob())
                .putString("data".getBytes(StandardCharsets.US_ASCII)).putUint32(0).toByteArray();
    }

    private static byte[] kemRequest(MlKemSshKey key) {
        byte[] pk = key.keyPair().publicKey();
        byte[] ct = MlKem.encapsulate(KemAlgorithm.MLKEM768, pk, RANDOM).ciphertext();
        return new KemAuthExtension.ResponseRequest(key.publicKeyBlob(), new byte[32], "alice", "ssh-connection",
                KemAuthMethod.PUBLICKEY_KEM, "mlkem768", new KemChallenge("mlkem768", pk, ct)).encode();
    }

    private static int identityCount(Agent a) throws Exception {
        SshReader r = new SshReader(a.handle(new byte[] {AgentProtocol.SSH_AGENTC_REQUEST_IDENTITIES}));
        assertEquals(AgentProtocol.SSH_AGENT_IDENTITIES_ANSWER, r.getByte());
        return (int) r.getUint32();
    }

    private static byte[] lock(boolean lock, String pass) {
        return new SshWriter().putByte(lock ? AgentProtocol.SSH_AGENTC_LOCK : AgentProtocol.SSH_AGENTC_UNLOCK)
                .putString(pass.getBytes(StandardCharsets.UTF_8)).toByteArray();
    }

    private void advanceSeconds(long s) {
        now.addAndGet(TimeUnit.SECONDS.toNanos(s));
    }

    @Test
    void lifetimeRemovesSignatureAndKemKeysWhenItEnds() throws Exception {
        Agent a = agent(KeyConstraints.NO_LIFETIME);
        SshSigningKey ed = ed25519();
        MlKemSshKey kem = mlkem();
        SshSigningKey forever = ed25519();
        assertArrayEquals(SUCCESS, a.handle(add(ed, "ed", constraints(new KeyConstraints(2, false)))));
        assertArrayEquals(SUCCESS, a.handle(add(kem, "kem", constraints(new KeyConstraints(3, false)))));
        assertArrayEquals(SUCCESS, a.handle(add(forever, "forever", new byte[0])));
        List<SshPrivateKey> held = a.entries().stream().map(Agent.Entry::key).toList(); // the agent's own copies
        advanceSeconds(1);
        assertEquals(2, identityCount(a));
        assertEquals(AgentProtocol.SSH_AGENT_SIGN_RESPONSE, a.handle(sign(ed))[0]);
        assertEquals(AgentProtocol.SSH_AGENT_SUCCESS, a.handle(kemRequest(kem))[0]);
        advanceSeconds(1); // ed's 2 s are over
        assertEquals(1, identityCount(a));
        assertArrayEquals(FAILURE, a.handle(sign(ed)));
        assertTrue(held.get(0).isDestroyed(), "an expired key must be wiped");
        assertEquals(AgentProtocol.SSH_AGENT_SUCCESS, a.handle(kemRequest(kem))[0]);
        advanceSeconds(1);
        assertArrayEquals(new byte[] {AgentProtocol.SSH_AGENT_EXTENSION_FAILURE}, a.handle(kemRequest(kem)));
        assertTrue(held.get(1).isDestroyed());
        assertFalse(held.get(2).isDestroyed());
        assertEquals(1, a.entries().size());
        assertEquals("forever", a.entries().get(0).comment());
    }

    @Test
    void defaultLifetimeAppliesOnlyToKeysAddedWithoutOne() throws Exception {
        Agent a = agent(5);
        assertArrayEquals(SUCCESS, a.handle(add(ed25519(), "default", new byte[0])));
        assertArrayEquals(SUCCESS, a.handle(add(ed25519(), "own", constraints(new KeyConstraints(10, false)))));
        advanceSeconds(5);
        assertEquals(List.of("own"), a.entries().stream().map(Agent.Entry::comment).toList());
        advanceSeconds(5);
        assertTrue(a.entries().isEmpty());
    }

    @Test
    void reaperRemovesKeysWithoutAnyRequest() throws Exception {
        Agent a = new Agent(KeyConstraints.NO_LIFETIME, Agent.REFUSE, System::nanoTime);
        SshSigningKey ed = ed25519();
        a.add(ed, "short", new KeyConstraints(1, false));
        Thread reaper = new Thread(a::reapUntilInterrupted, "test-reaper");
        reaper.setDaemon(true);
        reaper.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!ed.isDestroyed() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(ed.isDestroyed(), "the reaper did not wipe the key after its 1 s lifetime");
        } finally {
            reaper.interrupt();
            reaper.join(5000);
        }
    }

    @Test
    void confirmAsksBeforeEachSignatureAndEachDecapsulation() throws Exception {
        Agent a = agent(KeyConstraints.NO_LIFETIME);
        SshSigningKey ed = ed25519();
        MlKemSshKey kem = mlkem();
        a.handle(add(ed, "ed", constraints(new KeyConstraints(KeyConstraints.NO_LIFETIME, true))));
        a.handle(add(kem, "kem", constraints(new KeyConstraints(KeyConstraints.NO_LIFETIME, true))));
        assertEquals(AgentProtocol.SSH_AGENT_SIGN_RESPONSE, a.handle(sign(ed))[0]);
        assertEquals(AgentProtocol.SSH_AGENT_SUCCESS, a.handle(kemRequest(kem))[0]);
        assertEquals(List.of("ed", "kem"), asked);
        answer.set(false);
        assertArrayEquals(FAILURE, a.handle(sign(ed)));
        assertArrayEquals(new byte[] {AgentProtocol.SSH_AGENT_EXTENSION_FAILURE}, a.handle(kemRequest(kem)));
        assertEquals(List.of("ed", "kem", "ed", "kem"), asked);
        // listing never asks
        assertEquals(1, identityCount(a));
        assertEquals(4, asked.size());
    }

    @Test
    void withoutAWayToAskAConfirmKeyIsNeverUsed() {
        Agent a = new Agent();
        SshSigningKey ed = ed25519();
        a.handle(add(ed, "ed", constraints(new KeyConstraints(KeyConstraints.NO_LIFETIME, true))));
        assertArrayEquals(FAILURE, a.handle(sign(ed)));
    }

    @Test
    void unknownOrRepeatedConstraintsRefuseTheKey() throws Exception {
        Agent a = agent(KeyConstraints.NO_LIFETIME);
        SshSigningKey ed = ed25519();
        assertArrayEquals(FAILURE, a.handle(add(ed, "x", new byte[] {7})));
        byte[] ext = new SshWriter().putByte(AgentProtocol.SSH_AGENT_CONSTRAIN_EXTENSION)
                .putString("sk-provider@openssh.com").putString("internal").toByteArray();
        assertArrayEquals(FAILURE, a.handle(add(ed25519(), "x", ext)));
        byte[] twice = new SshWriter().putByte(AgentProtocol.SSH_AGENT_CONSTRAIN_CONFIRM)
                .putByte(AgentProtocol.SSH_AGENT_CONSTRAIN_CONFIRM).toByteArray();
        assertArrayEquals(FAILURE, a.handle(add(ed25519(), "x", twice)));
        assertArrayEquals(FAILURE, a.handle(add(mlkem(), "x", new byte[] {AgentProtocol.SSH_AGENT_CONSTRAIN_LIFETIME, 0})));
        assertEquals(0, identityCount(a));
        assertTrue(a.entries().isEmpty());
    }

    @Test
    void lockedAgentListsNothingAndRefusesEverythingButUnlock() throws Exception {
        Agent a = agent(KeyConstraints.NO_LIFETIME);
        SshSigningKey ed = ed25519();
        MlKemSshKey kem = mlkem();
        a.handle(add(ed, "ed", new byte[0]));
        a.handle(add(kem, "kem", new byte[0]));
        assertArrayEquals(FAILURE, a.handle(lock(true, "")), "empty lock passphrase");
        assertArrayEquals(FAILURE, a.handle(lock(false, "pw")), "unlocking an unlocked agent");
        assertArrayEquals(SUCCESS, a.handle(lock(true, "pw")));
        assertTrue(a.isLocked());
        assertArrayEquals(FAILURE, a.handle(lock(true, "other")), "locking a locked agent");
        assertEquals(0, identityCount(a));
        assertArrayEquals(FAILURE, a.handle(sign(ed)));
        assertArrayEquals(FAILURE, a.handle(kemRequest(kem)));
        assertArrayEquals(FAILURE, a.handle(new SshWriter().putByte(AgentProtocol.SSH_AGENTC_EXTENSION)
                .putString(KemAuthExtension.IDENTITIES).toByteArray()));
        assertArrayEquals(FAILURE, a.handle(add(ed25519(), "new", new byte[0])));
        assertArrayEquals(FAILURE, a.handle(new byte[] {AgentProtocol.SSH_AGENTC_REMOVE_ALL_IDENTITIES}));
        long t0 = System.nanoTime();
        assertArrayEquals(FAILURE, a.handle(lock(false, "PW")), "wrong unlock passphrase");
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(90), "no delay after a wrong passphrase");
        assertTrue(a.isLocked());
        assertArrayEquals(SUCCESS, a.handle(lock(false, "pw")));
        assertFalse(a.isLocked());
        assertEquals(1, identityCount(a));
        assertEquals(AgentProtocol.SSH_AGENT_SIGN_RESPONSE, a.handle(sign(ed))[0]);
        assertEquals(AgentProtocol.SSH_AGENT_SUCCESS, a.handle(kemRequest(kem))[0]);
        assertEquals(2, a.entries().size(), "locking must keep the keys");
    }

    @Test
    void constraintsRoundTripAsSshAddWritesThem() throws Exception {
        KeyConstraints c = new KeyConstraints(3600, true);
        byte[] wire = constraints(c);
        assertArrayEquals(new byte[] {1, 0, 0, 0x0e, 0x10, 2}, wire);
        assertEquals(c, KeyConstraints.read(new SshReader(wire)));
        assertEquals(KeyConstraints.NONE, KeyConstraints.read(new SshReader(new byte[0])));
    }
}
