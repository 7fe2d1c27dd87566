package io.pqssh.server.forward;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.sshd.common.util.net.SshdSocketAddress;
import org.junit.jupiter.api.Test;

import io.pqssh.server.ServerConfig;

/** The forwarding keywords as sshd_config lines: defaults, values, matching, GatewayPorts' bind address, errors. */
class ForwardingPolicyTest {
    private static ForwardingPolicy parse(String... lines) throws Exception {
        ServerConfig c = new ServerConfig();
        for (String l : lines) {
            c.apply(l, "test");
        }
        return c.forwarding;
    }

    @Test
    void defaultsAreOpenSsh10s() throws Exception {
        ForwardingPolicy p = parse();
        assertTrue(p.localForwardingAllowed() && p.remoteForwardingAllowed() && p.agentForwardingAllowed());
        assertTrue(p.openPermitted("example.org", 443) && p.listenPermitted("localhost", 8080));
        assertEquals(ForwardingPolicy.GatewayPorts.NO, p.gatewayPorts());
    }

    @Test
    void keywordsRestrict() throws Exception {
        ForwardingPolicy local = parse("AllowTcpForwarding local");
        assertTrue(local.localForwardingAllowed());
        assertFalse(local.remoteForwardingAllowed());
        ForwardingPolicy remote = parse("AllowTcpForwarding=remote");
        assertFalse(remote.localForwardingAllowed());
        assertTrue(remote.remoteForwardingAllowed());
        assertFalse(parse("DisableForwarding yes").agentForwardingAllowed());
        assertFalse(parse("DisableForwarding yes").localForwardingAllowed());
        assertFalse(parse("AllowAgentForwarding no").agentForwardingAllowed());

        ForwardingPolicy open = parse("PermitOpen db.internal:5432 *:80 [::1]:22");
        assertTrue(open.openPermitted("DB.internal", 5432));
        assertFalse(open.openPermitted("db.internal", 5433));
        assertTrue(open.openPermitted("anything", 80));
        assertTrue(open.openPermitted("::1", 22));
        assertFalse(parse("PermitOpen none").openPermitted("localhost", 22));

        ForwardingPolicy listen = parse("PermitListen 8080 localhost:*");
        assertTrue(listen.listenPermitted("0.0.0.0", 8080));
        assertTrue(listen.listenPermitted("localhost", 9999));
        assertFalse(listen.listenPermitted("0.0.0.0", 9999));
    }

    @Test
    void gatewayPortsChoosesTheBindAddress() {
        SshdSocketAddress any = new SshdSocketAddress("", 9000);
        SshdSocketAddress specific = new SshdSocketAddress("192.0.2.7", 9000);
        assertEquals("127.0.0.1", GatewayPortsForwarderFactory.bindAddress(ForwardingPolicy.GatewayPorts.NO, any)
                .getHostName());
        assertEquals("127.0.0.1", GatewayPortsForwarderFactory.bindAddress(ForwardingPolicy.GatewayPorts.NO,
                specific).getHostName());
        assertEquals("0.0.0.0", GatewayPortsForwarderFactory.bindAddress(ForwardingPolicy.GatewayPorts.YES,
                specific).getHostName());
        assertEquals("0.0.0.0", GatewayPortsForwarderFactory.bindAddress(
                ForwardingPolicy.GatewayPorts.CLIENTSPECIFIED, any).getHostName());
        assertEquals("192.0.2.7", GatewayPortsForwarderFactory.bindAddress(
                ForwardingPolicy.GatewayPorts.CLIENTSPECIFIED, specific).getHostName());
        assertEquals("127.0.0.1", GatewayPortsForwarderFactory.bindAddress(
                ForwardingPolicy.GatewayPorts.CLIENTSPECIFIED, new SshdSocketAddress("localhost", 1)).getHostName());
        assertEquals(9000, GatewayPortsForwarderFactory.bindAddress(ForwardingPolicy.GatewayPorts.NO, any).getPort());
    }

    @Test
    void badValuesAreErrorsNamingTheKeyword() {
        for (String bad : new String[] {"AllowTcpForwarding maybe", "GatewayPorts sometimes", "PermitOpen host",
                "PermitOpen host:99999", "PermitListen :80", "AllowAgentForwarding 1"}) {
            ServerConfig.ConfigException e = assertThrows(ServerConfig.ConfigException.class,
                    () -> new ServerConfig().apply(bad, "f:1"), bad);
            assertTrue(e.getMessage().startsWith("f:1: " + bad.split(" ")[0]), e.getMessage());
        }
    }
}
