package io.pqssh.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.cipher.BuiltinCiphers;
import org.apache.sshd.common.cipher.Cipher;
import org.apache.sshd.common.kex.BuiltinDHFactories;
import org.apache.sshd.common.mac.BuiltinMacs;
import org.apache.sshd.common.mac.Mac;
import org.apache.sshd.common.signature.BuiltinSignatures;
import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.server.ServerBuilder;

import io.pqssh.mina.kex.PqKex;
import io.pqssh.mina.keys.PqSignatureFactories;
import io.pqssh.server.config.AlgorithmSpec;

/**
 * The six algorithm lists of sshd_config, with pqssh server's defaults (what it offered before they were
 * configurable), everything it implements (what {@code +}, {@code ^} and exact lists may name) and sshd's error
 * message for a name outside that. The effective lists become MINA's factories in {@link PqsshServer.Builder}.
 */
public enum ServerAlgorithms {
    CIPHERS("Ciphers", "Bad SSH2 cipher spec '%s'.", false),
    MACS("MACs", "Bad SSH2 mac spec '%s'.", false),
    KEX("KexAlgorithms", "Bad SSH2 KexAlgorithms '%s'.", false),
    HOST_KEY("HostKeyAlgorithms", "Bad key types '%s'.", true),
    PUBKEY("PubkeyAcceptedAlgorithms", "Bad key types '%s'.", true),
    CA_SIGNATURE("CASignatureAlgorithms", "Bad key types '%s'.", true);

    /** OpenSSH ciphers MINA has that OpenSSH dropped as broken: never offered, whatever the file says. */
    private static final Set<String> RETIRED_CIPHERS = Set.of("none", "arcfour128", "arcfour256", "blowfish-cbc");

    /** Names OpenSSH 10 accepts that pqssh does not implement, so the refusal can say that rather than "bad". */
    private static final List<String> OPENSSH_ONLY = List.of("rijndael-cbc@lysator.liu.se", "umac-64@openssh.com",
            "umac-128@openssh.com", "umac-64-etm@openssh.com", "umac-128-etm@openssh.com",
            "hmac-sha1-96-etm@openssh.com", "hmac-md5-etm@openssh.com", "hmac-md5-96-etm@openssh.com",
            "webauthn-sk-ecdsa-sha2-nistp256@openssh.com", "sk-ssh-ed25519-cert-v01@openssh.com",
            "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com");

    /**
     * OpenSSH's order of key types (sshkey.c's table, {@code ssh -Q key-sig}): a pattern expands in this order, as in
     * sshd, so {@code rsa-sha2-*} gives what {@code sshd -T} prints. Types OpenSSH lacks (post-quantum) follow.
     */
    private static final List<String> OPENSSH_KEY_ORDER = List.of("ssh-ed25519", "ssh-ed25519-cert-v01@openssh.com",
            "sk-ssh-ed25519@openssh.com", "sk-ssh-ed25519-cert-v01@openssh.com", "ecdsa-sha2-nistp256",
            "ecdsa-sha2-nistp256-cert-v01@openssh.com", "ecdsa-sha2-nistp384",
            "ecdsa-sha2-nistp384-cert-v01@openssh.com", "ecdsa-sha2-nistp521",
            "ecdsa-sha2-nistp521-cert-v01@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com",
            "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com", "webauthn-sk-ecdsa-sha2-nistp256@openssh.com",
            "ssh-dss", "ssh-dss-cert-v01@openssh.com", "ssh-rsa", "ssh-rsa-cert-v01@openssh.com", "rsa-sha2-256",
            "rsa-sha2-256-cert-v01@openssh.com", "rsa-sha2-512", "rsa-sha2-512-cert-v01@openssh.com");

    private final String keyword;
    private final String badSpec;
    private final boolean wildcards;

    ServerAlgorithms(String keyword, String badSpec, boolean wildcards) {
        this.keyword = keyword;
        this.badSpec = badSpec;
        this.wildcards = wildcards;
    }

    /** The keyword as sshd spells it. */
    public String keyword() {
        return keyword;
    }

    /** The effective list for an sshd_config value; IllegalArgumentException with sshd's message otherwise. */
    public List<String> resolve(String spec) {
        return AlgorithmSpec.resolve(spec, defaults(), all(), wildcards, badSpec, OPENSSH_ONLY);
    }

