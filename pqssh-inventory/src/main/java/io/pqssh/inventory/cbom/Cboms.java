package io.pqssh.inventory.cbom;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.cyclonedx.model.Component;
import org.cyclonedx.model.Dependency;
import org.cyclonedx.model.Evidence;
import org.cyclonedx.model.Hash;
import org.cyclonedx.model.Property;
import org.cyclonedx.model.component.crypto.CipherSuite;
import org.cyclonedx.model.component.crypto.CryptoProperties;
import org.cyclonedx.model.component.crypto.ProtocolProperties;
import org.cyclonedx.model.component.crypto.RelatedCryptoMaterialProperties;
import org.cyclonedx.model.component.crypto.enums.AssetType;
import org.cyclonedx.model.component.crypto.enums.ProtocolType;
import org.cyclonedx.model.component.crypto.enums.RelatedCryptoMaterialType;
import org.cyclonedx.model.component.evidence.Occurrence;

import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.report.ScanCounters;
import io.pqssh.inventory.report.ScanSink;
import io.pqssh.inventory.scan.Algorithms;
import io.pqssh.inventory.scan.Classification;
import io.pqssh.inventory.scan.KexInit;
import io.pqssh.inventory.scan.ScanResult;

/**
 * The CycloneDX 1.6 CBOM of a scan (streamed, {@link #scan}) and of an audit ({@link #audit}); the mapping is
 * documented in docs/inventory.md ("CBOM").
 */
public final class Cboms {
    private Cboms() {
    }

    /** The scan CBOM as a streaming report: one protocol component per SSH target, written as results arrive. */
    public static ScanSink scan(OutputStream out) throws IOException {
        return scan(CbomWriter.open(out, "scan"));
    }

    /** The same document made the library's own, slower way (CbomWriter.openViaBom): the reference for tests. */
    static ScanSink scanViaBom(OutputStream out) throws IOException {
        return scan(CbomWriter.openViaBom(out, "scan"));
    }

