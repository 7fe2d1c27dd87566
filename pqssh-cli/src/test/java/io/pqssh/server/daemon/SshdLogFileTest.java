package io.pqssh.server.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/**
 * The -E file's lines are sshd's (OpenSSH 9.2 {@code sshd -E}, checked by hand: {@code Invalid user x from 127.0.0.1
 * port 35888\r\n}): slf4j-simple's time, level and logger are gone from sshd's own lines, other loggers keep their
 * name, WARN/ERROR read {@code error: }, DEBUG {@code debug1: }, every line ends in CR LF.
 */
class SshdLogFileTest {
    @Test
    void linesAreWrittenAsSshdWritesThemWithMinusE() {
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        PrintStream log = new PrintStream(new SshdLogFile(file), true, StandardCharsets.UTF_8);
        log.println("13:45:01.123 INFO io.pqssh.sshd - Invalid user x from 127.0.0.1 port 35888");
        log.println("13:45:01.124 WARN io.pqssh.sshd - maximum authentication attempts exceeded for x from 127.0.0.1"
                + " port 35888 ssh2 [preauth]");
        log.println("13:45:01.125 WARN org.apache.sshd.server.session.ServerSessionImpl - exceptionCaught(x)");
        log.println("13:45:01.126 DEBUG io.pqssh.server.PqsshServer - listening");
        log.println("13:45:01.127 ERROR io.pqssh.sshd - fatal thing");
        log.print("pqssh server: reloaded\r\n");
        log.println("java.io.IOException: boom");
        log.println("\tat x.y(Z.java:1)");
        log.println("");
        assertEquals("Invalid user x from 127.0.0.1 port 35888\r\n"
                + "error: maximum authentication attempts exceeded for x from 127.0.0.1 port 35888 ssh2 [preauth]\r\n"
                + "error: org.apache.sshd.server.session.ServerSessionImpl: exceptionCaught(x)\r\n"
                + "debug1: io.pqssh.server.PqsshServer: listening\r\n"
                + "error: fatal thing\r\n"
                + "pqssh server: reloaded\r\n"
                + "java.io.IOException: boom\r\n"
                + "\tat x.y(Z.java:1)\r\n", file.toString(StandardCharsets.UTF_8));
    }
}
