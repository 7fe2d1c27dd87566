package io.pqssh.inventory.report;

import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.scan.ScanResult;

/** The JSON report; schema {@value #SCHEMA}, documented in docs/inventory.md. */
public final class JsonReport {
    public static final String SCHEMA = "pqssh-inventory/1";
    static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private JsonReport() {
    }

    public static String scan(List<ScanResult> results) {
        return ScanSinks.render(results, ScanSinks::jsonDocument);
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
