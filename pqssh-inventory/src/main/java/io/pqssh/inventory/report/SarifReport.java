package io.pqssh.inventory.report;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;

import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.scan.ScanResult;

/** SARIF 2.1.0 for code-scanning dashboards: one run, the rules used, one result per finding. */
public final class SarifReport {
    public static final String SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json";

    /** rule id, level, description. */
    record Rule(String id, String level, String description) {
    }

    /** One SARIF result: rule, message, location URI, line (0: none). */
    record Item(String ruleId, String message, String uri, int line) {
    }

    static final List<Rule> SCAN_RULES = List.of(
            new Rule("classical-kex", "error", "The server offers no post-quantum key exchange that OpenSSH 10 or"
                    + " pqssh negotiates: recorded sessions can be decrypted by a future quantum computer (harvest"
                    + " now, decrypt later)."),
            new Rule("weak-algorithm", "warning", "The server offers weak algorithms (SHA-1 key exchange, group1,"
                    + " ssh-dss, ssh-rsa, CBC, arcfour, MD5, hmac-sha1, umac-64 or truncated MACs)."),
            new Rule("no-strict-kex", "warning", "The server does not offer strict key exchange"
                    + " (kex-strict-s-v00@openssh.com, the Terrapin countermeasure)."),
            new Rule("unreachable", "note", "The target did not answer or does not speak SSH."),
            new Rule("algorithm-info", "note", "The server offers algorithms worth knowing about but not weak by"
                    + " pqssh's policy (NIST P-curves, which ssh-audit 3.x fails; encrypt-and-MAC modes)."),
            new Rule("policy", "error", "The server does not comply with the policy given with --policy."),
            new Rule(Finding.Rules.CLASSICAL_CA, "error", "The server's host certificate vouches for a post-quantum"
                    + " host key with a quantum-vulnerable CA (Ed25519, ECDSA, RSA): a quantum attacker forges the"
                    + " CA's signature on a certificate of their own key, so the post-quantum host key protects"
                    + " nothing."));

    private static final List<Rule> AUDIT_RULES = List.of(
            new Rule(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ, "error", "A classical key is still authorized where a"
                    + " post-quantum credential is authorized too: the forgotten old key lets a quantum attacker in."),
            new Rule(Finding.Rules.CLASSICAL_CA, "error", "A post-quantum key is certified by a quantum-vulnerable"
                    + " CA (Ed25519, ECDSA, RSA): a quantum attacker forges the CA's signature on a certificate of"
                    + " their own key, so the post-quantum key protects nothing."),
            new Rule(Finding.Rules.WEAK_KEY, "error", "A DSA or short RSA key: weak even against classical attacks."),
            new Rule(Finding.Rules.CLASSICAL_KEY, "warning", "A quantum-vulnerable key (RSA, DSA, ECDSA, EdDSA or a"
                    + " certificate of one)."),
            new Rule(Finding.Rules.PQ_KEY, "note", "A post-quantum credential (ML-KEM, ML-DSA, composite, SLH-DSA,"
                    + " Falcon)."),
            new Rule(Finding.Rules.CLASSICAL_KEX_CONFIG, "error", "KexAlgorithms pins classical-only key exchange."),
            new Rule(Finding.Rules.PQ_KEX_REMOVED, "error", "KexAlgorithms removes post-quantum key exchange."),
            new Rule(Finding.Rules.WEAK_ALGORITHM_CONFIG, "warning", "The config enables weak algorithms."),
            new Rule(Finding.Rules.INVALID_CONFIG, "error", "The config is invalid: sshd refuses to start with it."),
            new Rule(Finding.Rules.IGNORED_CONFIG, "note", "A config line sshd ignores: an earlier value of the same"
                    + " keyword wins."),
            new Rule(Finding.Rules.EXPIRED_KEY, "note", "An authorized key whose expiry-time has passed: it no longer"
                    + " logs anyone in."),
            new Rule(Finding.Rules.UNREADABLE, "note", "A file or line could not be read or classified."));

    private SarifReport() {
    }

    public static String scan(List<ScanResult> results) {
        return ScanSinks.render(results, ScanSinks::sarif);
    }

