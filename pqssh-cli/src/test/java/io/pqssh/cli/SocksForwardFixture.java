package io.pqssh.cli;

import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the dynamic forwarding tests ({@code -D}, {@code -R [bind:]port}) share: a {@link ForwardingHarness} with the
 * test user's key, a loopback HTTP server to fetch through SOCKS, and curl (which they fail without).
 */
abstract class SocksForwardFixture {
    @TempDir
    Path dir;

    ForwardingHarness h;
    Path key;
    int httpPort;

    @BeforeEach
    void setUpSocksFixture() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH_KEYGEN, "openssh-client");
        CliHarness.requireBinary(ForwardingHarness.CURL, "curl");
        h = new ForwardingHarness(dir);
        key = h.userKey();
        httpPort = h.startHttpServer();
    }

    @AfterEach
    void tearDownSocksFixture() throws Exception {
        h.close();
    }
}
