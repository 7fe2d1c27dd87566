import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

/**
 * Writes N synthetic ZGrab2 ssh records (the shapes of the test fixture: full handshakes with key exchange
 * parameters and parsed host keys, PQ-only handshake errors, hello-only, timeouts, one truncated record per
 * 100,000) for the ingest benchmark. 12 % of the SSH servers are PQ-capable, as in the measured Internet scan.
 * Usage: java Zgrab2Generate.java N OUT(.gz|-)
 */
public final class Zgrab2Generate {
    static final String TS = "2026-11-20T08:14:03Z";
    static final String ED = "AAAAC3NzaC1lZDI1NTE5AAAAIBkYIOotc8ub1MXybLdZtRSE5yALrPY3EHQvTlTxHqnG";
    static final String EC = "AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBJMTLyOwz/vg7zbAM0ofKOkWzAdpthnf"
            + "Afxp8S7+VtNyj+SrYGPxNYGFEdb+nGoiaKxLtTwDmchYjCrvfLvah4k=";
    static final String CIPHERS = "[\"chacha20-poly1305@openssh.com\",\"aes128-ctr\",\"aes192-ctr\",\"aes256-ctr\","
            + "\"aes128-gcm@openssh.com\",\"aes256-gcm@openssh.com\"]";
    static final String MACS = "[\"umac-64-etm@openssh.com\",\"umac-128-etm@openssh.com\",\"hmac-sha2-256-etm@openssh.com\","
            + "\"hmac-sha2-512-etm@openssh.com\",\"hmac-sha1-etm@openssh.com\",\"umac-64@openssh.com\",\"umac-128@openssh.com\","
            + "\"hmac-sha2-256\",\"hmac-sha2-512\",\"hmac-sha1\"]";
    static final String CLIENT = "[curve25519-sha256 curve25519-sha256@libssh.org ecdh-sha2-nistp256 ecdh-sha2-nistp384"
            + " ecdh-sha2-nistp521 diffie-hellman-group1-sha1 diffie-hellman-group14-sha256 diffie-hellman-group14-sha1"
            + " diffie-hellman-group-exchange-sha256 diffie-hellman-group-exchange-sha1 ext-info-c]";

    static String success(String software, String kex, String hk, String key, String keyAlg) {
        return "\"status\":\"success\",\"protocol\":\"ssh\",\"port\":22,\"result\":{\"server_id\":{\"raw\":\"SSH-2.0-"
                + software + "\",\"version\":\"2.0\",\"software\":\"" + software + "\"},\"server_key_exchange\":{"
                + "\"cookie\":\"q83vASNFZ4mrze8BI0VniQ==\",\"kex_algorithms\":" + kex + ",\"host_key_algorithms\":" + hk
                + ",\"client_to_server_ciphers\":" + CIPHERS + ",\"server_to_client_ciphers\":" + CIPHERS
                + ",\"client_to_server_macs\":" + MACS + ",\"server_to_client_macs\":" + MACS
                + ",\"client_to_server_compression\":[\"none\",\"zlib@openssh.com\"],\"server_to_client_compression\":"
                + "[\"none\",\"zlib@openssh.com\"],\"first_kex_follows\":false,\"reserved\":0},\"algorithm_selection\":{"
                + "\"dh_kex_algorithm\":\"curve25519-sha256\",\"host_key_algorithm\":\"" + keyAlg + "\","
                + "\"client_to_server_alg_group\":{\"cipher\":\"aes128-gcm@openssh.com\",\"mac\":\"hmac-sha2-256-etm@openssh.com\","
                + "\"compression\":\"none\"},\"server_to_client_alg_group\":{\"cipher\":\"aes128-gcm@openssh.com\","
                + "\"mac\":\"hmac-sha2-256-etm@openssh.com\",\"compression\":\"none\"}},\"key_exchange\":{"
                + "\"curve25519_sha256_params\":{\"server_public\":\"Wm9tYmllIGtleSBleGNoYW5nZSBwYXJhbXMgaGVyZSE=\"},"
                + "\"server_signature\":{\"parsed\":{\"algorithm\":\"" + keyAlg + "\",\"value\":\"c2lnbmF0dXJlIGJ5dGVzIG9mIHRoZSBmaXh0dXJlIHNpZ25hdHVyZSBieXRlcyBvZiB0aGUgZml4dHVyZQ==\"},"
                + "\"raw\":\"AAAAC3NzaC1lZDI1NTE5AAAAQHNpZ25hdHVyZQ==\",\"h\":\"aGFzaCBvZiB0aGUgZXhjaGFuZ2UgaGFzaCBvZiB0aGU=\"},"
                + "\"server_host_key\":{\"raw\":\"" + key + "\",\"algorithm\":\"" + keyAlg + "\","
                + "\"fingerprint_sha256\":\"d7611fabe007528e87b98620742ced8d2dfc9890de5ce7391fdc077dedf90a2d\"}}},"
                + "\"timestamp\":\"" + TS + "\"";
    }

