package io.pqssh.inventory;

import java.io.IOException;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/** SchemaCheck for tests in other packages. */
public final class SchemaCheckAccess {
    private SchemaCheckAccess() {
    }

    public static List<String> validate(JsonNode doc) throws IOException {
        return SchemaCheck.validate(doc);
    }
}
