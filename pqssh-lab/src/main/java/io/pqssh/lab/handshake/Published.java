package io.pqssh.lab.handshake;

import java.util.HashMap;
import java.util.Map;

/**
 * Published P50 latencies (ms) to print beside ours, from /work/shared/reference/published-results.md: the KEMUAuth
 * paper's Figure 3 (RTT 67, initcwnd 10), Figure 4 (initcwnd 10; RTT 37/67/163) and Figure 5 (RTT 67). Those are
 * wall times of a fresh OpenSSH {@code ssh ... true} process on loopback with netem, ours are first SYN to the end of
 * {@code true}; the report says so.
 */
public final class Published {
    private static final Map<String, Double> P50 = new HashMap<>();

    static {
        String[] fig3 = {"ed25519", "841.962", "md44", "841.622", "md65", "841.692", "md87", "841.791", "falcon512",
            "841.656", "falcon1024", "841.850", "sd128f", "920.556", "sd192f", "929.319", "sd256f", "1017.955",
            "mk512", "840.666", "mk768", "840.681", "mk1024", "840.694", "password", "785.446"};
        for (int i = 0; i < fig3.length; i += 2) {
            put("fig3", fig3[i], 67, 10, Double.parseDouble(fig3[i + 1]));
        }
        String[] fig4 = {"h-md65", "524.67", "854.60", "1915.50", "h-sd192f", "645.29", "1033.59", "2285.79",
            "h-mk768-md65", "523.68", "852.37", "1915.46", "h-mk768-sd192f", "582.00", "944.51", "2098.43",
            "ms-md65", "603.85", "992.99", "2249.28", "ms-mk768", "600.32", "988.66", "2246.80",
            "mk768-md65", "518.84", "848.75", "1911.72"};
        for (int i = 0; i < fig4.length; i += 4) {
            put("fig4", fig4[i], 37, 10, Double.parseDouble(fig4[i + 1]));
            put("fig4", fig4[i], 67, 10, Double.parseDouble(fig4[i + 2]));
            put("fig4", fig4[i], 163, 10, Double.parseDouble(fig4[i + 3]));
        }
        int[] iw = {3, 5, 7, 10, 15, 20, 25, 30, 35, 40, 50};
        String[] names = {"ed25519+ed25519", "md65+md65", "sd192f+sd192f", "mk768+md65", "mk768+sd192f"};
        double[][] p50 = {
            {863.91, 997.38, 1238.92, 927.34, 1016.93}, {867.87, 925.85, 1172.74, 858.14, 1014.71},
            {867.14, 858.63, 1173.71, 861.01, 1017.61}, {864.15, 864.78, 1042.69, 863.44, 950.18},
            {866.97, 862.08, 1044.33, 859.97, 951.21}, {864.87, 861.04, 1043.01, 861.69, 950.44},
            {864.93, 862.15, 975.13, 864.28, 953.63}, {864.13, 860.82, 907.19, 862.40, 883.03},
            {863.49, 862.38, 908.02, 861.37, 884.58}, {861.44, 859.22, 904.88, 858.28, 882.63},
            {864.77, 862.17, 906.76, 862.48, 883.04}};
        for (int r = 0; r < iw.length; r++) {
            for (int c = 0; c < names.length; c++) {
                put("fig5", names[c], 67, iw[r], p50[r][c]);
            }
        }
    }

    private Published() {
    }

    private static void put(String suite, String config, double rtt, int iw, double v) {
        P50.put(suite + "/" + config + "/" + rtt + "/" + iw, v);
    }

    /** The published P50 for this cell, or null (loss must be 0). */
    public static Double p50(String suite, String config, double rttMs, double lossPct, int initcwnd) {
        if (lossPct != 0) {
            return null;
        }
        return P50.get(suite + "/" + config + "/" + rttMs + "/" + initcwnd);
    }
}
