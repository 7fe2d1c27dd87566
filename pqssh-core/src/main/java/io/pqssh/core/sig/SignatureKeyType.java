package io.pqssh.core.sig;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import io.pqssh.core.wire.MalformedMessageException;

/**
 * The table of SSH signature key types: one row per type with its wire name (and aliases), sizes, and the
 * {@link SignatureScheme} implementing it (a package-private class of this package, so the table and the schemes
 * form no package cycle). Public key blobs are {@code string name, string raw pk}; signature blobs
 * are {@code string name, string raw sig} for every type here.
 */
public enum SignatureKeyType {
    /** RFC 8709. Private fields as OpenSSH: {@code string pk(32), string seed||pk (64)}. */
    ED25519("ssh-ed25519", List.of(), 32, 64, true, Ed25519Scheme::new),
    /** draft-sfluhrer-ssh-mldsa: pure ML-DSA, empty context, hedged. Private fields: {@code string pk, string seed(32)}. */
    MLDSA_44("ssh-mldsa-44", List.of(), 1312, 2420, true, MlDsaScheme::new),
    MLDSA_65("ssh-mldsa-65", List.of(), 1952, 3309, true, MlDsaScheme::new),
    MLDSA_87("ssh-mldsa-87", List.of(), 2592, 4627, true, MlDsaScheme::new),
    /**
     * The ML-DSA-44 + Ed25519 composite under its IETF name (draft-ietf-sshm-composite-sigs-00), on by default in
     * OpenSSH 10.6: the construction, blobs and private fields of {@link #MLDSA44_ED25519}, only the name differs.
     * Listed first so a peer offering both names gets this one.
     */
    MLDSA44_ED25519_IETF("ssh-mldsa44-ed25519", List.of(), 1312 + 32, 2420 + 64, true,
            CompositeMlDsa44Ed25519Scheme::new),
    /**
     * OpenSSH 10.4/10.5's composite (draft-miller-sshm-mldsa44-ed25519-composite-sigs). pk = mldsa pk || ed pk, sig =
     * mldsa sig || ed sig. Private fields as OpenSSH 10.5: {@code string pk(1344), string mldsa seed || ed25519 seed
     * (64)}.
     */
    MLDSA44_ED25519("ssh-mldsa44-ed25519@openssh.com", List.of(), 1312 + 32, 2420 + 64, true,
            CompositeMlDsa44Ed25519Scheme::new),
    /**
     * FIPS 205 pure SLH-DSA, empty context. Private fields (liboqs/OQS layout): {@code string pk(2n), string
     * sk(4n) = SK.seed || SK.prf || PK.seed || PK.root}. The alias {@code ssh-sphincssha2128fsimple} is accepted as a
     * name only: OQS's SPHINCS+ 3.1 signatures are not FIPS 205 signatures, so cross-verification with OQS peers is
     * not expected to work under that name.
     */
    SLHDSA_SHA2_128F("ssh-slhdsapuresha2128f", List.of("ssh-sphincssha2128fsimple"), 32, 17088, true,
            SlhDsaScheme::new),
    SLHDSA_SHA2_192F("ssh-slhdsapuresha2192f", List.of(), 48, 35664, true, SlhDsaScheme::new),
    SLHDSA_SHA2_256F("ssh-slhdsapuresha2256f", List.of(), 64, 49856, true, SlhDsaScheme::new),
    /**
     * Falcon (round 3, as liboqs): pk = byte 0x00+logn || h, sig = byte 0x30+logn || nonce(40) || compressed s,
     * variable length. The size here is the compressed format's maximum, 41 + ceil((11 * 2^logn + (101 >> (10 -
     * logn))) / 8) = 752 / 1462 (liboqs' {@code length_signature}); the 666 / 1280 often quoted are the padded
     * format's fixed sizes, which compressed signatures may exceed (Bouncy Castle produced a 1,281-byte
     * Falcon-1024 signature in CI). Private fields (liboqs layout): {@code string pk, string sk = byte
     * 0x50+logn || f || g || F}.
     */
    FALCON_512("ssh-falcon512", List.of(), 897, 752, false, FalconScheme::new),
    FALCON_1024("ssh-falcon1024", List.of(), 1793, 1462, false, FalconScheme::new),
    /**
     * "AND" composite named by the KEMUAuth artifact, layout pqssh's own (the artifact publishes none; see
     * docs/lab-handshake.md): pk = ed25519 pk || ML-DSA-65 pk, sig = ed25519 sig || ML-DSA-65 sig, both halves over
     * the same message, both must verify. Private fields: {@code string pk(1984), string ed25519 seed(32) ||
     * ML-DSA-65 seed(32)}.
     */
    ED25519_MLDSA_65("ssh-ed25519-mldsa-65", List.of(), 32 + 1952, 64 + 3309, true, Ed25519AndScheme::new),
    /**
     * As {@link #ED25519_MLDSA_65} with pure SLH-DSA-SHA2-192f as the second half. Private fields: {@code string
     * pk(80), string ed25519 seed(32) || FIPS 205 sk(96)}.
     */
    ED25519_SLHDSA_SHA2_192F("ssh-ed25519-slhdsapuresha2192f", List.of(), 32 + 48, 64 + 35664, true,
            Ed25519AndScheme::new);

