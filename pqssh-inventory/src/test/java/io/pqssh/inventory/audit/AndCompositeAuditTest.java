package io.pqssh.inventory.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;

/**
 * The KEMUAuth artifact's AND composites in an {@code authorized_keys}: a PQ credential (as OpenSSH's
 * ML-DSA-44+Ed25519 composite), so an Ed25519 key next to one is the forgotten classical key, and alone they raise
 * no classical-key finding.
 */
class AndCompositeAuditTest {
    private static final SecureRandom RND = new SecureRandom();

    private static String line(SignatureKeyType t, String comment) {
        SshSigningKey k = SshSigningKey.generate(t, RND);
        try {
            return k.publicKey().toOpenSsh(comment);
        } finally {
            k.destroy();
        }
    }

    private static List<Finding> audit(Path home, String... lines) throws Exception {
        return auditWith(home, "PubkeyAcceptedAlgorithms +ssh-mldsa44-ed25519@openssh.com\n", lines);
    }

    /** The host's sshd_config (not audited itself) says which user key types sshd accepts. */
    private static List<Finding> auditWith(Path home, String sshdConfig, String... lines) throws Exception {
        Files.createDirectories(home);
        Files.writeString(home.resolve("authorized_keys"), String.join("\n", lines) + "\n");
        Path cfg = Files.createDirectories(home.resolveSibling(home.getFileName() + "-etc")).resolve("sshd_config");
        Files.writeString(cfg, sshdConfig);
        Auditor.Options o = new Auditor.Options();
        o.sshdConfig = cfg;
        o.passwd = null;
        return Auditor.audit(List.of(home), o);
    }

    @org.junit.jupiter.api.Test
    void openSshCompositeCountsOnlyWhereSshdAcceptsIt(@TempDir Path tmp) throws Exception {
        String composite = line(SignatureKeyType.MLDSA44_ED25519, "composite@new");
        String ed = line(SignatureKeyType.ED25519, "ed@old");
        // OpenSSH 10.5's default PubkeyAcceptedAlgorithms does not include it: not a working credential
        List<Finding> byDefault = auditWith(tmp.resolve("default"), "# defaults\n", composite, ed);
        assertEquals(Finding.Rules.PQ_KEY, byDefault.get(0).rule());
        assertTrue(byDefault.get(0).message().contains("not usable")
                && byDefault.get(0).message().contains("OpenSSH 10.5's default"), byDefault.get(0).message());
        assertEquals(Finding.Rules.CLASSICAL_KEY, byDefault.get(1).rule(), byDefault.toString());
        // an explicit list without it, and one removing it, are the same
        List<Finding> removed = auditWith(tmp.resolve("removed"), "PubkeyAcceptedAlgorithms ssh-ed25519,rsa-sha2-512\n",
                composite, ed);
        assertEquals(Finding.Rules.CLASSICAL_KEY, removed.get(1).rule(), removed.toString());
        assertTrue(removed.get(0).message().contains("PubkeyAcceptedAlgorithms at "), removed.get(0).message());
        // accepted: the classical key beside it is the forgotten one
        List<Finding> accepted = auditWith(tmp.resolve("accepted"),
                "PubkeyAcceptedAlgorithms ^ssh-mldsa44-ed25519@openssh.com\n", composite, ed);
        assertEquals(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ, accepted.get(1).rule(), accepted.toString());
        List<Finding> wildcard = auditWith(tmp.resolve("wildcard"), "PubkeyAcceptedAlgorithms ssh-mldsa44*,ssh-ed25519\n",
                composite, ed);
        assertEquals(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ, wildcard.get(1).rule(), wildcard.toString());
    }

