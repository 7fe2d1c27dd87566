package io.pqssh.client.transfer;

import org.apache.sshd.sftp.client.extensions.openssh.OpenSSHStatExtensionInfo;

/** sftp's {@code df [-hi]} table for a {@code statvfs@openssh.com} reply (OpenSSH 9.2 column widths). */
final class DiskFree {
    private static final String UNITS = "BKMGTPE";

    private DiskFree() {
    }

    /** The header line and the value line, each ending in a newline. */
    static String table(OpenSSHStatExtensionInfo st, boolean human, boolean inodes) {
        if (inodes) {
            String capacity = st.f_files == 0 ? "ERR"
                    : String.format("%3d%%", Long.divideUnsigned(100 * (st.f_files - st.f_ffree), st.f_files));
            return "     Inodes        Used       Avail      (root)    %Capacity\n"
                    + String.format("%11d %11d %11d %11d         %s\n", st.f_files, st.f_files - st.f_ffree,
                            st.f_favail, st.f_ffree, capacity);
        }
        String capacity = st.f_blocks == 0 ? "ERR"
                : String.format("%3d%%", Long.divideUnsigned(100 * (st.f_blocks - st.f_bfree), st.f_blocks));
        if (human) {
            return "    Size     Used    Avail   (root)    %Capacity\n"
                    + String.format("%7sB %7sB %7sB %7sB         %s\n", scaled(st.f_blocks * st.f_frsize),
                            scaled((st.f_blocks - st.f_bfree) * st.f_frsize), scaled(st.f_bavail * st.f_frsize),
                            scaled(st.f_bfree * st.f_frsize), capacity);
        }
        return "        Size         Used        Avail       (root)    %Capacity\n"
                + String.format("%12d %12d %12d %12d         %s\n", st.f_frsize * st.f_blocks / 1024,
                        st.f_frsize * (st.f_blocks - st.f_bfree) / 1024, st.f_frsize * st.f_bavail / 1024,
                        st.f_frsize * st.f_bfree / 1024, capacity);
    }

    /**
     * OpenBSD's {@code fmt_scaled} (which sftp uses): at most three digits, one decimal below 100 of a unit,
     * rounded half up in 1024ths; "error" when too large.
     */
    static String scaled(long number) {
        if (number < 0 || number / 1024 >= 1L << 60) {
            return "error";
        }
        int unit = 0;
        long whole = number;
        long fract = 0;
        for (int i = 0; i < UNITS.length(); i++) {
            long factor = 1L << (10 * i);
            if (number / 1024 < factor) {
                unit = i;
                whole = number / factor;
                fract = i == 0 ? 0 : (number % factor) / (1L << (10 * (i - 1)));
                break;
            }
        }
        fract = (10 * fract + 512) / 1024;
        if (fract >= 10) {
            whole++;
            fract = 0;
        }
        if (whole == 0) {
            return "0B";
        }
        if (unit == 0 || whole >= 100) {
            return (fract >= 5 ? whole + 1 : whole) + String.valueOf(UNITS.charAt(unit));
        }
        return whole + "." + fract + UNITS.charAt(unit);
    }
}
