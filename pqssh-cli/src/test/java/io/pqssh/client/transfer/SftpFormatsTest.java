package io.pqssh.client.transfer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * sftp's number formats, checked against what OpenSSH 9.2's sftp printed for the same values: {@code df -h}'s
 * {@code fmt_scaled}, the progress meter's sizes, rates and whole line, and the flag parsing of its getopt.
 */
class SftpFormatsTest {
    @Test
    void dfHumanSizesAsFmtScaled() {
        // sftp's "df -h" on this machine: 252GB 22.8GB 78.7GB 229GB for these 1 KiB block counts
        assertEquals("252G", DiskFree.scaled(264212084L * 1024));
        assertEquals("22.8G", DiskFree.scaled(23891288L * 1024));
        assertEquals("78.7G", DiskFree.scaled(82499624L * 1024));
        assertEquals("229G", DiskFree.scaled(240320796L * 1024));
        assertEquals("0B", DiskFree.scaled(0));
        assertEquals("512B", DiskFree.scaled(512));
        assertEquals("1.0K", DiskFree.scaled(1024));
        assertEquals("10.0K", DiskFree.scaled(10 * 1024 - 10)); // 9.99 K rounds up to 10.0, as fmt_scaled
    }

    @Test
    void meterFieldsAsProgressMeterC() {
        assertEquals(" 293KB", ProgressMeter.size(300_000));
        assertEquals("9999  ", ProgressMeter.size(9999));
        assertEquals("  9.1MB", ProgressMeter.rate(9_540_000));
        assertEquals("  0.0KB", ProgressMeter.rate(0));
        assertEquals("  1.0MB", ProgressMeter.rate(1_024_000));
    }

    @Test
    void meterLineFitsTheTerminal() {
        String done = ProgressMeter.line(100, "local.bin", 300_000, 300_000, 9_540_000, 0, false, 0);
        assertEquals("\rlocal.bin" + " ".repeat(56) + " 100%  293KB   9.1MB/s   00:00    ", done);
        assertEquals(100, done.length()); // sftp writes exactly the terminal's width, \r included
        String running = ProgressMeter.line(80, "big.bin", 50 * 1024 * 1024, 200 * 1024 * 1024, 10 * 1024 * 1024,
                150 * 1024 * 1024, false, 5);
        assertEquals("\rbig.bin" + " ".repeat(38) + "  25%   50MB  10.0MB/s   00:15 ETA", running);
        assertEquals("\rx" + " ".repeat(44) + "   0%    0     0.0KB/s   --:-- ETA",
                ProgressMeter.line(80, "x", 0, 10, 0, 10, false, 0));
        assertEquals("\rx" + " ".repeat(44) + "   0%    0     0.0KB/s - stalled -",
                ProgressMeter.line(80, "x", 0, 10, 0, 10, true, 9));
    }

    @Test
    void flagsAsGetopt() throws Exception {
        ShellArgs a = ShellArgs.parse(List.of("get", "-ap", "-R", "x", "-f"), "afPpRr");
        assertEquals("apR", a.flags());
        assertEquals(List.of("x", "-f"), a.operands());
        assertEquals(List.of("-s"), ShellArgs.parse(List.of("ln", "--", "-s"), "s").operands());
        ShellArgs.BadFlag bad = org.junit.jupiter.api.Assertions.assertThrows(ShellArgs.BadFlag.class,
                () -> ShellArgs.parse(List.of("df", "-hx"), "hi"));
        assertEquals("df: Invalid flag -x", bad.getMessage());
    }
}
