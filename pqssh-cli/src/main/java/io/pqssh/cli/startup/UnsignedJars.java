package io.pqssh.cli.startup;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;

/**
 * Copies the launcher's class path into one directory, writing signed jars (Bouncy Castle's) without their
 * signature files and the manifest's per-class digests. The JVM's AOT cache (JEP 483) skips every class of a signed jar, and verifying the signatures
 * costs each start-up ~100 classes of {@code sun.security.pkcs}/{@code x509}; an OpenJDK-based JVM does not require
 * a signed JCE provider, and pqssh uses Bouncy Castle mostly through its lightweight API anyway.
 */
public final class UnsignedJars {
    private UnsignedJars() {
    }

    /** Copies {@code jars} into {@code dir} (which must exist) and returns the copies in the same order. */
    public static List<Path> copy(List<Path> jars, Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        for (Path jar : jars) {
            Path target = dir.resolve(jar.getFileName());
            if (isSigned(jar)) {
                stripSignatures(jar, target);
            } else {
                Files.copy(jar, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
            }
            out.add(target);
        }
        return out;
    }

    static boolean isSigned(Path jar) throws IOException {
        try (JarFile f = new JarFile(jar.toFile(), false)) {
            return f.stream().anyMatch(e -> isSignatureFile(e.getName()));
        }
    }

    static boolean isSignatureFile(String name) {
        String n = name.toUpperCase(Locale.ROOT);
        if (!n.startsWith("META-INF/") || n.indexOf('/', "META-INF/".length()) >= 0) {
            return false;
        }
        return n.endsWith(".SF") || n.endsWith(".RSA") || n.endsWith(".DSA") || n.endsWith(".EC")
                || n.startsWith("META-INF/SIG-");
    }

    /**
     * The manifest without the per-entry digests that only the signature needed: Bouncy Castle's lists one for each
     * of its classes (855 KB), and the class loader parses the whole manifest when it first defines a class from the
     * jar that the AOT cache does not hold. Main attributes and any other per-entry attribute stay.
     */
    static Manifest withoutDigests(Manifest m) {
        Manifest out = new Manifest();
        out.getMainAttributes().putAll(m.getMainAttributes());
        for (Map.Entry<String, Attributes> e : m.getEntries().entrySet()) {
            Attributes kept = new Attributes();
            e.getValue().forEach((k, v) -> {
                if (!k.toString().toUpperCase(Locale.ROOT).endsWith("-DIGEST")) {
                    kept.put(k, v);
                }
            });
            if (!kept.isEmpty()) {
                out.getEntries().put(e.getKey(), kept);
            }
        }
        return out;
    }

    private static void stripSignatures(Path jar, Path target) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try (JarFile in = new JarFile(jar.toFile(), false);
                OutputStream fos = Files.newOutputStream(tmp);
                JarOutputStream out = new JarOutputStream(fos)) {
            for (JarEntry e : java.util.Collections.list(in.entries())) {
                if (isSignatureFile(e.getName())) {
                    continue;
                }
                ZipEntry copy = new ZipEntry(e.getName());
                copy.setTime(e.getTime());
                out.putNextEntry(copy);
                if (e.getName().equalsIgnoreCase(JarFile.MANIFEST_NAME)) {
                    withoutDigests(in.getManifest()).write(out);
                } else {
                    try (InputStream is = in.getInputStream(e)) {
                        is.transferTo(out);
                    }
                }
                out.closeEntry();
            }
        }
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
