package io.pqssh.inventory.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.scan.ScanResult;

/** SARIF 2.1.0 for code-scanning dashboards: one run, the rules used, one result per finding. */
public final class SarifReport {
    public static final String SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json";

    /** rule id, level, description. */
    private record Rule(String id, String level, String description) {
    }

    private static final List<Rule> SCAN_RULES = List.of(
            new Rule("classical-kex", "error", "The server offers no post-quantum key exchange: recorded sessions"
                    + " can be decrypted by a future quantum computer (harvest now, decrypt later)."),
            new Rule("weak-algorithm", "warning", "The server offers weak algorithms (SHA-1 key exchange, group1,"
                    + " ssh-dss, CBC, arcfour, MD5 or truncated SHA-1 MACs)."),
            new Rule("no-strict-kex", "warning", "The server does not offer strict key exchange"
                    + " (kex-strict-s-v00@openssh.com, the Terrapin countermeasure)."),
            new Rule("unreachable", "note", "The target did not answer or does not speak SSH."));

    private static final List<Rule> AUDIT_RULES = List.of(
            new Rule(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ, "error", "A classical key is still authorized where a"
                    + " post-quantum credential is authorized too: the forgotten old key lets a quantum attacker in."),
            new Rule(Finding.Rules.WEAK_KEY, "error", "A DSA or short RSA key: weak even against classical attacks."),
            new Rule(Finding.Rules.CLASSICAL_KEY, "warning", "A quantum-vulnerable key (RSA, DSA, ECDSA, EdDSA or a"
                    + " certificate of one)."),
            new Rule(Finding.Rules.PQ_KEY, "note", "A post-quantum credential (ML-KEM, ML-DSA, composite, SLH-DSA,"
                    + " Falcon)."),
            new Rule(Finding.Rules.CLASSICAL_KEX_CONFIG, "error", "KexAlgorithms pins classical-only key exchange."),
            new Rule(Finding.Rules.PQ_KEX_REMOVED, "error", "KexAlgorithms removes post-quantum key exchange."),
            new Rule(Finding.Rules.WEAK_ALGORITHM_CONFIG, "warning", "The config enables weak algorithms."),
            new Rule(Finding.Rules.UNREADABLE, "note", "A file or line could not be read or classified."));

    private SarifReport() {
    }

    public static String scan(List<ScanResult> results) {
        List<Object[]> out = new ArrayList<>(); // ruleId, message, uri, line
        for (ScanResult r : results) {
            String uri = "ssh://" + r.target();
            if (r.status() != ScanResult.Status.SSH) {
                out.add(new Object[] {"unreachable", r.target() + ": " + r.error(), uri, 0});
                continue;
            }
            var c = r.classification();
            if (c.classicalOnly() || !c.pqReady()) {
                out.add(new Object[] {"classical-kex", r.target() + " (" + r.software() + ") offers no post-quantum"
                        + " key exchange; OpenSSH 10 negotiates " + c.openssh10Negotiates(), uri, 0});
            }
            if (!c.weak().isEmpty()) {
                out.add(new Object[] {"weak-algorithm", r.target() + " offers " + String.join(", ", c.weak()), uri,
                        0});
            }
            if (!c.strictKex()) {
                out.add(new Object[] {"no-strict-kex", r.target() + " does not offer strict KEX", uri, 0});
            }
        }
        return document(SCAN_RULES, out, Summary.ofScan(results));
    }

    public static String audit(List<Finding> findings) {
        List<Object[]> out = new ArrayList<>();
        for (Finding f : findings) {
            String msg = f.message() + (f.fingerprint() != null ? " [" + f.fingerprint() + "]" : "");
            out.add(new Object[] {f.rule(), msg, fileUri(f.file()), f.line()});
        }
        return document(AUDIT_RULES, out, Summary.ofAudit(findings));
    }

    private static String fileUri(String file) {
        return java.nio.file.Path.of(file).toAbsolutePath().toUri().toString();
    }

    private static String document(List<Rule> rules, List<Object[]> results, Map<String, Integer> summary) {
        ObjectNode root = JsonReport.MAPPER.createObjectNode();
        root.put("$schema", SCHEMA_URI);
        root.put("version", "2.1.0");
        ObjectNode run = root.putArray("runs").addObject();
        ObjectNode driver = run.putObject("tool").putObject("driver");
        driver.put("name", "pqssh");
        driver.put("version", "0.1.0");
        driver.put("informationUri", "https://github.com/pqssh/pqssh");
        ArrayNode ruleArr = driver.putArray("rules");
        Map<String, Integer> index = new LinkedHashMap<>();
        Map<String, String> levels = new LinkedHashMap<>();
        for (Rule r : rules) {
            index.put(r.id(), index.size());
            levels.put(r.id(), r.level());
            ObjectNode o = ruleArr.addObject();
            o.put("id", r.id());
            o.putObject("shortDescription").put("text", r.description().split("[.:]")[0]);
            o.putObject("fullDescription").put("text", r.description());
            o.putObject("defaultConfiguration").put("level", r.level());
        }
        ArrayNode res = run.putArray("results");
        for (Object[] r : results) {
            String id = (String) r[0];
            ObjectNode o = res.addObject();
            o.put("ruleId", id);
            o.put("ruleIndex", index.get(id));
            o.put("level", levels.get(id));
            o.putObject("message").put("text", (String) r[1]);
            ObjectNode phys = o.putArray("locations").addObject().putObject("physicalLocation");
            phys.putObject("artifactLocation").put("uri", (String) r[2]);
            int line = (Integer) r[3];
            if (line > 0) {
                phys.putObject("region").put("startLine", line);
            }
        }
        ObjectNode props = run.putObject("properties");
        summary.forEach(props::put);
        return JsonReport.write(root);
    }
}