    /** The SARIF results one scan target gives. */
    static List<Item> scanItems(ScanResult r) {
        List<Item> out = new ArrayList<>(2);
        String uri = "ssh://" + r.target();
        if (r.status() != ScanResult.Status.SSH) {
            out.add(new Item("unreachable", r.target() + ": " + r.error(), uri, 0));
            return out;
        }
        var c = r.classification();
        if (c == null) {
            if (r.category().equals("classical-only")) {
                out.add(new Item("classical-kex", r.target() + " (" + r.software() + ", banner only) runs software"
                        + " that offers no post-quantum key exchange by default", uri, 0));
            }
            return out;
        }
        if (!c.pqReady()) {
            out.add(new Item("classical-kex", r.target() + " (" + r.software() + ") offers no post-quantum key"
                    + " exchange that OpenSSH 10 negotiates" + (c.pqKexOffered().isEmpty() ? ""
                            : " (only non-standard " + String.join(", ", c.pqKexOffered()) + ")")
                    + "; OpenSSH 10 negotiates " + c.openssh10Negotiates(), uri, 0));
        }
        if (r.kexInit() != null) {
            List<io.pqssh.inventory.scan.Algorithms.Weakness> ws = io.pqssh.inventory.scan.KexCache.of(r.kexInit())
                    .weaknesses();
            List<String> weak = ws.stream().filter(w -> w.weak())
                    .map(w -> w.kind() + ":" + w.name() + " (" + w.severity() + ": " + w.reason() + ")").toList();
            List<String> info = ws.stream().filter(w -> !w.weak())
                    .map(w -> w.kind() + ":" + w.name() + " (" + w.reason() + ")").toList();
            if (!weak.isEmpty()) {
                out.add(new Item("weak-algorithm", r.target() + " offers " + String.join(", ", weak), uri, 0));
            }
            if (!info.isEmpty()) {
                out.add(new Item("algorithm-info", r.target() + " offers " + String.join(", ", info), uri, 0));
            }
        }
        if (r.policyFailures() != null && !r.policyFailures().isEmpty()) {
            out.add(new Item("policy", r.target() + " does not comply: " + String.join("; ", r.policyFailures()),
                    uri, 0));
        }
        for (ScanResult.HostKey h : r.hostKeys()) {
            if (h.certificate() != null && h.certificate().classicalCa()) {
                out.add(new Item(Finding.Rules.CLASSICAL_CA, r.target() + " presents a " + h.keyType()
                        + " host certificate of a post-quantum " + h.certificate().keyFamily() + " key signed by"
                        + " quantum-vulnerable CA " + h.certificate().caFamily() + " " + h.certificate().caFingerprint()
                        + ": a quantum attacker forges the CA's signature on a certificate of their own key; use a"
                        + " post-quantum CA", uri, 0));
            }
        }
        if (!c.strictKex() && r.evidence() == ScanResult.Evidence.KEXINIT) {
            out.add(new Item("no-strict-kex", r.target() + " does not offer strict KEX", uri, 0));
        }
        return out;
    }

    public static String audit(List<Finding> findings) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        try (JsonGenerator g = ScanSinks.JSON.createGenerator(o, JsonEncoding.UTF8)) {
            g.setPrettyPrinter(new DefaultPrettyPrinter());
            Streaming s = begin(g, AUDIT_RULES);
            for (Finding f : findings) {
                String msg = f.message() + (f.fingerprint() != null ? " [" + f.fingerprint() + "]" : "");
                s.result(new Item(f.rule(), msg, fileUri(f.file()), f.line()));
            }
            Map<String, Long> summary = new LinkedHashMap<>();
            Summary.ofAudit(findings).forEach((k, v) -> summary.put(k, (long) v));
            s.end(summary);
            g.writeRaw('\n');
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return o.toString(StandardCharsets.UTF_8);
    }

    private static String fileUri(String file) {
        if (file.startsWith("osquery://")) {
            return file;
        }
        return java.nio.file.Path.of(file).toAbsolutePath().toUri().toString();
    }

    /** Starts the document; results follow one by one, {@link Streaming#end} closes it. */
    static Streaming begin(JsonGenerator g, List<Rule> rules) throws IOException {
        g.writeStartObject();
        g.writeStringField("$schema", SCHEMA_URI);
        g.writeStringField("version", "2.1.0");
        g.writeArrayFieldStart("runs");
        g.writeStartObject();
        g.writeObjectFieldStart("tool");
        g.writeObjectFieldStart("driver");
        g.writeStringField("name", "pqssh");
        g.writeStringField("version", "0.1.0");
        g.writeStringField("informationUri", "https://github.com/pqssh/pqssh");
        g.writeArrayFieldStart("rules");
        Map<String, Integer> index = new LinkedHashMap<>();
        Map<String, String> levels = new LinkedHashMap<>();
        for (Rule r : rules) {
            index.put(r.id(), index.size());
            levels.put(r.id(), r.level());
            g.writeStartObject();
            g.writeStringField("id", r.id());
            g.writeObjectFieldStart("shortDescription");
            g.writeStringField("text", r.description().split("[.:]")[0]);
            g.writeEndObject();
            g.writeObjectFieldStart("fullDescription");
            g.writeStringField("text", r.description());
            g.writeEndObject();
            g.writeObjectFieldStart("defaultConfiguration");
            g.writeStringField("level", r.level());
            g.writeEndObject();
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
        g.writeEndObject();
        g.writeArrayFieldStart("results");
        return new Streaming(g, index, levels);
    }

    /** An open SARIF document between its rules and its end. */
    static final class Streaming {
        private final JsonGenerator g;
        private final Map<String, Integer> index;
        private final Map<String, String> levels;

        Streaming(JsonGenerator g, Map<String, Integer> index, Map<String, String> levels) {
            this.g = g;
            this.index = index;
            this.levels = levels;
        }

        void result(Item i) throws IOException {
            g.writeStartObject();
            g.writeStringField("ruleId", i.ruleId());
            g.writeNumberField("ruleIndex", index.get(i.ruleId()));
            g.writeStringField("level", levels.get(i.ruleId()));
            g.writeObjectFieldStart("message");
            g.writeStringField("text", i.message());
            g.writeEndObject();
            g.writeArrayFieldStart("locations");
            g.writeStartObject();
            g.writeObjectFieldStart("physicalLocation");
            g.writeObjectFieldStart("artifactLocation");
            g.writeStringField("uri", i.uri());
            g.writeEndObject();
            if (i.line() > 0) {
                g.writeObjectFieldStart("region");
                g.writeNumberField("startLine", i.line());
                g.writeEndObject();
            }
            g.writeEndObject();
            g.writeEndObject();
            g.writeEndArray();
            g.writeEndObject();
        }

        void end(Map<String, Long> summary) throws IOException {
            g.writeEndArray();
            g.writeObjectFieldStart("properties");
            for (var e : summary.entrySet()) {
                g.writeNumberField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            g.writeEndObject();
            g.writeEndArray();
            g.writeEndObject();
            g.flush();
        }
    }
}