    private static final Map<String, SignatureKeyType> BY_NAME;

    static {
        Map<String, SignatureKeyType> m = new LinkedHashMap<>();
        for (SignatureKeyType t : values()) {
            for (String n : t.names()) {
                if (m.put(n, t) != null) {
                    throw new ExceptionInInitializerError("duplicate signature key type name " + n);
                }
            }
        }
        BY_NAME = Collections.unmodifiableMap(m);
    }

    private final String sshName;
    private final List<String> aliases;
    private final List<String> names;
    private final int publicKeySize;
    private final int signatureSize;
    private final boolean fixedSignatureSize;
    private final SignatureScheme scheme;

    SignatureKeyType(String sshName, List<String> aliases, int publicKeySize, int signatureSize,
            boolean fixedSignatureSize, Function<SignatureKeyType, SignatureScheme> impl) {
        this.sshName = sshName;
        this.aliases = List.copyOf(aliases);
        this.names = java.util.stream.Stream.concat(java.util.stream.Stream.of(sshName), aliases.stream()).toList();
        this.publicKeySize = publicKeySize;
        this.signatureSize = signatureSize;
        this.fixedSignatureSize = fixedSignatureSize;
        this.scheme = impl.apply(this);
    }

    /** The canonical SSH name. */
    public String sshName() {
        return sshName;
    }

    public List<String> aliases() {
        return aliases;
    }

    /** Canonical name first, then aliases. */
    public List<String> names() {
        return names;
    }

    /** Raw public key size in bytes (the content of the second string of the public key blob). */
    public int publicKeySize() {
        return publicKeySize;
    }

    /** Raw signature size in bytes; for variable-length types (Falcon) the maximum. */
    public int signatureSize() {
        return signatureSize;
    }

    public boolean fixedSignatureSize() {
        return fixedSignatureSize;
    }

    public SignatureScheme scheme() {
        return scheme;
    }

    /** Either name of the ML-DSA-44 + Ed25519 composite (OpenSSH 10.4/10.5's or the IETF name of 10.6). */
    public boolean mlDsa44Ed25519Composite() {
        return scheme instanceof CompositeMlDsa44Ed25519Scheme;
    }

    /** An Ed25519 "AND" composite (the types {@code publickey-hybrid-and} accepts). */
    public boolean andComposite() {
        return scheme instanceof Ed25519AndScheme;
    }

    public static Optional<SignatureKeyType> forName(String name) {
        return Optional.ofNullable(BY_NAME.get(name));
    }

    /** Like {@link #forName} but an unknown name is a {@link MalformedMessageException}. */
    public static SignatureKeyType require(String name) throws MalformedMessageException {
        SignatureKeyType t = BY_NAME.get(name);
        if (t == null) {
            throw new MalformedMessageException("unknown signature key type \"" + printable(name) + "\"");
        }
        return t;
    }

    /** Every name (canonical and alias) of every type. */
    public static Map<String, SignatureKeyType> byName() {
        return BY_NAME;
    }

    static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && i < 64; i++) {
            char c = s.charAt(i);
            b.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        if (s.length() > 64) {
            b.append("...");
        }
        return b.toString();
    }
}
