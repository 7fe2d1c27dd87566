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
    public static final List<String> OPENSSH10_CLIENT_KEX = io.pqssh.mina.internal.kex.KexInitDefaults.OPENSSH_CLIENT_KEX;

    /** What pqssh's client proposes. */
    public static final List<String> PQSSH_KEX = io.pqssh.mina.internal.kex.KexInitDefaults.CLIENT_KEX;

    public static final String STRICT_KEX_SERVER = "kex-strict-s-v00@openssh.com";

    /** Markers in kex_algorithms that are not key exchange methods. */
    private static final Set<String> PSEUDO_KEX = Set.of("ext-info-s", "ext-info-c", "kex-strict-s-v00@openssh.com",
            "kex-strict-c-v00@openssh.com", "ext-info-in-auth@openssh.com");

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

    /**
     * Which OpenSSH release line a name of the ML-DSA-44 + Ed25519 composite belongs to: {@code openssh-10.6} for
     * {@code ssh-mldsa44-ed25519} and its certificate {@code ssh-mldsa44-ed25519-cert}, {@code openssh-10.4} for the
     * earlier {@code ssh-mldsa44-ed25519@openssh.com} (10.4 and 10.5) and its certificate
     * {@code ssh-mldsa44-ed25519-cert-v01@openssh.com} (the name in OpenSSH 10.5's ssh-mldsa-eddsa.c), {@code other}
     * for anything else.
     */
    public static String opensshNaming(String name) {
        return switch (name) {
            case "ssh-mldsa44-ed25519", "ssh-mldsa44-ed25519-cert" -> "openssh-10.6";
            case "ssh-mldsa44-ed25519@openssh.com", "ssh-mldsa44-ed25519-cert-v01@openssh.com" -> "openssh-10.4";
            default -> "other";
        };
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

    /**
     * One algorithm pqssh flags, with ssh-audit 3.x's reason. {@code severity}: {@code fail} and {@code warn} count as
     * weak (the {@code weak} list, {@code --fail-on weak}); {@code info} is reported with its reason but is not weak
     * (NIST P-curves, which ssh-audit fails as possibly back-doored, and encrypt-and-MAC modes, which it warns about).
     */
    public record Weakness(String kind, String name, String severity, String reason) {
        public boolean weak() {
            return !severity.equals("info");
        }
    }

    static final String SHA1 = "using broken SHA-1 hash algorithm";
    static final String NIST = "uses a NIST P-curve (ssh-audit 3.x fails it as possibly back-doored); information only";

    /** The judgement on one name of the given kind (kex, hostkey, cipher, mac), or null when it is fine. */
    public static Weakness judge(String kind, String n) {
        String l = n.toLowerCase(Locale.ROOT);
        return switch (kind) {
            case "kex" -> {
                if (l.equals("diffie-hellman-group1-sha1") || l.startsWith("gss-group1-sha1")) {
                    yield new Weakness(kind, n, "fail", "using small 1024-bit modulus and " + SHA1);
                }
                if (l.equals("rsa1024-sha1")) {
                    yield new Weakness(kind, n, "fail", "using small 1024-bit RSA modulus and " + SHA1);
                }
                if (l.endsWith("-sha1") || (l.startsWith("gss-") && l.contains("sha1"))) {
                    yield new Weakness(kind, n, "fail", SHA1);
                }
                if (l.startsWith("sntrup4591761")) {
                    yield new Weakness(kind, n, "warn", "the sntrup4591761 algorithm was withdrawn, as it may not"
                            + " provide strong post-quantum security");
                }
                if (l.equals("diffie-hellman-group14-sha256")) {
                    yield new Weakness(kind, n, "info", "2048-bit modulus only provides 112 bits of symmetric strength");
                }
                if (l.contains("nistp")) {
                    yield new Weakness(kind, n, "info", NIST);
                }
                yield null;
            }
            case "hostkey" -> {
                if (l.startsWith("ssh-dss") || l.equals("x509v3-sign-dss")) {
                    yield new Weakness(kind, n, "fail", "using small 1024-bit DSA modulus");
                }
                if (l.equals("ssh-rsa") || l.equals("ssh-rsa-cert-v01@openssh.com") || l.equals("x509v3-sign-rsa")) {
                    yield new Weakness(kind, n, "fail", SHA1 + " (SHA-1 RSA signatures, deprecated in OpenSSH 8.8)");
                }
                if (l.contains("nistp")) {
                    yield new Weakness(kind, n, "info", NIST);
                }
                yield null;
            }
            case "cipher" -> {
                if (l.equals("none")) {
                    yield new Weakness(kind, n, "fail", "no encryption/integrity");
                }
                if (l.startsWith("arcfour")) {
                    yield new Weakness(kind, n, "fail", "using broken RC4 cipher");
                }
                if (l.startsWith("3des")) {
                    yield new Weakness(kind, n, "fail", "using broken & deprecated 3DES cipher (64-bit block size)");
                }
                if (l.startsWith("des")) {
                    yield new Weakness(kind, n, "fail", "using broken DES cipher");
                }
                if (l.startsWith("blowfish") || l.startsWith("cast128") || l.startsWith("idea")) {
                    yield new Weakness(kind, n, "fail", "using weak & deprecated 64-bit block cipher");
                }
                if (l.startsWith("rijndael") || l.startsWith("seed") || l.startsWith("serpent")) {
                    yield new Weakness(kind, n, "fail", "using deprecated & non-standardized cipher");
                }
                if (l.endsWith("-cbc")) {
                    yield new Weakness(kind, n, "warn", "using weak cipher mode (CBC)");
                }
                yield null;
            }
            case "mac" -> {
                if (l.equals("none")) {
                    yield new Weakness(kind, n, "fail", "no integrity");
                }
                if (l.contains("md5")) {
                    yield new Weakness(kind, n, "fail", "using broken MD5 hash algorithm");
                }
                if (l.contains("ripemd")) {
                    yield new Weakness(kind, n, "fail", "using deprecated RIPEMD hash algorithm");
                }
                if (l.startsWith("hmac-sha1")) {
                    yield new Weakness(kind, n, "fail", SHA1);
                }
                if (l.startsWith("umac-32")) {
                    yield new Weakness(kind, n, "fail", "using small 32-bit tag size");
                }
                if (l.startsWith("umac-64")) {
                    yield new Weakness(kind, n, "warn", "using small 64-bit tag size");
                }
                if (!l.contains("-etm@") && !l.contains("gcm") && !l.contains("poly1305")) {
                    yield new Weakness(kind, n, "info", "using encrypt-and-MAC mode (ssh-audit warns; the -etm"
                            + " variant is preferred)");
                }
                yield null;
            }
            default -> null;
        };
    }

    /** All flagged algorithms of a KEXINIT (weak and info), each once, in kex, hostkey, cipher, mac order. */
    public static List<Weakness> weaknesses(KexInit k) {
        List<Weakness> out = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        judgeAll(out, seen, "kex", k.kex());
        judgeAll(out, seen, "hostkey", k.hostKey());
        judgeAll(out, seen, "cipher", concat(k.ciphersC2S(), k.ciphersS2C()));
        judgeAll(out, seen, "mac", concat(k.macsC2S(), k.macsS2C()));
        return out;
    }

    private static void judgeAll(List<Weakness> out, java.util.Set<String> seen, String kind, List<String> names) {
        for (String n : names) {
            if (kind.equals("kex") && isPseudoKex(n)) {
                continue;
            }
            Weakness w = judge(kind, n);
            if (w != null && seen.add(kind + ":" + n)) {
                out.add(w);
            }
        }
    }

    /** Weak algorithms (fail and warn) in a KEXINIT, each as {@code kind:name}. */
    public static List<String> weak(KexInit k) {
        return weaknesses(k).stream().filter(Weakness::weak).map(w -> w.kind() + ":" + w.name()).toList();
    }

    /** Whether one algorithm name (of any kind) is weak (fail or warn); for config audits. */
    public static boolean isWeakName(String n) {
        for (String kind : List.of("kex", "hostkey", "cipher", "mac")) {
            Weakness w = judge(kind, n);
            if (w != null && w.weak()) {
                return true;
            }
        }
        return false;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> l = new ArrayList<>(a);
        l.addAll(b);
        return l;
    }

}
