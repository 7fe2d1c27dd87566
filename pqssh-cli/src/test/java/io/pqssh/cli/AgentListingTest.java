package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.pqssh.cli.agent.AgentListing;
import io.pqssh.client.keys.FingerprintHash;
import io.pqssh.core.agent.AgentClient.Identity;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.core.wire.SshWriter;

/**
 * {@code pqssh add -l/-L} over an identity list holding types pqssh cannot describe, built here because no agent at
 * hand holds one (every type ssh-agent 9.2 or pqssh agent accepts is one pqssh describes): the listing goes on, the
 * rest is printed, one warning names what was left out.
 */
class AgentListingTest {
    private static final SecureRandom RANDOM = new SecureRandom();

    @Test
    void unknownTypesAreLeftOutOfMinusLWithOneWarningAndTheRestIsListed() {
        byte[] ed = SshSigningKey.generate(SignatureKeyType.ED25519, RANDOM).publicKeyBlob();
        byte[] unknown = new SshWriter().putString("ssh-future@example.com").putString(new byte[40]).toByteArray();
        // a certificate type name pqssh knows, but a blob that is not a certificate
        byte[] brokenCert = new SshWriter().putString("ssh-ed25519-cert-v01@openssh.com").putString(new byte[3])
                .toByteArray();
        byte[] control = new SshWriter().putString("evil\u001b[2Jtype").toByteArray();
        List<Identity> ids = List.of(new Identity(unknown, "u"), new Identity(ed, "me"),
                new Identity(brokenCert, "b"), new Identity(control, "c"), new Identity(new byte[] {0, 0}, "m"));

        AgentListing.Result l = AgentListing.of(ids, true, FingerprintHash.SHA256);
        assertEquals(1, l.lines().size(), l.lines().toString());
        assertTrue(l.lines().get(0).matches("256 SHA256:[A-Za-z0-9+/]{43} me \\(ED25519\\)"), l.lines().get(0));
        assertEquals("pqssh add: 4 identities of a key type pqssh cannot describe not listed: ssh-future@example.com,"
                + " ssh-ed25519-cert-v01@openssh.com, evil?[2Jtype, (malformed key blob)", l.warning());

        // -L needs only the type name: unknown types are printed, a name with control characters is not
        AgentListing.Result pub = AgentListing.of(ids, false, FingerprintHash.SHA256);
        assertEquals(List.of("ssh-future@example.com " + Base64.getEncoder().encodeToString(unknown) + " u",
                "ssh-ed25519 " + Base64.getEncoder().encodeToString(ed) + " me",
                "ssh-ed25519-cert-v01@openssh.com " + Base64.getEncoder().encodeToString(brokenCert) + " b"),
                pub.lines());
        assertEquals("pqssh add: 2 identities of a key type pqssh cannot describe not listed: evil?[2Jtype,"
                + " (malformed key blob)", pub.warning());

        assertNull(AgentListing.of(List.of(new Identity(ed, "")), true, FingerprintHash.SHA256).warning());
    }
}
