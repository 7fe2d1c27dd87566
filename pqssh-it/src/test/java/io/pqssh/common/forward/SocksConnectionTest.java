package io.pqssh.common.forward;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;

import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.channel.exception.SshChannelOpenException;
import org.junit.jupiter.api.Test;

/** The SOCKS5 reply code -D sends for each way a server refuses the {@code direct-tcpip} channel. */
class SocksConnectionTest {
    private static int reply(int reason, String description) {
        return SocksConnection.socksReply(new SshChannelOpenException(3, reason, description));
    }

    @Test
    void refusalsMapToRfc1928Codes() {
        assertEquals(SocksHandshake.NOT_ALLOWED, reply(SshConstants.SSH_OPEN_ADMINISTRATIVELY_PROHIBITED,
                "open failed"));
        assertEquals(SocksHandshake.CONNECTION_REFUSED, reply(SshConstants.SSH_OPEN_CONNECT_FAILED,
                "Connection refused"));
        assertEquals(SocksHandshake.HOST_UNREACHABLE, reply(SshConstants.SSH_OPEN_CONNECT_FAILED, "No route to host"));
        assertEquals(SocksHandshake.HOST_UNREACHABLE, reply(SshConstants.SSH_OPEN_CONNECT_FAILED,
                "Name or service not known"));
        assertEquals(SocksHandshake.NETWORK_UNREACHABLE, reply(SshConstants.SSH_OPEN_CONNECT_FAILED,
                "Network is unreachable"));
        // MINA's servers describe every failure the same way: a connect failure is taken as refused
        assertEquals(SocksHandshake.CONNECTION_REFUSED, reply(SshConstants.SSH_OPEN_CONNECT_FAILED,
                "Generic error while opening channel: 7"));
        assertEquals(SocksHandshake.GENERAL_FAILURE, reply(SshConstants.SSH_OPEN_RESOURCE_SHORTAGE, "busy"));
        // not a refusal at all (the session closed while opening)
        assertEquals(SocksHandshake.GENERAL_FAILURE, SocksConnection.socksReply(new IOException("closed")));
        assertEquals(SocksHandshake.GENERAL_FAILURE, SocksConnection.socksReply(null));
    }
}
