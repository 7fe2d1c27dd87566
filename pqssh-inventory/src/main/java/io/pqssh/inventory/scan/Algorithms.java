package io.pqssh.inventory.scan;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.mina.kex.PqKex;

/** Algorithm tables for classification: OpenSSH 10's client defaults, what is post-quantum, what is weak. */
public final class Algorithms {
    /** OpenSSH 10.x {@code KEX_CLIENT_KEX} (myproposal.h): the order a current OpenSSH client proposes. */
    public static final List<String> OPENSSH10_CLIENT_KEX = List.of(
            "mlkem768x25519-sha256",
            "sntrup761x25519-sha512",
            "sntrup761x25519-sha512@openssh.com",
            "curve25519-sha256",
            "curve25519-sha256@libssh.org",
            "ecdh-sha2-nistp256",
            "ecdh-sha2-nistp384",
            "ecdh-sha2-nistp521",
            "diffie-hellman-group-exchange-sha256",
            "diffie-hellman-group16-sha512",
            "diffie-hellman-group18-sha512",
            "diffie-hellman-group14-sha256");

    /** What pqssh's client proposes. */
    public static final List<String> PQSSH_KEX = io.pqssh.mina.kex.KexInitDefaults.CLIENT_KEX;

    public static final String STRICT_KEX_SERVER = "kex-strict-s-v00@openssh.com";

    /** Markers in kex_algorithms that are not key exchange methods. */
    private static final Set<String> PSEUDO_KEX = Set.of("ext-info-s", "ext-info-c", "kex-strict-s-v00@openssh.com",
            "kex-strict-c-v00@openssh.com", "ext-info-in-auth@openssh.com");

    private static final Set<String> WEAK_KEX = Set.of("diffie-hellman-group1-sha1", "diffie-hellman-group14-sha1",
            "diffie-hellman-group-exchange-sha1", "gss-gex-sha1-", "gss-group1-sha1-", "gss-group14-sha1-",
            "rsa1024-sha1", "diffie-hellman-group15-sha256");
    private static final Set<String> WEAK_HOSTKEY = Set.of("ssh-dss", "ssh-rsa", "ssh-dss-cert-v01@openssh.com",
            "ssh-rsa-cert-v01@openssh.com", "x509v3-sign-dss", "x509v3-sign-rsa");
    private static final Set<String> WEAK_MAC = Set.of("hmac-md5", "hmac-md5-96", "hmac-sha1-96", "hmac-md5-etm@openssh.com",
            "hmac-md5-96-etm@openssh.com", "hmac-sha1-96-etm@openssh.com", "hmac-ripemd160",
            "hmac-ripemd160@openssh.com", "hmac-ripemd160-etm@openssh.com", "umac-32@openssh.com", "none");
    private static final Set<String> WEAK_CIPHER = Set.of("arcfour", "arcfour128", "arcfour256", "3des-cbc",
            "blowfish-cbc", "cast128-cbc", "des-cbc", "des-cbc@ssh.com", "rijndael-cbc@lysator.liu.se", "none",
            "aes128-cbc", "aes192-cbc", "aes256-cbc", "twofish-cbc", "twofish128-cbc", "twofish256-cbc",
            "idea-cbc", "seed-cbc@ssh.com");

    private Algorithms() {
    }

    public static boolean isPseudoKex(String name) {
        return PSEUDO_KEX.contains(name);
    }

    public static boolean isPqKex(String name) {
        if (PqKex.isPostQuantum(name)) {
            return true;
        }
        String n = name.toLowerCase(Locale.ROOT);
        // other hybrids seen in the wild (OQS fork, vendor names)
        return n.contains("mlkem") || n.contains("ml-kem") || n.contains("sntrup") || n.contains("kyber")
                || n.contains("frodokem") || n.contains("bike") || n.contains("hqc");
    }

    /** Host key algorithms whose signatures survive a quantum adversary (ML-DSA, composite, SLH-DSA, Falcon). */
    public static boolean isPqHostKey(String name) {
        return SignatureKeyType.forName(name).map(t -> t != SignatureKeyType.ED25519).orElse(false)
                || name.contains("mldsa") || name.contains("ml-dsa") || name.contains("slhdsa")
                || name.contains("sphincs") || name.contains("falcon") || name.contains("dilithium");
    }

    /** The first entry of the client's list the server also offers (RFC 4253 7.1), or null. */
    public static String negotiate(List<String> client, List<String> server) {
        for (String c : client) {
            if (server.contains(c)) {
                return c;
            }
        }
        return null;
    }

    /** Weak algorithms in a KEXINIT, each as {@code kind:name}. */
    public static List<String> weak(KexInit k) {
        List<String> out = new ArrayList<>();
        for (String n : k.kex()) {
            if (WEAK_KEX.contains(n) || n.endsWith("-sha1") || n.startsWith("gss-") && n.contains("sha1")) {
                add(out, "kex:" + n);
            }
        }
        for (String n : k.hostKey()) {
            if (WEAK_HOSTKEY.contains(n)) {
                add(out, "hostkey:" + n);
            }
        }
        for (String n : concat(k.ciphersC2S(), k.ciphersS2C())) {
            if (WEAK_CIPHER.contains(n) || n.endsWith("-cbc") || n.startsWith("arcfour")) {
                add(out, "cipher:" + n);
            }
        }
        for (String n : concat(k.macsC2S(), k.macsS2C())) {
            if (WEAK_MAC.contains(n) || n.contains("md5") || n.contains("sha1-96")) {
                add(out, "mac:" + n);
            }
        }
        return out;
    }

    /** Whether one algorithm name (of any kind) is weak; for config audits. */
    public static boolean isWeakName(String n) {
        return WEAK_KEX.contains(n) || (n.startsWith("diffie-hellman") && n.endsWith("-sha1"))
                || WEAK_HOSTKEY.contains(n) || WEAK_CIPHER.contains(n) || n.endsWith("-cbc")
                || n.startsWith("arcfour") || WEAK_MAC.contains(n) || n.contains("md5") || n.contains("sha1-96");
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> l = new ArrayList<>(a);
        l.addAll(b);
        return l;
    }

    private static void add(List<String> out, String s) {
        if (!out.contains(s)) {
            out.add(s);
        }
    }
}