    /** pqssh server's list without the keyword. */
    public List<String> defaults() {
        return switch (this) {
            case CIPHERS -> names(io.pqssh.common.cipher.TransportCiphers.defaults());
            case MACS -> names(io.pqssh.mina.internal.kex.KexInitDefaults.macs());
            case KEX -> PqKex.DEFAULT_ORDER;
            case HOST_KEY, PUBKEY -> names(defaultSignatures());
            case CA_SIGNATURE -> CertificateAuthorizer.DEFAULT_CA_SIGNATURE_ALGORITHMS;
        };
    }

    /** Every name the keyword may select. */
    public List<String> all() {
        List<String> out = new ArrayList<>();
        switch (this) {
            case CIPHERS -> BuiltinCiphers.VALUES.stream()
                    .filter(c -> c.isSupported() && !RETIRED_CIPHERS.contains(c.getName()))
                    .forEach(c -> out.add(c.getName()));
            case MACS -> BuiltinMacs.VALUES.stream().filter(BuiltinMacs::isSupported).forEach(m -> out.add(m.getName()));
            case KEX -> BuiltinDHFactories.VALUES.stream().filter(BuiltinDHFactories::isSupported)
                    .forEach(f -> out.add(f.getName()));
            case HOST_KEY, PUBKEY -> out.addAll(names(allSignatures()));
            case CA_SIGNATURE -> {
                // a CA signs with a plain key: certificate types cannot sign certificates
                names(allSignatures()).stream().filter(n -> !n.contains("-cert-")).forEach(out::add);
                CertificateAuthorizer.DEFAULT_CA_SIGNATURE_ALGORITHMS.stream().filter(n -> !out.contains(n))
                        .forEach(out::add);
            }
        }
        if (wildcards) {
            out.sort(java.util.Comparator.comparingInt(n -> {
                int i = OPENSSH_KEY_ORDER.indexOf(n);
                return i < 0 ? OPENSSH_KEY_ORDER.size() : i;
            }));
        }
        return List.copyOf(out);
    }

    /** SHA-1 RSA signatures: off by default as in OpenSSH 8.8 and later; {@code +ssh-rsa} adds them back. */
    private static final Set<String> SHA1_SIGNATURES = Set.of("ssh-rsa", "ssh-rsa-cert-v01@openssh.com");

    /**
     * MINA's server signature list without SHA-1 ({@code ssh-rsa}), plus the post-quantum types: the default of
     * HostKeyAlgorithms and PubkeyAcceptedAlgorithms.
     */
    public static List<NamedFactory<Signature>> defaultSignatures() {
        return PqSignatureFactories.withPq(ServerBuilder.setUpDefaultSignatureFactories(false).stream()
                .filter(f -> !SHA1_SIGNATURES.contains(f.getName())).toList());
    }

    /** Every signature algorithm pqssh can verify or sign with. */
    public static List<NamedFactory<Signature>> allSignatures() {
        List<NamedFactory<Signature>> out = new ArrayList<>(PqSignatureFactories.withPq(
                ServerBuilder.setUpDefaultSignatureFactories(false)));
        for (BuiltinSignatures s : BuiltinSignatures.VALUES) {
            if (s.isSupported() && out.stream().noneMatch(f -> f.getName().equals(s.getName()))) {
                out.add(s);
            }
        }
        return List.copyOf(out);
    }

    /** Cipher factories for names (the JDK ChaCha20 where pqssh has it). */
    public static List<NamedFactory<Cipher>> ciphers(List<String> names) {
        List<NamedFactory<Cipher>> out = new ArrayList<>();
        for (String n : names) {
            out.add(require(io.pqssh.common.cipher.TransportCiphers.byName(n), n));
        }
        return out;
    }

    public static List<NamedFactory<Mac>> macs(List<String> names) {
        List<NamedFactory<Mac>> out = new ArrayList<>();
        for (String n : names) {
            out.add(require(BuiltinMacs.fromFactoryName(n), n));
        }
        return out;
    }

    /** Signature factories for names, in the names' order. */
    public static List<NamedFactory<Signature>> signatures(List<String> names) {
        List<NamedFactory<Signature>> all = allSignatures();
        List<NamedFactory<Signature>> out = new ArrayList<>();
        for (String n : names) {
            out.add(require(all.stream().filter(f -> f.getName().equals(n)).findFirst().orElse(null), n));
        }
        return out;
    }

    private static <T> T require(T factory, String name) {
        if (factory == null) {
            throw new IllegalArgumentException("algorithm " + name + " is not implemented by pqssh server");
        }
        return factory;
    }

    private static List<String> names(List<? extends NamedFactory<?>> fs) {
        return fs.stream().map(NamedFactory::getName).toList();
    }
}
