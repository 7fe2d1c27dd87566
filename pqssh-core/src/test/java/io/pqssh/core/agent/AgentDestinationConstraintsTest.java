package io.pqssh.core.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.core.auth.KemChallenge;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.keys.kem.MlKemSshKey;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * Destination constraints ({@code restrict-destination-v00@openssh.com}) and {@code session-bind@openssh.com} in
 * {@link Agent}, on the wire messages OpenSSH's ssh-add and ssh send, with the outcomes OpenSSH's ssh-agent gives:
 * listing, signing and KEM decapsulation per connection, for the first hop and through a forwarded hop.
 */
class AgentDestinationConstraintsTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] FAILURE = {AgentProtocol.SSH_AGENT_FAILURE};
    private static final byte[] SUCCESS = {AgentProtocol.SSH_AGENT_SUCCESS};
    private static final byte[] EXT_FAILURE = {AgentProtocol.SSH_AGENT_EXTENSION_FAILURE};

    private final SshSigningKey hostA = ed25519();
    private final SshSigningKey hostB = ed25519();
    private final SshSigningKey hostC = ed25519();
    private final Agent agent = new Agent();

    private static SshSigningKey ed25519() {
        return SshSigningKey.generate(SignatureKeyType.ED25519, RANDOM);
    }

    private static DestinationConstraint.Hop hop(String user, String name, SshSigningKey... keys) {
        List<DestinationConstraint.HostKey> ks = new ArrayList<>();
        for (SshSigningKey k : keys) {
            ks.add(new DestinationConstraint.HostKey(k.publicKeyBlob(), false));
        }
        return new DestinationConstraint.Hop(user, name, ks);
    }

    private static KeyConstraints dest(DestinationConstraint... cs) {
        return new KeyConstraints(KeyConstraints.NO_LIFETIME, false, List.of(cs));
    }

    private static byte[] add(SshPrivateKey key, KeyConstraints c) {
        SshWriter w = new SshWriter().putByte(AgentProtocol.SSH_AGENTC_ADD_ID_CONSTRAINED).putString(key.keyType());
        key.writePrivateFields(w);
        w.putString("comment");
        return c.write(w).toByteArray();
    }

    private static byte[] sid() {
        byte[] s = new byte[32];
        RANDOM.nextBytes(s);
        return s;
    }

    private static byte[] bind(SshSigningKey host, byte[] sid, boolean forwarding) {
        return bind(host, sid, host.sign(sid), forwarding);
    }

    private static byte[] bind(SshSigningKey host, byte[] sid, byte[] sig, boolean forwarding) {
        return new SshWriter().putByte(AgentProtocol.SSH_AGENTC_EXTENSION).putString(SessionBindings.EXTENSION)
                .putString(host.publicKeyBlob()).putString(sid).putString(sig).putByte(forwarding ? 1 : 0)
                .toByteArray();
    }

    /** The data ssh signs for publickey (host key null) or publickey-hostbound-v00@openssh.com. */
    private static byte[] userauth(byte[] sid, String user, SshSigningKey key, SshSigningKey hostKey) {
        SshWriter w = new SshWriter().putString(sid).putByte(50).putString(user).putString("ssh-connection")
                .putString(hostKey == null ? "publickey" : "publickey-hostbound-v00@openssh.com").putByte(1)
                .putString(key.keyType()).putString(key.publicKeyBlob());
        if (hostKey != null) {
            w.putString(hostKey.publicKeyBlob());
        }
        return w.toByteArray();
    }

    private static byte[] sign(SshSigningKey key, byte[] data) {
        return new SshWriter().putByte(AgentProtocol.SSH_AGENTC_SIGN_REQUEST).putString(key.publicKeyBlob())
                .putString(data).putUint32(0).toByteArray();
    }

    private static int signed(Agent.Connection c, SshSigningKey key, byte[] data) {
        return c.handle(sign(key, data))[0];
    }

    private static int listed(Agent.Connection c) throws MalformedMessageException {
        SshReader r = new SshReader(c.handle(new byte[] {AgentProtocol.SSH_AGENTC_REQUEST_IDENTITIES}));
        assertEquals(AgentProtocol.SSH_AGENT_IDENTITIES_ANSWER, r.getByte());
        return (int) r.getUint32();
    }

    private static final int SIGNED = AgentProtocol.SSH_AGENT_SIGN_RESPONSE;
    private static final int REFUSED = AgentProtocol.SSH_AGENT_FAILURE;

    @Test
    void firstHopKeySignsOnlyForTheBoundPermittedHostUserAndSession() throws Exception {
        SshSigningKey user = ed25519();
        assertArrayEquals(SUCCESS, agent.handle(add(user,
                dest(new DestinationConstraint(DestinationConstraint.Hop.ORIGIN, hop("al*", "b.example", hostB))))));
        byte[] sidB = sid();

        Agent.Connection unbound = agent.connection();
        assertEquals(1, listed(unbound), "local use lists the key");
        assertEquals(REFUSED, signed(unbound, user, userauth(sidB, "alice", user, null)), "unbound: no signature");

        Agent.Connection toB = agent.connection();
        assertArrayEquals(SUCCESS, toB.handle(bind(hostB, sidB, false)));
        assertEquals(1, listed(toB));
        assertEquals(SIGNED, signed(toB, user, userauth(sidB, "alice", user, null)));
        assertEquals(SIGNED, signed(toB, user, userauth(sidB, "alice", user, hostB)), "host-bound method");
        assertEquals(REFUSED, signed(toB, user, userauth(sidB, "bob", user, null)), "user outside the pattern");
        assertEquals(REFUSED, signed(toB, user, userauth(sid(), "alice", user, null)), "another session id");
        assertEquals(REFUSED, signed(toB, user, userauth(sidB, "alice", user, hostA)), "another host key");
        assertEquals(REFUSED, signed(toB, user, "arbitrary data".getBytes()), "not a userauth request");
        assertArrayEquals(FAILURE, toB.handle(bind(hostC, sid(), false)), "bind after an authentication bind");

        Agent.Connection toA = agent.connection();
        byte[] sidA = sid();
        assertArrayEquals(SUCCESS, toA.handle(bind(hostA, sidA, false)));
        assertEquals(0, listed(toA), "not listed to a host it may not reach");
        assertEquals(REFUSED, signed(toA, user, userauth(sidA, "alice", user, null)));
        assertArrayEquals(FAILURE, toA.handle(new SshWriter().putByte(AgentProtocol.SSH_AGENTC_REMOVE_IDENTITY)
                .putString(user.publicKeyBlob()).toByteArray()), "removal through a connection that cannot see it");
        assertArrayEquals(FAILURE, toA.handle(add(user, KeyConstraints.NONE)), "replacement through it");
        assertEquals(1, agent.entries().size());
    }

    @Test
    void unconstrainedKeysAreUsableEverywhere() throws Exception {
        SshSigningKey free = ed25519();
        agent.add(free, "free");
        Agent.Connection toA = agent.connection();
        byte[] sidA = sid();
        assertArrayEquals(SUCCESS, toA.handle(bind(hostA, sidA, false)));
        assertEquals(1, listed(toA));
        assertEquals(SIGNED, signed(toA, free, "anything".getBytes()));
    }

    @Test
    void aFailedBindHidesConstrainedKeysOnThatConnection() throws Exception {
        SshSigningKey user = ed25519();
        agent.handle(add(user, dest(new DestinationConstraint(DestinationConstraint.Hop.ORIGIN,
                hop(null, "b", hostB)))));
        Agent.Connection c = agent.connection();
        byte[] sidB = sid();
        assertArrayEquals(FAILURE, c.handle(bind(hostB, sidB, hostA.sign(sidB), false)), "signature by another key");
        assertEquals(0, listed(c));
        assertArrayEquals(FAILURE, c.handle(new SshWriter().putByte(AgentProtocol.SSH_AGENTC_EXTENSION)
                .putString(SessionBindings.EXTENSION).putString(hostB.publicKeyBlob()).toByteArray()), "truncated");
        Agent.Connection tooLong = agent.connection();
        byte[] sid129 = new byte[129];
        assertArrayEquals(FAILURE, tooLong.handle(bind(hostB, sid129, false)), "session id over 128 bytes");
    }

    @Test
    void bindingRulesAsSshAgent() throws Exception {
        Agent.Connection c = agent.connection();
        byte[] s1 = sid();
        assertArrayEquals(SUCCESS, c.handle(bind(hostA, s1, true)));
        assertArrayEquals(SUCCESS, c.handle(bind(hostA, s1, true)), "the same binding again");
        assertArrayEquals(FAILURE, c.handle(bind(hostB, s1, hostB.sign(s1), true)), "known session id, other key");
        for (int i = 1; i < SessionBindings.MAX_BINDINGS; i++) {
            assertArrayEquals(SUCCESS, c.handle(bind(hostA, sid(), true)), "binding " + (i + 1));
        }
        assertArrayEquals(FAILURE, c.handle(bind(hostA, sid(), true)), "a 17th binding");
    }

    @Test
    void forwardedHopNeedsAChainOfConstraintsAndTheHostBoundMethod() throws Exception {
        SshSigningKey chain = ed25519();
        SshSigningKey onlyA = ed25519();
        agent.handle(add(chain, dest(new DestinationConstraint(DestinationConstraint.Hop.ORIGIN, hop(null, "a", hostA)),
                new DestinationConstraint(hop(null, "a", hostA), hop(null, "b", hostB)))));
        agent.handle(add(onlyA, dest(new DestinationConstraint(DestinationConstraint.Hop.ORIGIN,
                hop(null, "a", hostA)))));

        Agent.Connection viaA = agent.connection();
        byte[] sidA = sid();
        assertArrayEquals(SUCCESS, viaA.handle(bind(hostA, sidA, true)));
        assertEquals(1, listed(viaA), "on A, only the key usable beyond A is listed");
        assertEquals(REFUSED, signed(viaA, chain, userauth(sidA, "u", chain, hostA)), "signing on a forwarding hop");

        byte[] sidB = sid();
        assertArrayEquals(SUCCESS, viaA.handle(bind(hostB, sidB, false)));
        assertEquals(1, listed(viaA));
        assertEquals(SIGNED, signed(viaA, chain, userauth(sidB, "u", chain, hostB)));
        assertEquals(REFUSED, signed(viaA, chain, userauth(sidB, "u", chain, null)),
                "forwarded: the host key must be in the request");
        assertEquals(REFUSED, signed(viaA, onlyA, userauth(sidB, "u", onlyA, hostB)));

        Agent.Connection viaC = agent.connection();
        byte[] sidC = sid();
        viaC.handle(bind(hostC, sidC, true));
        byte[] sidB2 = sid();
        viaC.handle(bind(hostB, sidB2, false));
        assertEquals(0, listed(viaC));
        assertEquals(REFUSED, signed(viaC, chain, userauth(sidB2, "u", chain, hostB)), "C > B is not allowed");
    }

    @Test
    void kemDecapsulationFollowsTheSameRules() throws Exception {
        MlKemSshKey kem = new MlKemSshKey(MlKem.generate(KemAlgorithm.MLKEM768, RANDOM));
        agent.handle(add(kem, dest(new DestinationConstraint(DestinationConstraint.Hop.ORIGIN,
                hop("alice", "b", hostB)))));
        byte[] sidB = sid();
        Agent.Connection unbound = agent.connection();
        assertArrayEquals(EXT_FAILURE, unbound.handle(kemRequest(kem, sidB, "alice")));
        assertEquals(1, kemListed(unbound));

        Agent.Connection toB = agent.connection();
        toB.handle(bind(hostB, sidB, false));
        assertEquals(AgentProtocol.SSH_AGENT_SUCCESS, toB.handle(kemRequest(kem, sidB, "alice"))[0]);
        assertArrayEquals(EXT_FAILURE, toB.handle(kemRequest(kem, sid(), "alice")), "another session id");
        assertArrayEquals(EXT_FAILURE, toB.handle(kemRequest(kem, sidB, "bob")), "another user");

        Agent.Connection toA = agent.connection();
        byte[] sidA = sid();
        toA.handle(bind(hostA, sidA, false));
        assertEquals(0, kemListed(toA));
        assertArrayEquals(EXT_FAILURE, toA.handle(kemRequest(kem, sidA, "alice")));
    }

    private static byte[] kemRequest(MlKemSshKey key, byte[] sid, String user) {
        byte[] pk = key.keyPair().publicKey();
        byte[] ct = MlKem.encapsulate(KemAlgorithm.MLKEM768, pk, RANDOM).ciphertext();
        return new KemAuthExtension.ResponseRequest(key.publicKeyBlob(), sid, user, "ssh-connection",
                KemAuthMethod.PUBLICKEY_KEM, "mlkem768", new KemChallenge("mlkem768", pk, ct)).encode();
    }

    private static int kemListed(Agent.Connection c) throws MalformedMessageException {
        SshReader r = new SshReader(c.handle(new SshWriter().putByte(AgentProtocol.SSH_AGENTC_EXTENSION)
                .putString(KemAuthExtension.IDENTITIES).toByteArray()));
        assertEquals(AgentProtocol.SSH_AGENT_SUCCESS, r.getByte());
        return (int) r.getUint32();
    }

    @Test
    void wireFormatAsSshAddAndItsConsistencyRules() throws Exception {
        KeyConstraints c = new KeyConstraints(60, false, List.of(
                new DestinationConstraint(DestinationConstraint.Hop.ORIGIN, hop("u", "b", hostB)),
                new DestinationConstraint(hop(null, "a", hostA), hop(null, "c", hostC, hostB))));
        byte[] wire = c.write(new SshWriter()).toByteArray();
        assertEquals(c, KeyConstraints.read(new SshReader(wire)));
        // the layout of ssh-add's encode_dest_constraint: byte 255, name, string(string(from, to, reserved)...)
        SshReader r = new SshReader(wire);
        r.getByte();
        r.getUint32();
        assertEquals(AgentProtocol.SSH_AGENT_CONSTRAIN_EXTENSION, r.getByte());
        assertEquals(DestinationConstraint.EXTENSION, r.getUtf8());
        SshReader all = new SshReader(r.getString());
        SshReader first = new SshReader(all.getString());
        SshReader from = new SshReader(first.getString());
        assertEquals("", from.getUtf8());
        assertEquals("", from.getUtf8());
        assertEquals(0, from.getString().length);
        assertEquals(0, from.remaining());
        SshReader to = new SshReader(first.getString());
        assertEquals("u", to.getUtf8());
        assertEquals("b", to.getUtf8());
        to.getString();
        assertArrayEquals(hostB.publicKeyBlob(), to.getString());
        assertEquals(0, to.getByte());

        assertThrows(IllegalArgumentException.class,
                () -> new DestinationConstraint(hop("u", "a", hostA), hop(null, "b", hostB)), "user on from");
        assertThrows(IllegalArgumentException.class,
                () -> new DestinationConstraint(DestinationConstraint.Hop.ORIGIN, hop("u", "b")), "to without keys");
        byte[] userOnFrom = new SshWriter().putByte(AgentProtocol.SSH_AGENT_CONSTRAIN_EXTENSION)
                .putString(DestinationConstraint.EXTENSION).putString(new SshWriter().putString(new SshWriter()
                        .putString(new SshWriter().putString("u").putString("").putString(new byte[0]).toByteArray())
                        .putString(new SshWriter().putString("").putString("b").putString(new byte[0])
                                .putString(hostB.publicKeyBlob()).putByte(0).toByteArray())
                        .putString(new byte[0]).toByteArray()).toByteArray()).toByteArray();
        SshSigningKey k = ed25519();
        SshWriter w = new SshWriter().putByte(AgentProtocol.SSH_AGENTC_ADD_ID_CONSTRAINED).putString(k.keyType());
        k.writePrivateFields(w);
        assertArrayEquals(FAILURE, agent.handle(w.putString("c").putRaw(userOnFrom).toByteArray()));
    }
}
