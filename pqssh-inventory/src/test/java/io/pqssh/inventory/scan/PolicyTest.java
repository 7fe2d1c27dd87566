package io.pqssh.inventory.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** Policies like ssh-audit's: the file format, the built-in pq-baseline, --make-policy's output. */
class PolicyTest {
    static ScanResult server(List<String> kex, List<String> hk, List<String> ciphers, List<String> macs) {
        KexInit k = new KexInit(kex, hk, ciphers, ciphers, macs, macs, List.of("none"), List.of("none"), List.of(),
                List.of(), false);
        return new ScanResult(new Target("192.0.2.1", 22), ScanResult.Status.SSH, null, "SSH-2.0-OpenSSH_10.0",
                "OpenSSH_10.0", k, Classification.of(k), List.of(), 1, 0);
    }

    static final ScanResult MODERN = server(List.of("mlkem768x25519-sha256", "curve25519-sha256",
            "kex-strict-s-v00@openssh.com", "ext-info-s"), List.of("ssh-ed25519", "rsa-sha2-512"),
            List.of("chacha20-poly1305@openssh.com", "aes256-gcm@openssh.com"),
            List.of("hmac-sha2-256-etm@openssh.com"));
    static final ScanResult OLD = server(List.of("curve25519-sha256", "diffie-hellman-group14-sha1"),
            List.of("ssh-rsa", "ssh-ed25519"), List.of("aes128-ctr", "aes128-cbc"), List.of("hmac-sha1"));

    @Test
    void pqBaselineNeedsPqKexStrictKexAndNothingWeak() {
        Policy p = Policy.builtin(Policy.BASELINE);
        assertEquals(List.of(), p.check(MODERN));
        List<String> f = p.check(OLD);
        assertEquals(3, f.size(), f.toString());
        assertTrue(f.get(0).startsWith("no post-quantum key exchange"), f.toString());
        assertTrue(f.get(1).startsWith("no strict KEX"), f.toString());
        assertTrue(f.get(2).contains("kex:diffie-hellman-group14-sha1") && f.get(2).contains("mac:hmac-sha1"),
                f.toString());
        assertThrows(IllegalArgumentException.class, () -> Policy.builtin("pq-everything"));
    }

    @Test
    void fileFormatWithRequiredAndAllowedSets() {
        Policy p = Policy.parse(String.join("\n", "# fleet policy", "name = web",
                "kex_required = mlkem768x25519-sha256", "kex_allowed = mlkem768x25519-sha256, curve25519-sha256",
                "host_keys_allowed = ssh-ed25519", "ciphers_allowed = chacha20-poly1305@openssh.com, aes*-gcm@openssh.com",
                "macs_required = hmac-sha2-512-etm@openssh.com", "pq_kex_required = yes", ""), "web.policy");
        assertEquals("web", p.name());
        assertEquals(List.of("host_keys offered but not allowed: rsa-sha2-512",
                "macs required but not offered: hmac-sha2-512-etm@openssh.com"), p.check(MODERN));
        List<String> old = p.check(OLD);
        assertTrue(old.contains("kex required but not offered: mlkem768x25519-sha256"), old.toString());
        assertTrue(old.contains("kex offered but not allowed: diffie-hellman-group14-sha1"), old.toString());
        assertTrue(old.contains("ciphers offered but not allowed: aes128-ctr, aes128-cbc"), old.toString());

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Policy.parse("kex_alowed = x\n", "typo.policy"));
        assertTrue(e.getMessage().startsWith("typo.policy:1: unknown key 'kex_alowed'"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Policy.parse("pq_kex_required = maybe\n", "p"));
        assertThrows(IllegalArgumentException.class, () -> Policy.parse("just words\n", "p"));
    }

    @Test
    void madePolicyIsCompliedWithByItsServerOnly() {
        String text = Policy.make(MODERN);
        Policy p = Policy.parse(text, "made");
        assertEquals(List.of(), p.check(MODERN), text);
        assertTrue(text.contains("kex_required = mlkem768x25519-sha256"), text);
        assertTrue(text.contains("pq_kex_required = yes") && text.contains("strict_kex_required = yes"), text);
        assertTrue(p.check(OLD).size() >= 4, p.check(OLD).toString());
        ScanResult down = new ScanResult(new Target("192.0.2.9", 22), ScanResult.Status.UNREACHABLE,
                "unreachable: connection refused", null, null, null, null, List.of(), 1, 0);
        assertThrows(IllegalArgumentException.class, () -> Policy.make(down));
        assertEquals(List.of(), p.check(down), "only SSH servers are checked");
    }
}
