package io.pqssh.inventory.scan;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an identification line alone says (ZGrab2 {@code --hello-only} records): OpenSSH offers a post-quantum key
 * exchange by default from 9.0 ({@code sntrup761x25519-sha512@openssh.com}; {@code mlkem768x25519-sha256} from 9.9),
 * so an unmodified OpenSSH_9.0 or later is pq-ready and anything older classical-only. Other software, and configs
 * that changed the defaults, cannot be told from the banner: those are {@code unknown}.
 */
public final class BannerInference {
    private static final Pattern OPENSSH = Pattern.compile("OpenSSH_(\\d+)\\.(\\d+)");

    private BannerInference() {
    }

    /** pq-ready, classical-only or unknown, from the software version of the identification line. */
    public static String category(String software) {
        if (software == null) {
            return "unknown";
        }
        Matcher m = OPENSSH.matcher(software);
        if (!m.lookingAt()) {
            return "unknown";
        }
        int major;
        try {
            major = Integer.parseInt(m.group(1));
        } catch (NumberFormatException e) {
            return "unknown";
        }
        return major >= 9 ? "pq-ready" : "classical-only";
    }
}
