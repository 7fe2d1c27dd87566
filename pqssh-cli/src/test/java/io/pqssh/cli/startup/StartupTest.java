package io.pqssh.cli.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.cli.Main;
import picocli.CommandLine;

/**
 * The start-up measures that can be checked in a unit test: unsigned copies of signed jars (what lets the AOT cache
 * hold Bouncy Castle), picocli loading only the subcommand being run, and the AOT training workload really logging
 * in. The whole-process times are measured by bench/startup.sh (docs/startup.md), not asserted here.
 */
class StartupTest {
    private static Path jarOf(Class<?> c) throws Exception {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    @Test
    void signedJarsAreCopiedWithoutSignaturesAndStillLoad(@TempDir Path dir) throws Exception {
        Path bc = jarOf(org.bouncycastle.crypto.digests.SHA3Digest.class);
        assertTrue(UnsignedJars.isSigned(bc), "Bouncy Castle's jar is expected to be signed: " + bc);
        Path picocli = jarOf(CommandLine.class);
        assertFalse(UnsignedJars.isSigned(picocli));
        List<Path> copies = UnsignedJars.copy(List.of(bc, picocli), dir);
        assertEquals(List.of(dir.resolve(bc.getFileName()), dir.resolve(picocli.getFileName())), copies);
        assertFalse(UnsignedJars.isSigned(copies.get(0)));
        assertEquals(Files.size(picocli), Files.size(copies.get(1)), "an unsigned jar is copied as it is");
        Set<String> original = new TreeSet<>();
        Set<String> copied = new TreeSet<>();
        try (JarFile a = new JarFile(bc.toFile()); JarFile b = new JarFile(copies.get(0).toFile())) {
            a.stream().filter(e -> !UnsignedJars.isSignatureFile(e.getName())).forEach(e -> original.add(e.getName()));
            b.stream().forEach(e -> copied.add(e.getName()));
            assertTrue(a.stream().anyMatch(e -> UnsignedJars.isSignatureFile(e.getName())));
        }
        assertEquals(original, copied, "only the signature files may go");
        try (JarFile a = new JarFile(bc.toFile()); JarFile b = new JarFile(copies.get(0).toFile())) {
            assertTrue(a.getManifest().getEntries().size() > 1000, "Bouncy Castle's manifest lists its classes");
            assertEquals(a.getManifest().getMainAttributes(), b.getManifest().getMainAttributes());
            assertTrue(b.getManifest().getEntries().values().stream().flatMap(x -> x.keySet().stream())
                    .noneMatch(k -> k.toString().endsWith("-Digest")), "no per-entry digest is left");
            assertTrue(Files.size(copies.get(0)) < Files.size(bc), "the copy is smaller");
        }
        try (URLClassLoader l = new URLClassLoader(new java.net.URL[] {copies.get(0).toUri().toURL()}, null)) {
            Class<?> c = Class.forName("org.bouncycastle.crypto.digests.SHA3Digest", true, l);
            Object d = c.getConstructor(int.class).newInstance(256);
            assertEquals(32, c.getMethod("getDigestSize").invoke(d));
        }
        assertTrue(UnsignedJars.isSignatureFile("META-INF/BC1024KE.SF"));
        assertTrue(UnsignedJars.isSignatureFile("META-INF/BC2048KE.DSA"));
        assertFalse(UnsignedJars.isSignatureFile("META-INF/MANIFEST.MF"));
        assertFalse(UnsignedJars.isSignatureFile("META-INF/versions/9/X.SF"));
    }

    @Test
    void onlyTheSubcommandBeingRunIsLoadedAndHelpListsThemAll() throws Exception {
        CommandLine ssh = Main.commandLineFor("ssh");
        assertEquals(Set.of("ssh"), ssh.getSubcommands().keySet());
        CommandLine all = Main.commandLineFor(null);
        assertTrue(all.getSubcommands().keySet().containsAll(List.of("demo", "server", "ssh", "keygen", "passwd",
                "lab", "scan", "inventory", "audit", "help")), all.getSubcommands().keySet().toString());
        for (var e : all.getSubcommands().entrySet()) {
            String name = e.getValue().getCommandName();
            assertTrue(e.getKey().equals(name) || e.getValue().getCommandSpec().aliases().length > 0,
                    e.getKey() + " registered under another name than its @Command: " + name);
        }
        assertEquals(all.getSubcommands().keySet(), Main.commandLineFor("no-such-command").getSubcommands().keySet());
    }

    @Test
    void theTrainingWorkloadLogsInForReal() throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-cp", System.getProperty("java.class.path"), StartupTraining.class.getName()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("training did not finish in 120 s");
        }
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.exitValue(), out);
        assertFalse(out.contains("failed step"), "training logins failed:\n" + out);
    }
}
