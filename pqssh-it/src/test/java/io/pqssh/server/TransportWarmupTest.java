package io.pqssh.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.cipher.BuiltinCiphers;
import org.apache.sshd.common.cipher.Cipher;
import org.apache.sshd.common.mac.BuiltinMacs;
import org.apache.sshd.common.mac.Mac;
import org.junit.jupiter.api.Test;

class TransportWarmupTest {
    @Test
    void runsEachDistinctImplementationOnceAndSkipsBrokenOnes() {
        NamedFactory<Cipher> broken = new NamedFactory<>() {
            @Override
            public String getName() {
                return "broken";
            }

            @Override
            public Cipher create() {
                throw new IllegalStateException("no such cipher here");
            }
        };
        // aes128-ctr and aes256-ctr share one transformation, hmac-sha2-256 and its -etm form one algorithm
        List<NamedFactory<Cipher>> ciphers = List.of(BuiltinCiphers.aes128ctr, BuiltinCiphers.aes256ctr,
                BuiltinCiphers.aes128gcm, BuiltinCiphers.cc20p1305_openssh, broken);
        List<NamedFactory<Mac>> macs = List.of(BuiltinMacs.hmacsha256, BuiltinMacs.hmacsha256etm,
                BuiltinMacs.hmacsha512etm);
        assertEquals(5, TransportWarmup.run(ciphers, macs, 50, 1024));
        assertEquals(0, TransportWarmup.run(List.of(broken), List.of(), 50, 1024));
    }

    @Test
    void startRunsOncePerJvmAndCompletes() throws Exception {
        CompletableFuture<Void> a = TransportWarmup.start(List.of(BuiltinCiphers.aes128ctr),
                List.of(BuiltinMacs.hmacsha256etm));
        CompletableFuture<Void> b = TransportWarmup.start(List.of(BuiltinCiphers.aes256ctr), List.of());
        assertSame(a, b);
        a.get(60, TimeUnit.SECONDS);
        assertTrue(a.isDone() && !a.isCompletedExceptionally());
    }
}
