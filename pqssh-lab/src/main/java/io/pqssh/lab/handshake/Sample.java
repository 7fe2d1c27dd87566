package io.pqssh.lab.handshake;

/**
 * One measured login (a row of raw.csv). Times in ms; -1 where not measured (loopback mode has no ruler).
 * auth_ms and total_ms run from the emulator's first-SYN timestamp to the client's auth-success and
 * {@code true}-finished timestamps (one CLOCK_MONOTONIC); link_ms from first SYN to the last packet of the connection.
 * payload_* are the emulator's TCP payload bytes (retransmissions not counted again); mina_bytes_* the client's MINA
 * transport counts (c2s written, s2c read), mina_server_bytes_* the server's (c2s read, s2c written); -1 where
 * not measured (OpenSSH peers, loopback mode for the emulator columns).
 */
public record Sample(String suite, String config, String peer, double rttMs, double lossPct, int initcwnd, int round,
        boolean warmup, double authMs, double totalMs, double linkMs, double clientAuthMs, double clientWallMs,
        long bytesC2s, long bytesS2c, long packetsC2s, long packetsS2c, long bytesC2sAuth, long bytesS2cAuth,
        int roundTrips, int roundTripsAuth, long retransmissions, long emulatorRetransmissions, String kex,
        String hostKeyType, String method, String error, long[] wire, long payloadC2s, long payloadS2c,
        long minaBytesC2s, long minaBytesS2c, long minaServerBytesC2s, long minaServerBytesS2c) {

    /** The CSV columns, documented in docs/lab-handshake.md. */
    public static final String[] BASE_COLUMNS = {"suite", "config", "peer", "rtt_ms", "loss_pct", "initcwnd", "round",
        "warmup", "auth_ms", "total_ms", "link_ms", "client_auth_ms", "client_wall_ms", "bytes_c2s", "bytes_s2c",
        "packets_c2s", "packets_s2c", "bytes_c2s_auth", "bytes_s2c_auth", "round_trips", "round_trips_auth",
        "retransmissions", "emulator_retransmissions", "kex", "hostkey_type", "method", "error", "payload_c2s",
        "payload_s2c", "mina_bytes_c2s", "mina_bytes_s2c", "mina_server_bytes_c2s", "mina_server_bytes_s2c"};
    /** All CSV columns: the base ones, then the message-type byte counts of {@link SshWire#columns()}. */
    public static final String[] COLUMNS = concat(BASE_COLUMNS, SshWire.columns());

    private static String[] concat(String[] a, String[] b) {
        String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    public boolean ok() {
        return error == null || error.isEmpty();
    }

    public String key() {
        return suite + "\u0000" + config + "\u0000" + peer + "\u0000" + rttMs + "\u0000" + lossPct + "\u0000" + initcwnd;
    }

    public Object[] values() {
        Object[] base = new Object[] {suite, config, peer, rttMs, lossPct, initcwnd, round, warmup, authMs, totalMs, linkMs,
            clientAuthMs, clientWallMs, bytesC2s, bytesS2c, packetsC2s, packetsS2c, bytesC2sAuth, bytesS2cAuth,
            roundTrips, roundTripsAuth, retransmissions, emulatorRetransmissions, kex, hostKeyType, method,
            error == null ? "" : error, payloadC2s, payloadS2c, minaBytesC2s, minaBytesS2c, minaServerBytesC2s,
            minaServerBytesS2c};
        Object[] all = java.util.Arrays.copyOf(base, base.length + SshWire.columns().length);
        for (int i = 0; i < SshWire.columns().length; i++) {
            all[base.length + i] = wire == null ? -1L : wire[i];
        }
        return all;
    }

    /** Without emulator payload or MINA counts (OpenSSH peers, failed runs). */
    static Sample of(String suite, String config, String peer, double rttMs, double lossPct, int initcwnd, int round,
            boolean warmup, double authMs, double totalMs, double linkMs, double clientAuthMs, double clientWallMs,
            long bytesC2s, long bytesS2c, long packetsC2s, long packetsS2c, long bytesC2sAuth, long bytesS2cAuth,
            int roundTrips, int roundTripsAuth, long retransmissions, long emulatorRetransmissions, String kex,
            String hostKeyType, String method, String error, long[] wire) {
        return new Sample(suite, config, peer, rttMs, lossPct, initcwnd, round, warmup, authMs, totalMs, linkMs,
                clientAuthMs, clientWallMs, bytesC2s, bytesS2c, packetsC2s, packetsS2c, bytesC2sAuth, bytesS2cAuth,
                roundTrips, roundTripsAuth, retransmissions, emulatorRetransmissions, kex, hostKeyType, method, error,
                wire, -1, -1, -1, -1, -1, -1);
    }

    /** This sample with the emulator's payload counts and the MINA-side counts. */
    Sample withCounts(long payC2s, long payS2c, long minaC2s, long minaS2c, long srvC2s, long srvS2c) {
        return new Sample(suite, config, peer, rttMs, lossPct, initcwnd, round, warmup, authMs, totalMs, linkMs,
                clientAuthMs, clientWallMs, bytesC2s, bytesS2c, packetsC2s, packetsS2c, bytesC2sAuth, bytesS2cAuth,
                roundTrips, roundTripsAuth, retransmissions, emulatorRetransmissions, kex, hostKeyType, method, error,
                wire, payC2s, payS2c, minaC2s, minaS2c, srvC2s, srvS2c);
    }
}
