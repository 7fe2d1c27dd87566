package io.pqssh.mina.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Every public type of the two libraries (pqssh-core, pqssh-mina), nested ones included, has a javadoc comment:
 * their javadoc jars are what embedding applications read. The javadoc build itself (doclint without "missing",
 * warnings fail) checks that the comments are well-formed.
 */
class PublicTypesDocumentedTest {
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "^\\s*public\\s+(?:(?:static|final|abstract|sealed|non-sealed|strictfp)\\s+)*"
                    + "(?:class|interface|enum|record|@interface)\\s+(\\w+)");

    /** The public types in {@code source} whose declaration is not preceded by a comment ending in {@code * /}. */
    static List<String> undocumented(String source) {
        List<String> out = new ArrayList<>();
        String[] lines = source.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher m = PUBLIC_TYPE.matcher(lines[i]);
            if (!m.find()) {
                continue;
            }
            int j = i - 1;
            while (j >= 0 && lines[j].trim().startsWith("@")) {
                j--;
            }
            if (j < 0 || !lines[j].trim().endsWith("*/")) {
                out.add(m.group(1) + " (line " + (i + 1) + ")");
            }
        }
        return out;
    }

    @Test
    void theCheckFindsAMissingComment() {
        assertEquals(List.of("B (line 4)"), undocumented("/** A. */\npublic final class A {\n"
                + "    @Deprecated\n    public static final class B {\n    }\n}\n"));
        assertEquals(List.of(), undocumented("/** A. */\n@FunctionalInterface\npublic interface A {\n}\n"));
    }

    @Test
    void everyPublicTypeOfCoreAndMinaHasAJavadocComment() throws IOException {
        Path root = Path.of(System.getProperty("user.dir")).getParent();
        List<String> missing = new ArrayList<>();
        int types = 0;
        for (String module : List.of("pqssh-core", "pqssh-mina")) {
            Path src = root.resolve(module).resolve("src/main");
            assertTrue(Files.isDirectory(src), "no sources at " + src);
            try (Stream<Path> files = Files.walk(src)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    String text = Files.readString(f);
                    types += (int) text.lines().filter(l -> PUBLIC_TYPE.matcher(l).find()).count();
                    undocumented(text).forEach(t -> missing.add(root.relativize(f) + ": " + t));
                }
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
        }
        assertTrue(types > 100, "found only " + types + " public types: wrong source root?");
        assertEquals(List.of(), missing);
    }
}