    public static void main(String[] args) throws IOException {
        long n = Long.parseLong(args[0]);
        OutputStream raw = args[1].equals("-") ? System.out : Files.newOutputStream(Path.of(args[1]));
        OutputStream o = args[1].endsWith(".gz") ? new GZIPOutputStream(raw, 1 << 16) : raw;
        try (OutputStream out = new BufferedOutputStream(o, 1 << 20)) {
            String pq = success("OpenSSH_9.9p1", "[\"mlkem768x25519-sha256\",\"sntrup761x25519-sha512\","
                    + "\"sntrup761x25519-sha512@openssh.com\",\"curve25519-sha256\",\"curve25519-sha256@libssh.org\","
                    + "\"ecdh-sha2-nistp256\",\"ecdh-sha2-nistp384\",\"ecdh-sha2-nistp521\",\"diffie-hellman-group-exchange-sha256\","
                    + "\"diffie-hellman-group16-sha512\",\"diffie-hellman-group18-sha512\",\"diffie-hellman-group14-sha256\","
                    + "\"ext-info-s\",\"kex-strict-s-v00@openssh.com\"]", "[\"rsa-sha2-512\",\"rsa-sha2-256\","
                    + "\"ecdsa-sha2-nistp256\",\"ssh-ed25519\"]", ED, "ssh-ed25519");
            String classical = success("OpenSSH_7.4", "[\"curve25519-sha256\",\"curve25519-sha256@libssh.org\","
                    + "\"ecdh-sha2-nistp256\",\"ecdh-sha2-nistp384\",\"ecdh-sha2-nistp521\",\"diffie-hellman-group-exchange-sha256\","
                    + "\"diffie-hellman-group16-sha512\",\"diffie-hellman-group18-sha512\",\"diffie-hellman-group-exchange-sha1\","
                    + "\"diffie-hellman-group14-sha256\",\"diffie-hellman-group14-sha1\",\"diffie-hellman-group1-sha1\"]",
                    "[\"ssh-rsa\",\"rsa-sha2-512\",\"rsa-sha2-256\",\"ecdsa-sha2-nistp256\",\"ssh-ed25519\"]", EC,
                    "ecdsa-sha2-nistp256");
            String pqOnly = "\"status\":\"handshake-error\",\"protocol\":\"ssh\",\"port\":22,\"timestamp\":\"" + TS
                    + "\",\"error\":\"failed to create SSH client connection: ssh: handshake failed: ssh: no common"
                    + " algorithm for key exchange; client offered: " + CLIENT + ", server offered: [mlkem768x25519-sha256"
                    + " ext-info-s kex-strict-s-v00@openssh.com]\"";
            String hello = "\"status\":\"success\",\"protocol\":\"ssh\",\"port\":22,\"result\":{\"server_id\":{\"raw\":"
                    + "\"SSH-2.0-OpenSSH_8.4p1 Debian-5+deb11u3\",\"version\":\"2.0\",\"software\":\"OpenSSH_8.4p1\","
                    + "\"comment\":\"Debian-5+deb11u3\"}},\"timestamp\":\"" + TS + "\"";
            String timeout = "\"status\":\"io-timeout\",\"protocol\":\"ssh\",\"port\":22,\"timestamp\":\"" + TS
                    + "\",\"error\":\"failed to create SSH client connection: ssh: handshake failed: read tcp: i/o timeout\"";
            for (long i = 0; i < n; i++) {
                String ip = "10." + ((i >> 16) & 255) + "." + ((i >> 8) & 255) + "." + (i & 255);
                if (i % 100_000 == 99_999) {
                    out.write(("{\"ip\":\"" + ip + "\",\"data\":{\"ssh\":{\"status\":\"succ\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    continue;
                }
                long m = i % 100;
                String body = m < 10 ? pq : m < 12 ? pqOnly : m < 82 ? classical : m < 90 ? hello : timeout;
                out.write(("{\"ip\":\"" + ip + "\",\"data\":{\"ssh\":{" + body + "}}}\n")
                        .getBytes(StandardCharsets.US_ASCII));
            }
        }
    }
}