    /**
     * OpenSSH 10.6's name is judged against 10.6's default (it is on there; a 10.5 sshd does not know it at all), and
     * its certificate name ssh-mldsa44-ed25519-cert is a certificate of the composite family.
     */
    @org.junit.jupiter.api.Test
    void ietfCompositeIsAWorkingCredentialUnderOpenSsh106Defaults(@TempDir Path tmp) throws Exception {
        String composite = line(SignatureKeyType.MLDSA44_ED25519_IETF, "composite@10.6");
        String ed = line(SignatureKeyType.ED25519, "ed@old");
        List<Finding> byDefault = auditWith(tmp.resolve("default"), "# defaults\n", composite, ed);
        assertEquals(Finding.Rules.PQ_KEY, byDefault.get(0).rule());
        assertEquals("ssh-mldsa44-ed25519", byDefault.get(0).keyType());
        assertEquals("COMPOSITE", byDefault.get(0).family());
        assertTrue(byDefault.get(0).message().contains("needs OpenSSH 10.6's sshd or pqssh"),
                byDefault.get(0).message());
        assertEquals(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ, byDefault.get(1).rule(), byDefault.toString());
        List<Finding> removed = auditWith(tmp.resolve("removed"), "PubkeyAcceptedAlgorithms -ssh-mldsa44-ed25519\n",
                composite, ed);
        assertTrue(removed.get(0).message().contains("not usable")
                && removed.get(0).message().contains("PubkeyAcceptedAlgorithms at "), removed.get(0).message());
        assertEquals(Finding.Rules.CLASSICAL_KEY, removed.get(1).rule(), removed.toString());
        // the 10.4/10.5 name allowed explicitly does not make the 10.6 name usable
        List<Finding> oldOnly = auditWith(tmp.resolve("old"),
                "PubkeyAcceptedAlgorithms ssh-mldsa44-ed25519@openssh.com,ssh-ed25519\n", composite, ed);
        assertTrue(oldOnly.get(0).message().contains("not usable"), oldOnly.get(0).message());

        assertTrue(KeyInfo.isCertificate("ssh-mldsa44-ed25519-cert"));
        assertEquals(KeyInfo.Family.COMPOSITE, KeyInfo.family("ssh-mldsa44-ed25519-cert"));
        assertEquals("ssh-mldsa44-ed25519", KeyInfo.plainType("ssh-mldsa44-ed25519-cert"));
        assertEquals("ssh-mldsa44-ed25519@openssh.com",
                KeyInfo.plainType("ssh-mldsa44-ed25519-cert-v01@openssh.com"));
        assertEquals(KeyInfo.Family.COMPOSITE, KeyInfo.family("ssh-mldsa44-ed25519-cert-v01@openssh.com"));
    }

    @ParameterizedTest
    @EnumSource(value = SignatureKeyType.class, names = {"ED25519_MLDSA_65", "ED25519_SLHDSA_SHA2_192F",
            "MLDSA44_ED25519", "MLDSA44_ED25519_IETF"})
    void compositeBesideEd25519GivesTheFindingAndAloneNone(SignatureKeyType type, @TempDir Path tmp)
            throws Exception {
        assertEquals(KeyInfo.Family.COMPOSITE, KeyInfo.family(type.sshName()), type.sshName());

        List<Finding> mixed = audit(tmp.resolve("mixed"), line(type, "and@new"), line(SignatureKeyType.ED25519,
                "ed@old"));
        assertEquals(2, mixed.size(), mixed.toString());
        Finding pq = mixed.get(0);
        assertEquals(Finding.Rules.PQ_KEY, pq.rule(), pq.toString());
        assertEquals(1, pq.line());
        assertEquals(type.sshName(), pq.keyType());
        assertEquals("COMPOSITE", pq.family());
        Finding ed = mixed.get(1);
        assertEquals(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ, ed.rule(), ed.toString());
        assertEquals("error", ed.severity());
        assertEquals(2, ed.line());
        assertEquals("ssh-ed25519", ed.keyType());

        List<Finding> alone = audit(tmp.resolve("alone"), line(type, "and@new"));
        assertEquals(1, alone.size(), alone.toString());
        assertEquals(Finding.Rules.PQ_KEY, alone.get(0).rule(), alone.toString());
        assertTrue(alone.stream().noneMatch(f -> f.rule().equals(Finding.Rules.CLASSICAL_KEY)
                || f.rule().equals(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ)), alone.toString());
    }
}
