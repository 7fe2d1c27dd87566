package io.pqssh.client.proxy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.pqssh.client.mux.UnixSocket;

/** The socket a ProxyUseFdpass command hands back: used while open, never touched under its number once closed. */
class PassedSocketTest {

    @Test
    void carriesBytesBothWays() throws Exception {
        UnixSocket[] pair = UnixSocket.pair();
        try {
            ProxyTransport.Streams s = new PassedSocket(pair[0].fd()).streams();
            s.out().write("hello".getBytes(StandardCharsets.US_ASCII));
            assertArrayEquals("hello".getBytes(StandardCharsets.US_ASCII), pair[1].readFully(5));
            pair[1].write("world".getBytes(StandardCharsets.US_ASCII));
            byte[] got = new byte[5];
            assertEquals(5, s.in().read(got, 0, 5));
            assertArrayEquals("world".getBytes(StandardCharsets.US_ASCII), got);
            s.endpoint().close();
            assertEquals(-1, s.in().read(got, 0, 5));
            assertThrows(IOException.class, () -> s.out().write(1));
        } finally {
            pair[1].close();
        }
    }

    /**
     * A reader blocked on the socket when the connection ends must see end of stream, not whatever the next open of
     * the same descriptor number carries (the test JVM runs many connections; the CLI's -J and ControlMaster do too).
     */
    @Test
    void aReaderNeverReadsTheNextDescriptorGivenTheSameNumber() throws Exception {
        UnixSocket[] pair = UnixSocket.pair();
        int fd = pair[0].fd();
        ProxyTransport.Streams s = new PassedSocket(fd).streams();
        CompletableFuture<Integer> reading = CompletableFuture.supplyAsync(() -> {
            try {
                return s.in().read(new byte[64], 0, 64);
            } catch (IOException e) {
                return -2;
            }
        });
        Thread.sleep(300); // the reader is polling the socket (a reader that starts later must end the same way)
        s.endpoint().close();
        pair[1].close();

        List<UnixSocket> opened = new ArrayList<>();
        try {
            UnixSocket sameNumber = null;
            for (int i = 0; i < 20 && sameNumber == null; i++) {
                UnixSocket[] next = UnixSocket.pair();
                opened.add(next[0]);
                opened.add(next[1]);
                if (next[0].fd() == fd) {
                    sameNumber = next[1];
                } else if (next[1].fd() == fd) {
                    sameNumber = next[0];
                }
            }
            assertTrue(sameNumber != null, "descriptor " + fd + " was not reused by 20 new socket pairs");
            sameNumber.write("not yours".getBytes(StandardCharsets.US_ASCII));
            assertEquals(-1, reading.get(10, TimeUnit.SECONDS), "the old connection's reader read the new socket");
        } finally {
            opened.forEach(UnixSocket::close);
        }
    }
}
