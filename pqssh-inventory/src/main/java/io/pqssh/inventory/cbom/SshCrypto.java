package io.pqssh.inventory.cbom;

import java.util.List;
import java.util.Locale;

import org.cyclonedx.model.component.crypto.enums.CryptoFunction;
import org.cyclonedx.model.component.crypto.enums.Mode;
import org.cyclonedx.model.component.crypto.enums.Primitive;

/**
 * What a CBOM says about one SSH algorithm name: its primitive, parameter set, NIST post-quantum security category
 * and OID. A category is given only where NIST defines one for the primitive (ML-KEM, ML-DSA, SLH-DSA, Falcon, and
 * the AES key sizes the categories are defined by); classical public-key algorithms are category 0. OIDs only where
 * one registered OID names exactly the SSH algorithm's primitive (SSH's hybrid key exchanges have none).
 *
 * @param kind {@code kex}, {@code hostkey}, {@code cipher}, {@code mac} or {@code key} (a key's type)
 */
public record SshCrypto(String kind, String name, Primitive primitive, String parameterSet, String curve,
        Integer nistQuantumLevel, Integer classicalLevel, String oid, Mode mode, List<CryptoFunction> functions) {

    private static final List<CryptoFunction> KEM = List.of(CryptoFunction.KEYGEN, CryptoFunction.ENCAPSULATE,
            CryptoFunction.DECAPSULATE);
    private static final List<CryptoFunction> AGREE = List.of(CryptoFunction.KEYGEN, CryptoFunction.KEYDERIVE);
    private static final List<CryptoFunction> SIGN = List.of(CryptoFunction.SIGN, CryptoFunction.VERIFY);
    private static final List<CryptoFunction> CRYPT = List.of(CryptoFunction.ENCRYPT, CryptoFunction.DECRYPT);
    private static final List<CryptoFunction> TAG = List.of(CryptoFunction.TAG);

    /** The description of {@code name} as an algorithm of {@code kind}; never null (unknown names: primitive unknown). */
    public static SshCrypto of(String kind, String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return switch (kind) {
            case "kex" -> kex(n, name);
            case "hostkey", "key" -> signature(kind, n, name);
            case "cipher" -> cipher(n, name);
            case "mac" -> mac(n, name);
            default -> throw new IllegalArgumentException("unknown algorithm kind " + kind);
        };
    }

    private static SshCrypto kex(String n, String name) {
        if (n.startsWith("mlkem768")) {
            return new SshCrypto("kex", name, Primitive.KEM, "768", n.contains("nistp256") ? "secp256r1" : "curve25519",
                    3, 192, null, null, KEM);
        }
        if (n.startsWith("mlkem1024")) {
            return new SshCrypto("kex", name, Primitive.KEM, "1024", "secp384r1", 5, 256, null, null, KEM);
        }
        if (n.startsWith("mlkem512")) {
            return new SshCrypto("kex", name, Primitive.KEM, "512", null, 1, 128, null, null, KEM);
        }
        if (n.startsWith("sntrup761")) {
            // NTRU Prime was not standardised: no NIST category to state
            return new SshCrypto("kex", name, Primitive.KEM, "761", "curve25519", null, 128, null, null, KEM);
        }
        if (io.pqssh.inventory.scan.Algorithms.isPqKex(name)) {
            return new SshCrypto("kex", name, Primitive.KEM, null, null, null, null, null, null, KEM);
        }
        if (n.startsWith("curve25519-sha256")) {
            return new SshCrypto("kex", name, Primitive.KEY_AGREE, null, "curve25519", 0, 128, "1.3.101.110", null, AGREE);
        }
        if (n.startsWith("curve448-sha512")) {
            return new SshCrypto("kex", name, Primitive.KEY_AGREE, null, "curve448", 0, 224, "1.3.101.111", null, AGREE);
        }
        if (n.startsWith("ecdh-sha2-nistp")) {
            String bits = n.substring("ecdh-sha2-nistp".length());
            Integer level = switch (bits) {
                case "256" -> 128;
                case "384" -> 192;
                case "521" -> 256;
                default -> null;
            };
            return new SshCrypto("kex", name, Primitive.KEY_AGREE, null, "secp" + bits + "r1", 0, level, null, null,
                    AGREE);
        }
        if (n.startsWith("diffie-hellman-group")) {
            String modulus = n.startsWith("diffie-hellman-group1-") ? "1024"
                    : n.startsWith("diffie-hellman-group14-") ? "2048"
                    : n.startsWith("diffie-hellman-group15-") ? "3072"
                    : n.startsWith("diffie-hellman-group16-") ? "4096"
                    : n.startsWith("diffie-hellman-group17-") ? "6144"
                    : n.startsWith("diffie-hellman-group18-") ? "8192" : null;
            Integer level = modulus == null ? null : switch (modulus) {
                case "1024" -> 80;
                case "2048" -> 112;
                case "3072" -> 128;
                case "4096" -> 152;
                case "6144" -> 176;
                default -> 200;
            };
            return new SshCrypto("kex", name, Primitive.KEY_AGREE, modulus, null, 0, level, null, null, AGREE);
        }
        if (n.startsWith("rsa") && n.contains("-sha")) {
            return new SshCrypto("kex", name, Primitive.PKE, n.startsWith("rsa1024") ? "1024" : "2048", null, 0,
                    null, null, null, List.of(CryptoFunction.ENCRYPT, CryptoFunction.DECRYPT));
        }
        return new SshCrypto("kex", name, Primitive.UNKNOWN, null, null, null, null, null, null, null);
    }

    private static SshCrypto signature(String kind, String n, String name) {
        String base = n.replace("-cert-v01@openssh.com", "").replace("@openssh.com", "");
        if (base.contains("mldsa44") || base.contains("mldsa-44")) {
            return sig(kind, name, "44", 2, base.equals("ssh-mldsa-44") ? "2.16.840.1.101.3.4.3.17" : null);
        }
        if (base.contains("mldsa65") || base.contains("mldsa-65")) {
            return sig(kind, name, "65", 3, base.equals("ssh-mldsa-65") ? "2.16.840.1.101.3.4.3.18" : null);
        }
        if (base.contains("mldsa87") || base.contains("mldsa-87")) {
            return sig(kind, name, "87", 5, base.equals("ssh-mldsa-87") ? "2.16.840.1.101.3.4.3.19" : null);
        }
        if (base.contains("slhdsa") || base.contains("sphincs")) {
            boolean alone = base.startsWith("ssh-slhdsa") || base.startsWith("ssh-sphincs");
            if (base.contains("128f")) {
                return sig(kind, name, "SHA2-128f", 1, alone ? "2.16.840.1.101.3.4.3.21" : null);
            }
            if (base.contains("192f")) {
                return sig(kind, name, "SHA2-192f", 3, alone ? "2.16.840.1.101.3.4.3.23" : null);
            }
            if (base.contains("256f")) {
                return sig(kind, name, "SHA2-256f", 5, alone ? "2.16.840.1.101.3.4.3.25" : null);
            }
            return sig(kind, name, null, null, null);
        }
        if (base.contains("falcon512")) {
            return sig(kind, name, "512", 1, null);
        }
        if (base.contains("falcon1024")) {
            return sig(kind, name, "1024", 5, null);
        }
        if (io.pqssh.inventory.scan.Algorithms.isPqHostKey(name)) {
            return sig(kind, name, null, null, null);
        }
        if (base.equals("ssh-ed25519") || base.equals("sk-ssh-ed25519")) {
            return new SshCrypto(kind, name, Primitive.SIGNATURE, null, "ed25519", 0, 128, "1.3.101.112", null, SIGN);
        }
        if (base.equals("ssh-ed448")) {
            return new SshCrypto(kind, name, Primitive.SIGNATURE, null, "ed448", 0, 224, "1.3.101.113", null, SIGN);
        }
        if (base.startsWith("ecdsa-sha2-nistp") || base.startsWith("sk-ecdsa-sha2-nistp")) {
            String bits = base.substring(base.indexOf("nistp") + 5);
            String oid = switch (bits) {
                case "256" -> "1.2.840.10045.4.3.2";
                case "384" -> "1.2.840.10045.4.3.3";
                case "521" -> "1.2.840.10045.4.3.4";
                default -> null;
            };
            Integer level = switch (bits) {
                case "256" -> 128;
                case "384" -> 192;
                case "521" -> 256;
                default -> null;
            };
            return new SshCrypto(kind, name, Primitive.SIGNATURE, null, "secp" + bits + "r1", 0, level, oid, null,
                    SIGN);
        }
        if (base.equals("rsa-sha2-256")) {
            return new SshCrypto(kind, name, Primitive.SIGNATURE, null, null, 0, null, "1.2.840.113549.1.1.11", null,
                    SIGN);
        }
        if (base.equals("rsa-sha2-512")) {
            return new SshCrypto(kind, name, Primitive.SIGNATURE, null, null, 0, null, "1.2.840.113549.1.1.13", null,
                    SIGN);
        }
        if (base.equals("ssh-rsa")) {
            // as a host key algorithm: SHA-1 signatures; as a key type: an RSA key (whatever it signs with)
            return new SshCrypto(kind, name, Primitive.SIGNATURE, null, null, 0, null,
                    kind.equals("key") ? "1.2.840.113549.1.1.1" : "1.2.840.113549.1.1.5", null, SIGN);
        }
        if (base.equals("ssh-dss")) {
            return new SshCrypto(kind, name, Primitive.SIGNATURE, "1024", null, 0, 80, "1.2.840.10040.4.3", null,
                    SIGN);
        }
        return new SshCrypto(kind, name, Primitive.UNKNOWN, null, null, null, null, null, null, null);
    }

    private static SshCrypto sig(String kind, String name, String parameterSet, Integer level, String oid) {
        return new SshCrypto(kind, name, Primitive.SIGNATURE, parameterSet, null, level, null, oid, null, SIGN);
    }

    private static SshCrypto cipher(String n, String name) {
        if (n.startsWith("chacha20-poly1305")) {
            return new SshCrypto("cipher", name, Primitive.AE, "256", null, 5, 256, "1.2.840.113549.1.9.16.3.18",
                    null, CRYPT);
        }
        if (n.startsWith("aes")) {
            String bits = n.length() >= 6 ? n.substring(3, 6) : "";
            Integer q = switch (bits) {
                case "128" -> 1;
                case "192" -> 3;
                case "256" -> 5;
                default -> null;
            };
            Integer classical = q == null ? null : Integer.valueOf(bits);
            if (n.contains("-gcm")) {
                String oid = switch (bits) {
                    case "128" -> "2.16.840.1.101.3.4.1.6";
                    case "192" -> "2.16.840.1.101.3.4.1.26";
                    case "256" -> "2.16.840.1.101.3.4.1.46";
                    default -> null;
                };
                return new SshCrypto("cipher", name, Primitive.AE, bits, null, q, classical, oid, Mode.GCM, CRYPT);
            }
            if (n.endsWith("-cbc")) {
                String oid = switch (bits) {
                    case "128" -> "2.16.840.1.101.3.4.1.2";
                    case "192" -> "2.16.840.1.101.3.4.1.22";
                    case "256" -> "2.16.840.1.101.3.4.1.42";
                    default -> null;
                };
                return new SshCrypto("cipher", name, Primitive.BLOCK_CIPHER, bits, null, q, classical, oid, Mode.CBC,
                        CRYPT);
            }
            return new SshCrypto("cipher", name, Primitive.BLOCK_CIPHER, bits, null, q, classical, null,
                    n.contains("-ctr") ? Mode.CTR : null, CRYPT);
        }
        if (n.startsWith("3des")) {
            return new SshCrypto("cipher", name, Primitive.BLOCK_CIPHER, "168", null, 0, 112,
                    n.endsWith("-cbc") ? "1.2.840.113549.3.7" : null,
                    n.endsWith("-cbc") ? Mode.CBC : Mode.CTR, CRYPT);
        }
        if (n.startsWith("arcfour")) {
            return new SshCrypto("cipher", name, Primitive.STREAM_CIPHER, null, null, 0, null, null, null, CRYPT);
        }
        if (n.equals("none")) {
            return new SshCrypto("cipher", name, Primitive.OTHER, null, null, 0, 0, null, null, null);
        }
        return new SshCrypto("cipher", name, n.endsWith("-cbc") ? Primitive.BLOCK_CIPHER : Primitive.UNKNOWN, null,
                null, null, null, null, n.endsWith("-cbc") ? Mode.CBC : null, CRYPT);
    }

    private static SshCrypto mac(String n, String name) {
        String oid = n.startsWith("hmac-sha2-256") ? "1.2.840.113549.2.9"
                : n.startsWith("hmac-sha2-512") ? "1.2.840.113549.2.11"
                : n.startsWith("hmac-sha1") ? "1.2.840.113549.2.7"
                : n.startsWith("hmac-md5") ? "1.3.6.1.5.5.8.1.1" : null;
        String size = n.startsWith("hmac-sha2-256") ? "256" : n.startsWith("hmac-sha2-512") ? "512"
                : n.startsWith("hmac-sha1") ? "160" : n.startsWith("hmac-md5") ? "128"
                : n.startsWith("umac-64") ? "64" : n.startsWith("umac-128") ? "128" : n.startsWith("umac-32") ? "32"
                : null;
        if (n.equals("none")) {
            return new SshCrypto("mac", name, Primitive.OTHER, null, null, null, 0, null, null, null);
        }
        return new SshCrypto("mac", name, oid != null || size != null ? Primitive.MAC : Primitive.UNKNOWN, size, null,
                null, null, oid, null, TAG);
    }
}
