package io.pqssh.mina.drills;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.pqssh.client.PqsshClient;
import io.pqssh.mina.server.PreAuthLimits;
import io.pqssh.server.ServerConfig;

/** MaxStartups, MaxPreauthPacketSize and the config keywords, on loopback. */
class PreAuthLimitsTest {

    @Test
    void maxStartupsFullRefusesNewConnectionsUntilSlotsFree() throws Exception {
        try (DrillServer d = new DrillServer(PreAuthLimits.Settings.defaults().maxStartups("2"), Duration.ofSeconds(20))) {
            List<Socket> held = new ArrayList<>();
            try {
                for (int i = 0; i < 2; i++) {
                    Socket s = connect(d);
                    assertTrue(readLine(s.getInputStream()).startsWith("SSH-2.0-"), "admitted connections get a banner");
                    held.add(s);
                }
                DrillServer.waitUntil("2 unauthenticated", () -> d.limits.unauthenticated() == 2, Duration.ofSeconds(5));
                try (Socket third = connect(d)) {
                    assertEquals(-1, third.getInputStream().read(), "the third connection is closed without a banner");
                }
                assertEquals(1, d.limits.refused());
            } finally {
                for (Socket s : held) {
                    s.close();
                }
            }
            DrillServer.waitUntil("slots released", () -> d.limits.unauthenticated() == 0, Duration.ofSeconds(5));
            try (PqsshClient cli = d.legitClient()) {
                d.login(cli); // and an authenticated session no longer counts
            }
            assertEquals(0, d.limits.unauthenticated());
        }
    }

    @Test
    void oversizedPacketBeforeAuthenticationEndsTheConnection() throws Exception {
        try (DrillServer d = new DrillServer(PreAuthLimits.Settings.defaults().maxPreauthPacketSize(1024),
                Duration.ofSeconds(20)); Socket s = connect(d)) {
            readLine(s.getInputStream());
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.write("SSH-2.0-big-packet-test\r\n".getBytes(StandardCharsets.US_ASCII));
            int payload = 2000;
            int padding = 8 - (5 + payload) % 8 + 8;
            out.writeInt(1 + payload + padding);
            out.writeByte(padding);
            out.writeByte(2); // SSH_MSG_IGNORE
            out.write(new byte[payload - 1]);
            out.write(new byte[padding]);
            out.flush();
            InputStream in = s.getInputStream();
            s.setSoTimeout(5000);
            byte[] buf = new byte[8192];
            while (in.read(buf) >= 0) {
                // the server's KEXINIT and DISCONNECT, then EOF
            }
            assertEquals(1, d.limits.refused());
        }
    }

    @Test
    void configKeywords() throws Exception {
        ServerConfig c = new ServerConfig();
        c.apply("MaxStartups 5:50:20", "t:1");
        c.apply("PerSourceMaxStartups 3", "t:2");
        c.apply("PerSourceConnectRate 10:60", "t:3");
        c.apply("MaxPreauthPacketSize 32768", "t:4");
        assertEquals(new PreAuthLimits.Settings(5, 50, 20, 3, 10, 60, 32768), c.preAuth);
        assertEquals(new PreAuthLimits.Settings(10, 30, 100, 0, 0, 0, 65536), new ServerConfig().preAuth);
        for (String bad : List.of("MaxStartups 10:30", "MaxStartups 20:30:10", "MaxStartups 10:101:20",
                "PerSourceMaxStartups 0", "PerSourceConnectRate 5", "MaxPreauthPacketSize 100")) {
            assertThrows(ServerConfig.ConfigException.class, () -> new ServerConfig().apply(bad, "t:9"), bad);
        }
    }

    private static Socket connect(DrillServer d) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", d.port()), 2000);
        s.setSoTimeout(5000);
        return s;
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int c; (c = in.read()) >= 0 && c != '\n' && sb.length() < 512;) {
            sb.append((char) c);
        }
        return sb.toString();
    }
}
