package io.pqssh.inventory.cbom;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdScalarSerializer;

/**
 * CycloneDX's string normalisation (its {@code TrimStringSerializer}: trim, then CR LF, LF, TAB and CR each become a
 * space, then runs of spaces become one) without a regular expression compiled per string. Strings that need none of
 * it, nearly all of them, are written as they are; the rest go through the library's own sequence of replacements.
 */
final class CbomStrings {
    private CbomStrings() {
    }

    static String clean(String s) {
        String t = s.trim();
        for (int i = 0, n = t.length(); i < n; i++) {
            char c = t.charAt(i);
            if (c > ' ') {
                continue; // nearly every character: one comparison
            }
            if (c == '\r' || c == '\n' || c == '\t' || c == ' ' && i + 1 < n && t.charAt(i + 1) == ' ') {
                return t.replace("\r\n", " ").replace("\n", " ").replace("\t", " ").replace("\r", " ")
                        .replaceAll(" +", " ");
            }
        }
        return t;
    }

    static SimpleModule module() {
        SimpleModule m = new SimpleModule("pqssh-cbom-strings");
        m.addSerializer(String.class, new Serializer());
        return m;
    }

    private static final class Serializer extends StdScalarSerializer<String> {
        private static final long serialVersionUID = 1L;

        Serializer() {
            super(String.class);
        }

        @Override
        public void serialize(String value, JsonGenerator g, SerializerProvider provider) throws IOException {
            g.writeString(clean(value));
        }
    }
}
