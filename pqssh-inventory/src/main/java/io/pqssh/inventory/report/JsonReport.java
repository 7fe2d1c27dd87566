package io.pqssh.inventory.report;

import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.scan.Algorithms;
import io.pqssh.inventory.scan.Classification;
import io.pqssh.inventory.scan.KexInit;
import io.pqssh.inventory.scan.ScanResult;

/** The JSON report; schema {@value #SCHEMA}, documented in docs/inventory.md. */
public final class JsonReport {
    public static final String SCHEMA = "pqssh-inventory/1";
    static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private JsonReport() {
    }

    public static String scan(List<ScanResult> results) {
        ObjectNode root = header("scan");
        ObjectNode s = root.putObject("summary");
        Summary.ofScan(results).forEach(s::put);
        s.putArray("openssh10ClientKex").addAll(strings(Algorithms.OPENSSH10_CLIENT_KEX));
        s.putArray("pqsshKex").addAll(strings(Algorithms.PQSSH_KEX));
        ArrayNode arr = root.putArray("targets");
        for (ScanResult r : results) {
            arr.add(target(r));
        }
        return write(root);
    }

    public static ObjectNode target(ScanResult r) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("target", r.target().toString());
        o.put("host", r.target().host());
        o.put("port", r.target().port());
        o.put("category", r.category());
        o.put("status", r.status().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
        o.put("error", r.error());
        o.put("banner", r.banner());
        o.put("software", r.software());
        o.put("attempts", r.attempts());
        o.put("millis", r.millis());
        Classification c = r.classification();
        KexInit k = r.kexInit();
        if (c != null && k != null) {
            o.putArray("kexAlgorithms").addAll(strings(k.kex()));
            o.putArray("pqKexOffered").addAll(strings(c.pqKexOffered()));
            o.put("openssh10Negotiates", c.openssh10Negotiates());
            o.put("pqsshNegotiates", c.pqsshNegotiates());
            o.put("pqReady", c.pqReady());
            o.put("classicalOnly", c.classicalOnly());
            o.put("strictKex", c.strictKex());
            o.putArray("hostKeyAlgorithms").addAll(strings(k.hostKey()));
            o.putArray("pqHostKeysOffered").addAll(strings(c.pqHostKeysOffered()));
            o.putArray("ciphers").addAll(strings(k.ciphersS2C()));
            o.putArray("macs").addAll(strings(k.macsS2C()));
            o.putArray("weak").addAll(strings(c.weak()));
        }
        ArrayNode hk = o.putArray("hostKeys");
        for (ScanResult.HostKey h : r.hostKeys()) {
            ObjectNode x = hk.addObject();
            x.put("algorithm", h.algorithm());
            x.put("keyType", h.keyType());
            x.put("fingerprint", h.fingerprint());
            x.put("publicKey", h.publicKey());
            x.put("error", h.error());
        }
        return o;
    }

    public static String audit(List<Finding> findings) {
        ObjectNode root = header("audit");
        ObjectNode s = root.putObject("summary");
        Summary.ofAudit(findings).forEach(s::put);
        ArrayNode arr = root.putArray("findings");
        for (Finding f : findings) {
            arr.add(MAPPER.valueToTree(f));
        }
        return write(root);
    }

    private static ObjectNode header(String kind) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("schema", SCHEMA);
        root.put("kind", kind);
        root.put("generated", Instant.now().toString());
        root.put("tool", "pqssh 0.1.0");
        return root;
    }

    private static ArrayNode strings(List<String> l) {
        ArrayNode a = MAPPER.createArrayNode();
        l.forEach(a::add);
        return a;
    }

    static String write(Object node) {
        try {
            return MAPPER.writeValueAsString(node) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
