package io.pqssh.client.ssh;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.apache.sshd.common.cipher.BuiltinCiphers;
import org.apache.sshd.common.compression.BuiltinCompressions;
import org.apache.sshd.common.kex.BuiltinDHFactories;
import org.apache.sshd.common.mac.BuiltinMacs;
import org.apache.sshd.common.signature.BuiltinSignatures;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.mina.keys.PqSignatureFactories;

/** {@code -V} and {@code -Q}: what this build supports, one name a line, as ssh prints it. */
public final class Queries {
    private Queries() {
    }

    public static String version() {
        return "pqssh 0.1.0 (Apache MINA SSHD " + pkgVersion(org.apache.sshd.client.SshClient.class, "2.20.0")
                + ", Bouncy Castle " + pkgVersion(org.bouncycastle.jce.provider.BouncyCastleProvider.class, "1.87")
                + ", Java " + Runtime.version().feature() + ")";
    }

    private static String pkgVersion(Class<?> c, String dflt) {
        String v = c.getPackage() == null ? null : c.getPackage().getImplementationVersion();
        return v == null ? dflt : v;
    }

    /** ssh -Q: kex, key (key-plain), sig, cipher, cipher-auth, mac, compression, kem; unknown is an error. */
    public static List<String> query(String what) {
        List<String> out = new ArrayList<>();
        switch (what.toLowerCase(Locale.ROOT)) {
            case "kex" -> {
                for (BuiltinDHFactories f : BuiltinDHFactories.VALUES) {
                    if (f.isSupported()) {
                        out.add(f.getName());
                    }
                }
            }
            case "key", "key-plain", "sig", "hostkeyalgorithms", "pubkeyacceptedalgorithms" -> {
                for (BuiltinSignatures s : BuiltinSignatures.VALUES) {
                    if (s.isSupported()) {
                        out.add(s.getName());
                    }
                }
                PqSignatureFactories.canonical().forEach(f -> {
                    if (!out.contains(f.getName())) {
                        out.add(f.getName());
                    }
                });
            }
            case "cipher", "ciphers" -> {
                for (BuiltinCiphers c : BuiltinCiphers.VALUES) {
                    if (c.isSupported() && c != BuiltinCiphers.none) {
                        out.add(c.getName());
                    }
                }
            }
            case "cipher-auth" -> {
                for (BuiltinCiphers c : BuiltinCiphers.VALUES) {
                    if (c.isSupported() && (c.getName().contains("gcm") || c.getName().contains("chacha"))) {
                        out.add(c.getName());
                    }
                }
            }
            case "mac", "macs" -> {
                for (BuiltinMacs m : BuiltinMacs.VALUES) {
                    if (m.isSupported()) {
                        out.add(m.getName());
                    }
                }
            }
            case "compression" -> {
                for (BuiltinCompressions c : BuiltinCompressions.VALUES) {
                    out.add(c.getName());
                }
            }
            case "kem", "kemauthalgorithms" -> {
                for (KemAlgorithm a : KemAlgorithm.values()) {
                    out.add(a.sshName());
                }
            }
            default -> throw new IllegalArgumentException("Unsupported query \"" + what + "\" (kex, key, sig,"
                    + " cipher, cipher-auth, mac, compression, kem)");
        }
        return out;
    }
}
