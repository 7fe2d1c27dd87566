package io.pqssh.inventory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

/** The official CycloneDX 1.6 JSON schema (src/test/resources/io/pqssh/inventory/cyclonedx, see its README). */
public final class CycloneDxSchema {
    private static final String BASE = "http://cyclonedx.org/schema/";
    private static final Schema SCHEMA = load();

    private CycloneDxSchema() {
    }

    private static Schema load() {
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7,
                b -> b.schemas(iri -> iri.startsWith(BASE) ? resource(iri.substring(BASE.length())) : null));
        return registry.getSchema(SchemaLocation.of(BASE + "bom-1.6.schema.json"));
    }

    private static String resource(String name) {
        if (!List.of("bom-1.6.schema.json", "spdx.schema.json", "jsf-0.82.schema.json").contains(name)) {
            return null;
        }
        try (InputStream in = CycloneDxSchema.class.getResourceAsStream("/io/pqssh/inventory/cyclonedx/" + name)) {
            if (in == null) {
                throw new IllegalStateException("schema resource " + name + " missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The schema violations of a JSON document, one string each; empty when valid. */
    public static List<String> violations(String json) {
        return SCHEMA.validate(json, InputFormat.JSON).stream().map(Object::toString).toList();
    }

    /** Fails with the violations unless the document is a valid CycloneDX 1.6 BOM. */
    public static void assertValid(String json) {
        List<String> v = violations(json);
        if (!v.isEmpty()) {
            throw new AssertionError("not valid CycloneDX 1.6 (" + v.size() + " violations): "
                    + v.subList(0, Math.min(20, v.size())));
        }
    }
}
