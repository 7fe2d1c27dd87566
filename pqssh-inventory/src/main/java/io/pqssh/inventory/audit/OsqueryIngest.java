package io.pqssh.inventory.audit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Audits a fleet from osquery results instead of files: rows of its {@code authorized_keys} table (joined with
 * {@code users}: one row per key per user per host) and {@code ssh_configs} table, as osquery logs them (the event
 * format with {@code columns} and {@code action}, the snapshot format with {@code snapshot}, the batch format with
 * {@code diffResults}, one JSON object per line) or as an array of rows ({@code osqueryi --json}, a Fleet live query
 * export). Each host's keys get the same findings a local audit gives; the file of a finding is
 * {@code osquery://HOST/PATH} and its line is the key's position among the rows of that file. Removed rows
 * ({@code "action":"removed"}) are not keys any more and are skipped.
 */
public final class OsqueryIngest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private OsqueryIngest() {
    }

    /** Findings of all hosts, the hosts seen, and rows that could not be used. */
    public record Result(List<Finding> findings, List<String> hosts, int rows, List<String> badRows) {
    }

    private static final class Host {
        final Map<String, StringBuilder> keys = new LinkedHashMap<>();
        final Map<String, String> login = new LinkedHashMap<>();
        final Map<String, List<String>> configs = new LinkedHashMap<>();
        final Map<String, String> lastBlock = new LinkedHashMap<>();
    }

    public static Result read(InputStream in, String source, Auditor.Options options) throws IOException {
        Map<String, Host> hosts = new LinkedHashMap<>();
        List<String> bad = new ArrayList<>();
        int[] rows = {0};
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        r.mark(1 << 16);
        int c;
        do {
            c = r.read();
        } while (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0xfeff);
        r.reset();
        if (c == '[') {
            // one JSON array of rows or log records
            try (JsonParser p = JSON.createParser(r)) {
                p.nextToken();
                int n = 0;
                while (p.nextToken() == JsonToken.START_OBJECT) {
                    n++;
                    record(JSON.readTree(p), source + "[" + n + "]", hosts, bad, rows);
                }
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                bad.add(source + ": not a JSON array of osquery rows: " + e.getOriginalMessage());
            }
        } else {
            String line;
            int n = 0;
            while ((line = r.readLine()) != null) {
                n++;
                if (line.isBlank()) {
                    continue;
                }
                JsonNode node;
                try {
                    node = JSON.readTree(line);
                } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                    bad.add(source + ":" + n + ": not JSON: " + e.getOriginalMessage());
                    continue;
                }
                record(node, source + ":" + n, hosts, bad, rows);
            }
        }
        Auditor a = Auditor.forRows(options, ConfigAudit.Effective.defaults());
        for (Map.Entry<String, Host> h : hosts.entrySet()) {
            Host host = h.getValue();
            for (Map.Entry<String, StringBuilder> k : host.keys.entrySet()) {
                String file = "osquery://" + h.getKey() + k.getKey();
                String user = host.login.get(k.getKey());
                a.authorizedContent(file, k.getValue().toString(), h.getKey() + " user " + user, user);
            }
            for (Map.Entry<String, List<String>> cfg : host.configs.entrySet()) {
                a.clientConfigLines("osquery://" + h.getKey() + cfg.getKey(), cfg.getValue());
            }
        }
        for (String b : bad) {
            a.inputNote(source, 0, b);
        }
        return new Result(a.finish(), List.copyOf(hosts.keySet()), rows[0], List.copyOf(bad));
    }

    private static void record(JsonNode rec, String where, Map<String, Host> hosts, List<String> bad, int[] rows) {
        if (!rec.isObject()) {
            bad.add(where + ": not a JSON object");
            return;
        }
        String host = text(rec, "hostIdentifier");
        if (host == null) {
            host = text(rec.path("decorations"), "hostname");
        }
        if (rec.has("columns")) {
            if (!"removed".equals(text(rec, "action"))) {
                row(rec.get("columns"), host, where, hosts, bad, rows);
            }
        } else if (rec.has("snapshot")) {
            for (JsonNode row : rec.get("snapshot")) {
                row(row, host, where, hosts, bad, rows);
            }
        } else if (rec.has("diffResults")) {
            for (JsonNode row : rec.path("diffResults").path("added")) {
                row(row, host, where, hosts, bad, rows);
            }
        } else {
            row(rec, host, where, hosts, bad, rows);
        }
    }

    private static void row(JsonNode row, String recordHost, String where, Map<String, Host> hosts, List<String> bad,
            int[] rows) {
        String host = recordHost;
        for (String f : List.of("host_hostname", "hostname", "host_display_name", "hostIdentifier", "host")) {
            if (host == null) {
                host = text(row, f);
            }
        }
        if (host == null || host.isEmpty()) {
            bad.add(where + ": a row without a host (hostIdentifier, decorations.hostname or a hostname column)");
            return;
        }
        if (host.contains("/") || host.contains(" ")) {
            bad.add(where + ": host name '" + host + "' is not a host name");
            return;
        }
        Host h = hosts.computeIfAbsent(host, k -> new Host());
        String keyFile = text(row, "key_file");
        String configFile = text(row, "ssh_config_file");
        if (keyFile != null) {
            String line = keyLine(row);
            if (line == null) {
                bad.add(where + ": authorized_keys row without algorithm and key");
                return;
            }
            rows[0]++;
            h.keys.computeIfAbsent(keyFile, k -> new StringBuilder()).append(line).append('\n');
            String user = text(row, "username");
            if (user == null) {
                user = row.hasNonNull("uid") ? "uid " + row.get("uid").asText() : "owner of " + keyFile;
            }
            h.login.putIfAbsent(keyFile, user);
        } else if (configFile != null && text(row, "option") != null) {
            rows[0]++;
            List<String> lines = h.configs.computeIfAbsent(configFile, k -> new ArrayList<>());
            String block = text(row, "block") == null ? "" : text(row, "block");
            if (!block.equals(h.lastBlock.getOrDefault(configFile, ""))) {
                lines.add(block);
                h.lastBlock.put(configFile, block);
            }
            lines.add(text(row, "option"));
        } else if (row.has("username") && row.has("directory")) {
            rows[0]++; // a users row: the join already names the user on each key
        } else {
            bad.add(where + ": neither an authorized_keys nor an ssh_configs row");
        }
    }

    /** The authorized_keys line of a row: current osquery splits it, early versions put the line in "key". */
    private static String keyLine(JsonNode row) {
        String alg = text(row, "algorithm");
        String key = text(row, "key");
        if (key == null || key.isBlank()) {
            return null;
        }
        if (alg == null || alg.isBlank()) {
            return key.strip();
        }
        String options = text(row, "options");
        String comment = text(row, "comment");
        return ((options == null || options.isBlank() ? "" : options.strip() + " ") + alg.strip() + " " + key.strip()
                + (comment == null || comment.isBlank() ? "" : " " + comment.strip())).replace('\n', ' ');
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.path(field);
        return v.isValueNode() && !v.isNull() ? v.asText() : null;
    }
}
