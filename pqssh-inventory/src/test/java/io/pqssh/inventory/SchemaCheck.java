package io.pqssh.inventory;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Validates a report against the JSON Schema shipped with the module, for the subset of JSON Schema it uses: type
 * (one or several), enum, required, properties, additionalProperties false, items, local $ref.
 */
final class SchemaCheck {
    static final String RESOURCE = "/io/pqssh/inventory/report/pqssh-inventory-1.schema.json";

    private SchemaCheck() {
    }

    static JsonNode schema() throws IOException {
        try (InputStream in = SchemaCheck.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IOException("schema resource " + RESOURCE + " missing");
            }
            return new ObjectMapper().readTree(in);
        }
    }

    /** Violations as "path: problem"; empty when valid. */
    static List<String> validate(JsonNode doc) throws IOException {
        JsonNode root = schema();
        List<String> out = new ArrayList<>();
        check(root, root, doc, "$", out);
        return out;
    }

    private static void check(JsonNode root, JsonNode s, JsonNode v, String path, List<String> out) {
        if (s.has("$ref")) {
            String ref = s.get("$ref").asText();
            JsonNode target = root;
            for (String part : ref.substring(2).split("/")) {
                target = target.get(part);
            }
            check(root, target, v, path, out);
            return;
        }
        if (s.has("type")) {
            List<String> types = new ArrayList<>();
            if (s.get("type").isArray()) {
                s.get("type").forEach(t -> types.add(t.asText()));
            } else {
                types.add(s.get("type").asText());
            }
            if (types.stream().noneMatch(t -> is(t, v))) {
                out.add(path + ": expected " + types + ", got " + v.getNodeType());
                return;
            }
        }
        if (s.has("enum")) {
            boolean found = false;
            for (JsonNode e : s.get("enum")) {
                found |= e.equals(v);
            }
            if (!found) {
                out.add(path + ": " + v + " not in " + s.get("enum"));
            }
        }
        if (v.isObject()) {
            for (JsonNode r : s.path("required")) {
                if (!v.has(r.asText())) {
                    out.add(path + ": missing " + r.asText());
                }
            }
            JsonNode props = s.path("properties");
            v.fieldNames().forEachRemaining(f -> {
                if (props.has(f)) {
                    check(root, props.get(f), v.get(f), path + "." + f, out);
                } else if (s.path("additionalProperties").isBoolean() && !s.get("additionalProperties").asBoolean()) {
                    out.add(path + ": unexpected property " + f);
                }
            });
        }
        if (v.isArray() && s.has("items")) {
            for (int i = 0; i < v.size(); i++) {
                check(root, s.get("items"), v.get(i), path + "[" + i + "]", out);
            }
        }
    }

    private static boolean is(String type, JsonNode v) {
        return switch (type) {
            case "object" -> v.isObject();
            case "array" -> v.isArray();
            case "string" -> v.isTextual();
            case "integer" -> v.isIntegralNumber();
            case "number" -> v.isNumber();
            case "boolean" -> v.isBoolean();
            case "null" -> v.isNull();
            default -> false;
        };
    }
}