    private static ScanSink scan(CbomWriter w) {
        return new ScanSink() {
            private long ssh;
            private long seq;

            /**
             * What a KEXINIT offers, worked out once per distinct KEXINIT: the algorithm refs and the protocol's
             * cryptoProperties, one shared instance the writer renders once. Not on the reference path, which
             * builds everything anew.
             */
            private final Map<OfferKey, Offer> offers = w.fast() ? new LinkedHashMap<>(256, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<OfferKey, Offer> eldest) {
                    if (size() <= OFFER_CACHE) {
                        return false;
                    }
                    w.unshare(eldest.getValue().cryptoProperties());
                    w.forget(eldest.getValue().uses());
                    return true;
                }
            } : null;

            @Override
            public void accept(ScanResult r) throws IOException {
                if (r.status() != ScanResult.Status.SSH) {
                    return; // nothing cryptographic was seen
                }
                ssh++;
                seq++;
                List<Component> batch = new ArrayList<>();
                target(w, r, batch);
            }

            private Offer offer(KexInit k, Classification cl, List<Component> batch) {
                // one Classification per distinct KEXINIT (the scanner's KexCache): records that repeat a KEXINIT
                // hold equal, not same, KexInit objects but the same classification
                OfferKey key = offers == null || k == null || cl == null ? null : new OfferKey(cl);
                Offer o = key == null ? null : offers.get(key);
                if (o != null && o.kexInit().equals(k)) {
                    w.countOmitted(o.omitted());
                    return o;
                }
                long omittedBefore = w.omitted();
                Set<String> refs = new LinkedHashSet<>();
                if (k != null) {
                    for (String n : k.kex()) {
                        if (!Algorithms.isPseudoKex(n)) {
                            add(refs, w.algorithm("kex", n, batch));
                        }
                    }
                    for (String n : k.hostKey()) {
                        add(refs, w.algorithm("hostkey", n, batch));
                    }
                    for (String n : union(k.ciphersC2S(), k.ciphersS2C())) {
                        add(refs, w.algorithm("cipher", n, batch));
                    }
                    for (String n : union(k.macsC2S(), k.macsS2C())) {
                        add(refs, w.algorithm("mac", n, batch));
                    }
                }
                List<String> offered = List.copyOf(refs);
                CryptoProperties cp = cryptoProperties(cl, offered);
                List<Dependency> uses = new ArrayList<>(offered.size());
                for (String ref : offered) {
                    uses.add(new Dependency(ref));
                }
                o = new Offer(k, List.copyOf(uses), cp, (int) (w.omitted() - omittedBefore));
                if (key != null) {
                    w.share(cp);
                    Offer old = offers.put(key, o);
                    if (old != null) {
                        w.unshare(old.cryptoProperties());
                        w.forget(old.uses());
                    }
                }
                return o;
            }

            private void target(CbomWriter w, ScanResult r, List<Component> batch) throws IOException {
                String location = "ssh://" + r.target();
                Offer offer = offer(r.kexInit(), r.classification(), batch);
                // the record number keeps bom-refs unique when an input holds one target twice
                String self = "ssh/" + r.target() + "#" + seq;
                // the library's addDependency looks for a duplicate with a stream on every call (quadratic in the ~35
                // refs of a target): the offered refs are distinct already, host keys are kept distinct here
                List<Dependency> uses = new ArrayList<>(offer.uses());
                Set<String> keyRefs = new java.util.HashSet<>();
                for (ScanResult.HostKey h : r.hostKeys()) {
                    if (h.error() != null || h.fingerprint() == null || h.keyType() == null) {
                        continue;
                    }
                    String alg = w.algorithm("hostkey", h.algorithm() != null ? h.algorithm() : h.keyType(), batch);
                    Component key = key("ssh-host-key/" + r.target() + "#" + seq + "/" + h.fingerprint(), h.keyType()
                            + " host key of " + r.target(), alg, h.fingerprint(), h.bits(), location, null);
                    key.setProperties(hostKeyProperties(h.certificate()));
                    batch.add(key);
                    if (keyRefs.add(key.getBomRef())) {
                        uses.add(new Dependency(key.getBomRef()));
                    }
                }
                Dependency use = new Dependency(self);
                if (!uses.isEmpty()) {
                    use.setDependencies(uses);
                }
                batch.add(protocol(r, self, offer.cryptoProperties(), location));
                // the offer's refs are rendered once only when the offer is kept (and forgotten with it)
                boolean kept = offers != null && r.kexInit() != null && r.classification() != null;
                w.write(batch, List.of(use), kept ? offer.uses() : List.of());
            }

            @Override
            public void finish(ScanCounters c) throws IOException {
                List<Property> props = new ArrayList<>();
                for (var e : c.summary().entrySet()) {
                    props.add(new Property("pqssh:summary:" + e.getKey(), Long.toString(e.getValue())));
                }
                props.add(new Property("pqssh:ssh-targets", Long.toString(ssh)));
                w.finish(props);
            }

            @Override
            public void close() throws IOException {
                w.close();
            }
        };
    }

    /** Distinct KEXINITs whose offer is kept (as the scanner's KexCache). */
    private static final int OFFER_CACHE = io.pqssh.inventory.scan.KexCache.SIZE;

    /** A result's classification, compared by identity (the offer found also has to hold an equal KEXINIT). */
    private record OfferKey(Classification classification) {
        @Override
        public boolean equals(Object o) {
            return o instanceof OfferKey k && k.classification == classification;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(classification);
        }
    }

    /**
     * What a KEXINIT offers: the algorithm refs as dependencies, the protocol properties, and how many
     * algorithms it names that the document does not describe.
     */
    private record Offer(KexInit kexInit, List<Dependency> uses,
            CryptoProperties cryptoProperties, int omitted) {
    }

    private static void add(Set<String> refs, String ref) {
        if (ref != null) {
            refs.add(ref);
        }
    }

    private static List<String> union(List<String> a, List<String> b) {
        Set<String> s = new LinkedHashSet<>(a);
        s.addAll(b);
        return List.copyOf(s);
    }

    /** The SSH protocol as one target uses it: what it offers, what OpenSSH 10 and pqssh would negotiate. */
    private static Component protocol(ScanResult r, String ref, CryptoProperties cp, String location) {
        Component c = new Component();
        c.setType(Component.Type.CRYPTOGRAPHIC_ASSET);
        c.setBomRef(ref);
        c.setName("SSH " + r.target());
        c.setVersion("2.0");
        c.setCryptoProperties(cp);
        Classification cl = r.classification();
        c.setEvidence(evidence(location, null));
        List<Property> props = new ArrayList<>();
        props.add(new Property("pqssh:category", r.category()));
        props.add(new Property("pqssh:evidence", r.evidence().jsonName()));
        if (r.software() != null) {
            props.add(new Property("pqssh:software", r.software()));
        }
        if (cl != null) {
            props.add(new Property("pqssh:strict-kex", Boolean.toString(cl.strictKex())));
            for (String weak : cl.weak()) {
                props.add(new Property("pqssh:weak", weak));
            }
        }
        props.add(new Property("pqssh:readiness", r.readiness()));
        if (r.auth() != null) {
            props.add(new Property("pqssh:user-auth-methods", String.join(",", r.auth().methods())));
            if (r.auth().serverSigAlgs() != null) {
                props.add(new Property("pqssh:server-sig-algs", String.join(",", r.auth().serverSigAlgs())));
            }
            props.add(new Property("pqssh:pq-user-auth", Boolean.toString(r.auth().pq())));
        }
        if (r.policyFailures() != null) {
            for (String f : r.policyFailures()) {
                props.add(new Property("pqssh:policy-failure", f));
            }
        }
        c.setProperties(props);
        return c;
    }

    private static CryptoProperties cryptoProperties(Classification cl, List<String> offered) {
        ProtocolProperties p = new ProtocolProperties();
        p.setType(ProtocolType.SSH);
        p.setVersion("2.0");
        if (!offered.isEmpty()) {
            p.setCryptoRefArray(offered);
        }
        List<CipherSuite> suites = new ArrayList<>();
        if (cl != null) {
            suite(suites, "key exchange an OpenSSH 10 client negotiates", cl.openssh10Negotiates(), offered);
            suite(suites, "key exchange pqssh negotiates", cl.pqsshNegotiates(), offered);
        }
        if (!suites.isEmpty()) {
            p.setCipherSuites(suites);
        }
        CryptoProperties cp = new CryptoProperties();
        cp.setAssetType(AssetType.PROTOCOL);
        cp.setProtocolProperties(p);
        return cp;
    }

    private static void suite(List<CipherSuite> suites, String what, String kex, List<String> offered) {
        if (kex == null) {
            return;
        }
        CipherSuite s = new CipherSuite();
        s.setName(what + ": " + kex);
        String ref = CbomWriter.algorithmRef("kex", kex);
        if (offered.contains(ref)) {
            s.setAlgorithms(List.of(ref));
        }
        s.setIdentifiers(List.of(kex));
        suites.add(s);
    }

    /** A public key found somewhere: related crypto material with its fingerprint, size and location. */
    /** A host key's role, and what its certificate says when it is one (the CA key's type, family, fingerprint). */
    private static List<Property> hostKeyProperties(io.pqssh.inventory.scan.HostCertificate c) {
        List<Property> p = new ArrayList<>();
        p.add(new Property("pqssh:role", "host-key"));
        if (c != null) {
            p.add(new Property("pqssh:certificate-type", c.certType()));
            p.add(new Property("pqssh:certified-key-type", c.keyType()));
            p.add(new Property("pqssh:ca-key-type", c.caKeyType()));
            p.add(new Property("pqssh:ca-family", c.caFamily()));
            p.add(new Property("pqssh:ca-post-quantum", String.valueOf(c.caPostQuantum())));
            p.add(new Property("pqssh:ca-fingerprint", c.caFingerprint()));
            p.add(new Property("pqssh:certificate-key-id", c.keyId()));
            p.add(new Property("pqssh:certificate-serial", c.serialText()));
            p.add(new Property("pqssh:certificate-principals", String.join(",", c.principals())));
            p.add(new Property("pqssh:certificate-valid-after", c.validAfter() == null ? "always" : c.validAfter()));
            p.add(new Property("pqssh:certificate-valid-before", c.validBefore() == null ? "forever"
                    : c.validBefore()));
            p.add(new Property("pqssh:classical-ca", String.valueOf(c.classicalCa())));
        }
        return p;
    }

    private static Component key(String ref, String name, String algorithmRef, String fingerprint, int bits,
            String location, Integer line) {
        Component c = new Component();
        c.setType(Component.Type.CRYPTOGRAPHIC_ASSET);
        c.setBomRef(ref);
        c.setName(name);
        RelatedCryptoMaterialProperties m = new RelatedCryptoMaterialProperties();
        m.setType(RelatedCryptoMaterialType.PUBLIC_KEY);
        m.setId(fingerprint);
        m.setAlgorithmRef(algorithmRef);
        if (bits > 0) {
            m.setSize(bits);
        }
        m.setFormat("ssh-public-key");
        CryptoProperties cp = new CryptoProperties();
        cp.setAssetType(AssetType.RELATED_CRYPTO_MATERIAL);
        cp.setRelatedCryptoMaterialProperties(m);
        c.setCryptoProperties(cp);
        String hex = sha256Hex(fingerprint);
        if (hex != null) {
            c.setHashes(List.of(new Hash(Hash.Algorithm.SHA_256, hex)));
        }
        c.setEvidence(evidence(location, line));
        return c;
    }

    /** The SHA-256 of the key blob from an OpenSSH fingerprint {@code SHA256:<unpadded base64>}, as hex. */
    static String sha256Hex(String fingerprint) {
        if (fingerprint == null || !fingerprint.startsWith("SHA256:")) {
            return null;
        }
        try {
            byte[] d = Base64.getDecoder().decode(fingerprint.substring(7));
            return d.length == 32 ? HexFormat.of().formatHex(d) : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static Evidence evidence(String location, Integer line) {
        Occurrence o = new Occurrence();
        o.setLocation(location);
        if (line != null && line > 0) {
            o.setLine(line);
        }
        Evidence e = new Evidence();
        e.setOccurrences(List.of(o));
        return e;
    }

    /**
     * The audit CBOM: each key found (authorized, CA, known host, key file) as related crypto material with its
     * algorithm, and one {@code file} component per file that depends on the keys in it.
     */
    public static void audit(List<Finding> findings, OutputStream out) throws IOException {
        audit(findings, CbomWriter.open(out, "audit"));
    }

    /** {@link #audit} the library's own, slower way (CbomWriter.openViaBom): the reference for tests. */
    static void auditViaBom(List<Finding> findings, OutputStream out) throws IOException {
        audit(findings, CbomWriter.openViaBom(out, "audit"));
    }

    private static void audit(List<Finding> findings, CbomWriter writer) throws IOException {
        try (CbomWriter w = writer) {
            Map<String, List<Finding>> byFile = new LinkedHashMap<>();
            for (Finding f : findings) {
                if (f.keyType() != null && f.fingerprint() != null) {
                    byFile.computeIfAbsent(f.file(), x -> new ArrayList<>()).add(f);
                }
            }
            long keys = 0;
            for (Map.Entry<String, List<Finding>> e : byFile.entrySet()) {
                List<Component> batch = new ArrayList<>();
                Component file = new Component();
                file.setType(Component.Type.FILE);
                file.setBomRef("file/" + e.getKey());
                file.setName(e.getKey());
                Dependency d = new Dependency(file.getBomRef());
                for (Finding f : e.getValue()) {
                    String alg = w.algorithm("key", f.keyType(), batch);
                    Component k = key("key/" + f.file() + ":" + f.line() + "/" + f.fingerprint(), f.keyType()
                            + " key in " + f.file() + (f.line() > 0 ? ":" + f.line() : ""), alg, f.fingerprint(),
                            f.bits() == null ? 0 : f.bits(), f.file(), f.line());
                    if (f.expiry() != null) {
                        k.getCryptoProperties().getRelatedCryptoMaterialProperties().setExpirationDate(f.expiry());
                    }
                    List<Property> props = new ArrayList<>();
                    props.add(new Property("pqssh:role", role(f)));
                    props.add(new Property("pqssh:rule", f.rule()));
                    props.add(new Property("pqssh:family", f.family()));
                    if (f.curve() != null) {
                        props.add(new Property("pqssh:curve", f.curve()));
                    }
                    if (f.host() != null) {
                        props.add(new Property("pqssh:host", f.host()));
                    }
                    if (f.owner() != null) {
                        props.add(new Property("pqssh:owner", f.owner()));
                    }
                    k.setProperties(props);
                    batch.add(k);
                    d.addDependency(new Dependency(k.getBomRef()));
                    keys++;
                }
                batch.add(file);
                w.write(batch, List.of(d));
            }
            w.finish(List.of(new Property("pqssh:keys", Long.toString(keys)),
                    new Property("pqssh:files", Integer.toString(byFile.size()))));
        }
    }

    /** What a key is for, from where it was found. */
    static String role(Finding f) {
        String name = f.file().substring(f.file().lastIndexOf('/') + 1);
        String msg = f.message() == null ? "" : f.message();
        if (msg.contains("cert-authority") || msg.contains("certificate authority")
                || Finding.Rules.CLASSICAL_CA.equals(f.rule())) {
            return "certificate-authority";
        }
        if (name.startsWith("authorized_keys") || name.startsWith("authorized_kem_keys")
                || f.file().contains("/authorized_keys/")) {
            return "authorized-key";
        }
        if (name.startsWith("known_hosts") || name.startsWith("ssh_known_hosts")) {
            return "known-host-key";
        }
        return "key-file";
    }
}
