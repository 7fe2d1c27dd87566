package io.pqssh.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.auth.KemCredential;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.kem.KemPublicKey;

/**
 * A local user's sparse 512 MB {@code ~/.ssh/authorized_keys} (no newline for 512 MB, then a valid key) costs the
 * root server one bounded buffer per unauthenticated attempt, not the file's size several times over: the
 * authorizer runs on its own thread and its allocation is measured. The key after the too-long line still
 * authorizes, as with sshd (which reads past a line it cannot use).
 */
class HugeAuthorizedKeysTest {
    private static final long SPARSE = 512L * 1024 * 1024;
    /** Far below the file's size: the old reader allocated the file as bytes and again as a String. */
    private static final long ALLOWED_BYTES = 64L * 1024 * 1024;

    @TempDir
    Path home;

    @Test
    void aSparse512MegabyteFileIsStreamedWithBoundedAllocation() throws Exception {
        KemKeyPair alice = MlKem.generate(KemAlgorithm.MLKEM768, new SecureRandom());
        KemKeyPair other = MlKem.generate(KemAlgorithm.MLKEM768, new SecureRandom());
        Path keys = home.resolve(".ssh/authorized_keys");
        Files.createDirectories(keys.getParent());
        try (RandomAccessFile f = new RandomAccessFile(keys.toFile(), "rw")) {
            f.setLength(SPARSE); // a hole: no disk used, 512 MB of NUL bytes without a newline
        }
        String line = "\nmlkem768 " + Base64.getEncoder().encodeToString(
                KemPublicKey.blob(KemAlgorithm.MLKEM768, alice.publicKey())) + " alice@test\n";
        Files.writeString(keys, line, StandardCharsets.US_ASCII, StandardOpenOption.APPEND);
        FileKeyAuthorizers auth = new FileKeyAuthorizers(".ssh/authorized_keys", "none", false,
                user -> Optional.of(home), refusal -> { });

        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(mx.isThreadAllocatedMemorySupported(), "this JVM cannot measure per-thread allocation");
        mx.setThreadAllocatedMemoryEnabled(true);
        AtomicLong allocated = new AtomicLong();
        AtomicBoolean accepted = new AtomicBoolean();
        AtomicBoolean refusedOther = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                long before = mx.getCurrentThreadAllocatedBytes();
                accepted.set(auth.kem().isAuthorized("alice",
                        new KemCredential("mlkem768", alice.publicKey()), "127.0.0.1"));
                refusedOther.set(!auth.kem().isAuthorized("alice",
                        new KemCredential("mlkem768", other.publicKey()), "127.0.0.1"));
                allocated.set(mx.getCurrentThreadAllocatedBytes() - before);
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "authorizer");
        t.start();
        t.join(120_000);
        assertFalse(t.isAlive(), "two look-ups in a 512 MB file took over 120 s");
        if (failure.get() != null) {
            throw new AssertionError("the authorizer failed: " + failure.get(), failure.get());
        }
        System.out.println("two look-ups in a " + SPARSE / (1024 * 1024) + " MB sparse authorized_keys allocated "
                + allocated.get() / 1024 + " KiB");
        assertTrue(accepted.get(), "the key after the too-long line must still authorize, as with sshd");
        assertTrue(refusedOther.get(), "a key not in the file was accepted");
        assertTrue(allocated.get() < ALLOWED_BYTES, "two look-ups allocated " + allocated.get() / (1024 * 1024)
                + " MB for a 512 MB sparse file (allowed: " + ALLOWED_BYTES / (1024 * 1024) + " MB)");
        assertEquals(SPARSE + line.length(), Files.size(keys));
    }
}
