package io.pqssh.inventory.scan;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.PublicKeyLine;

/**
 * Reads ZGrab2 {@code ssh} module output (JSON lines: {@code {"ip", "domain", "data": {"ssh": {"status", "port",
 * "result": {"server_id", "server_key_exchange", "key_exchange": {"server_host_key"}}, "error"}}}}) into the same
 * {@link ScanResult}s a live scan gives, for fleets beyond what {@code pqssh scan} should probe itself.
 */
public final class Zgrab2Reader {
    static final int MAX_LINE = 4 << 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    private Zgrab2Reader() {
    }

    public static List<ScanResult> read(Path file, int defaultPort) throws IOException {
        List<ScanResult> out = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int n = 0;
            while ((line = r.readLine()) != null) {
                n++;
                if (line.isBlank()) {
                    continue;
                }
                if (line.length() > MAX_LINE) {
                    throw new IOException(file + ":" + n + ": line longer than " + MAX_LINE + " characters");
                }
                if (out.size() >= Targets.MAX_FORCED) {
                    throw new IOException(file + ": more than " + Targets.MAX_FORCED + " records");
                }
                try {
                    out.add(record(JSON.readTree(line), defaultPort));
                } catch (IOException | IllegalArgumentException e) {
                    throw new IOException(file + ":" + n + ": not a ZGrab2 ssh record: " + e.getMessage(), e);
                }
            }
        }
        return out;
    }

    static ScanResult record(JsonNode rec, int defaultPort) throws IOException {
        String host = text(rec, "ip");
        if (host == null) {
            host = text(rec, "domain");
        }
        if (host == null) {
            throw new IllegalArgumentException("no \"ip\" or \"domain\"");
        }
        JsonNode ssh = rec.path("data").path("ssh");
        if (ssh.isMissingNode()) {
            throw new IllegalArgumentException("no data.ssh (was the ssh module used?)");
        }
        int port = ssh.path("port").isInt() ? ssh.path("port").asInt() : defaultPort;
        Target t = new Target(host, port);
        String status = text(ssh, "status");
        JsonNode res = ssh.path("result");
        JsonNode kex = res.path("server_key_exchange");
        if (!kex.isObject() || !kex.path("kex_algorithms").isArray()) {
            String err = text(ssh, "error");
            String why = (status == null ? "unknown" : status) + (err == null ? "" : ": " + err);
            boolean unreachable = status != null && (status.equals("connection-refused")
                    || status.equals("connection-timeout"));
            return new ScanResult(t, unreachable ? ScanResult.Status.UNREACHABLE : ScanResult.Status.NOT_SSH,
                    (unreachable ? "unreachable: " : "not ssh: ") + "zgrab2 " + why, null, null, null, null,
                    List.of(), 1, 0);
        }
        KexInit k = new KexInit(list(kex, "kex_algorithms"), list(kex, "host_key_algorithms"),
                list(kex, "client_to_server_ciphers"), list(kex, "server_to_client_ciphers"),
                list(kex, "client_to_server_macs"), list(kex, "server_to_client_macs"),
                list(kex, "client_to_server_compression"), list(kex, "server_to_client_compression"),
                list(kex, "client_to_server_languages"), list(kex, "server_to_client_languages"),
                kex.path("first_kex_follows").asBoolean(false));
        JsonNode id = res.path("server_id");
        List<ScanResult.HostKey> keys = new ArrayList<>();
        JsonNode hk = res.path("key_exchange").path("server_host_key");
        String raw = text(hk, "raw");
        if (raw != null) {
            byte[] blob = Base64.getDecoder().decode(raw);
            String type;
            try {
                type = PublicKeyLine.blobKeyType(blob);
            } catch (KeyFileException e) {
                throw new IllegalArgumentException("server_host_key.raw: " + e.getMessage());
            }
            keys.add(new ScanResult.HostKey(text(hk, "algorithm") != null ? text(hk, "algorithm") : type, type,
                    KeyFingerprints.sha256(blob), type + " " + raw, null));
        }
        return new ScanResult(t, ScanResult.Status.SSH, null, text(id, "raw"), text(id, "software"), k,
                Classification.of(k), keys, 1, 0);
    }

    private static List<String> list(JsonNode n, String field) {
        List<String> l = new ArrayList<>();
        JsonNode a = n.path(field);
        if (a.isArray()) {
            for (JsonNode x : a) {
                String s = x.asText();
                if (s.length() > KexInit.MAX_NAME || l.size() >= KexInit.MAX_NAMES) {
                    throw new IllegalArgumentException(field + " has an over-long name or too many names");
                }
                l.add(s);
            }
        }
        return List.copyOf(l);
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.path(field);
        return v.isTextual() ? v.asText() : null;
    }
}
