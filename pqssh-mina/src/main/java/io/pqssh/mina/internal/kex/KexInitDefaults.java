package io.pqssh.mina.internal.kex;

import java.util.ArrayList;
import java.util.List;

import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.cipher.BuiltinCiphers;
import org.apache.sshd.common.cipher.Cipher;
import org.apache.sshd.common.compression.BuiltinCompressions;
import org.apache.sshd.common.compression.Compression;
import org.apache.sshd.common.mac.BuiltinMacs;
import org.apache.sshd.common.mac.Mac;
import org.apache.sshd.common.signature.BuiltinSignatures;
import org.apache.sshd.common.signature.Signature;

import io.pqssh.mina.keys.PqSignatureFactories;

/**
 * The KEXINIT name-lists pqssh offers by default: OpenSSH 10.5's ({@code myproposal.h}) in OpenSSH's order, minus
 * what MINA SSHD cannot do (the {@code umac} MACs, {@code webauthn} and security-key certificate host key types)
 * and minus SHA-1 ({@code hmac-sha1}, {@code hmac-sha1-etm}), plus pqssh's post-quantum additions. MINA's own
 * defaults instead offer {@code ssh-rsa} (SHA-1) signatures, CBC ciphers, {@code hmac-sha1} and pre-authentication
 * {@code zlib}. docs/server-config.md lists the differences.
 */
public final class KexInitDefaults {
    /** OpenSSH 10.5's client KexAlgorithms, without pqssh's additions ({@link ClientKexNames#OPENSSH}). */
    public static final List<String> OPENSSH_CLIENT_KEX = ClientKexNames.OPENSSH;

    /** pqssh's client KexAlgorithms ({@link ClientKexNames#PQSSH}). */
    public static final List<String> CLIENT_KEX = ClientKexNames.PQSSH;

    /** OpenSSH 10.5's Ciphers: AEAD and CTR only, no CBC. */
    public static final List<BuiltinCiphers> CIPHERS = List.of(
            BuiltinCiphers.cc20p1305_openssh,
            BuiltinCiphers.aes128gcm,
            BuiltinCiphers.aes256gcm,
            BuiltinCiphers.aes128ctr,
            BuiltinCiphers.aes192ctr,
            BuiltinCiphers.aes256ctr);

    /** OpenSSH 10.5's MACs without {@code umac-*} (not in MINA) and without SHA-1. */
    public static final List<BuiltinMacs> MACS = List.of(
            BuiltinMacs.hmacsha256etm,
            BuiltinMacs.hmacsha512etm,
            BuiltinMacs.hmacsha256,
            BuiltinMacs.hmacsha512);

    /** {@code none}, then {@code zlib@openssh.com} (compression only after authentication); no plain {@code zlib}. */
    public static final List<BuiltinCompressions> COMPRESSION = List.of(
            BuiltinCompressions.none,
            BuiltinCompressions.delayedZlib);

    /**
     * OpenSSH 10.5's HostKeyAlgorithms that MINA implements, in OpenSSH's order: certificates first, no
     * {@code ssh-rsa} (SHA-1). The post-quantum types follow ({@link #hostKeyAlgorithms}).
     */
    public static final List<BuiltinSignatures> CLASSICAL_HOST_KEY_ALGORITHMS = List.of(
            BuiltinSignatures.ed25519_cert,
            BuiltinSignatures.nistp256_cert,
            BuiltinSignatures.nistp384_cert,
            BuiltinSignatures.nistp521_cert,
            BuiltinSignatures.rsaSHA512_cert,
            BuiltinSignatures.rsaSHA256_cert,
            BuiltinSignatures.ed25519,
            BuiltinSignatures.nistp256,
            BuiltinSignatures.nistp384,
            BuiltinSignatures.nistp521,
            BuiltinSignatures.sk_ssh_ed25519,
            BuiltinSignatures.sk_ecdsa_sha2_nistp256,
            BuiltinSignatures.rsaSHA512,
            BuiltinSignatures.rsaSHA256);

    private KexInitDefaults() {
    }

    public static List<NamedFactory<Cipher>> ciphers() {
        return List.copyOf(CIPHERS);
    }

    public static List<NamedFactory<Mac>> macs() {
        return List.copyOf(MACS);
    }

    public static List<NamedFactory<Compression>> compression() {
        return List.copyOf(COMPRESSION);
    }

    /** The classical list above, then every post-quantum signature type pqssh implements. */
    public static List<NamedFactory<Signature>> hostKeyAlgorithms() {
        List<NamedFactory<Signature>> out = new ArrayList<>(CLASSICAL_HOST_KEY_ALGORITHMS);
        return PqSignatureFactories.withPq(out);
    }
}
