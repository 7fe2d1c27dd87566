package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** ssh's getopt reading of the command line (ssh.c: BSD getopt, no permutation, one more pass after the host). */
class SshArgumentsTest {
    private static SshCommand parse(String... args) throws SshArguments.UsageException {
        return SshArguments.parse(List.of(args));
    }

    @Test
    void bundledFlagsAndAttachedValues() throws Exception {
        SshCommand c = parse("-vvvtt", "-p2222", "-NfL", "8080:db:5432", "-oUser=bob", "-i", "k1", "-ik2", "host");
        assertEquals(3, c.verbose);
        assertEquals(2, c.tty);
        assertEquals(2222, c.port);
        assertTrue(c.noCommand);
        assertTrue(c.fork);
        assertEquals(List.of("8080:db:5432"), c.localForwards);
        assertEquals(List.of("User=bob"), c.options);
        assertEquals(List.of("k1", "k2"), c.identities);
        assertEquals("host", c.destination);
        assertEquals(List.of(), c.command);
    }

    @Test
    void optionsAfterTheDestinationThenTheCommand() throws Exception {
        SshCommand c = parse("-l", "alice", "host", "-v", "-p", "22", "ls", "-l", "-v");
        assertEquals("host", c.destination);
        assertEquals(1, c.verbose, "-v after the host is ssh's option, the one after ls is the command's");
        assertEquals(22, c.port);
        assertEquals("alice", c.loginName);
        assertEquals(List.of("ls", "-l", "-v"), c.command);
    }

    @Test
    void doubleDashEndsOptions() throws Exception {
        SshCommand c = parse("-q", "--", "host", "-v");
        assertTrue(c.quiet);
        assertEquals("host", c.destination);
        assertEquals(0, c.verbose);
        assertEquals(List.of("-v"), c.command);
        SshCommand d = parse("host", "--", "-v", "x");
        assertEquals(List.of("-v", "x"), d.command);
        assertEquals(0, d.verbose);
    }

    @Test
    void commandWordsKeepTheirSpelling() throws Exception {
        SshCommand c = parse("h", "echo", "a  b", "-", "");
        assertEquals(List.of("echo", "a  b", "-", ""), c.command);
        SshCommand d = parse("-");
        assertEquals("-", d.destination, "a lone - is not an option (getopt)");
    }

    @Test
    void errorsReadLikeSsh() {
        var unknown = assertThrows(SshArguments.UsageException.class, () -> parse("-Z", "h"));
        assertEquals("unknown option -- Z", unknown.getMessage());
        assertTrue(unknown.showUsage());
        var missing = assertThrows(SshArguments.UsageException.class, () -> parse("h", "-p"));
        assertEquals("option requires an argument -- p", missing.getMessage());
        var port = assertThrows(SshArguments.UsageException.class, () -> parse("-p", "abc", "h"));
        assertEquals("Bad port 'abc'", port.getMessage());
        assertThrows(SshArguments.UsageException.class, () -> parse("-p", "0", "h"));
        assertThrows(SshArguments.UsageException.class, () -> parse("-p", "65536", "h"));
        var syslog = assertThrows(SshArguments.UsageException.class, () -> parse("-y", "h"));
        assertTrue(syslog.getMessage().contains("-y is not implemented"), syslog.getMessage());
        assertFalse(syslog.showUsage());
        var bindValue = assertThrows(SshArguments.UsageException.class, () -> parse("-b", "1.2.3.4", "h"));
        assertTrue(bindValue.getMessage().contains("-b is not implemented"), bindValue.getMessage());
    }

    @Test
    void noDestinationAndHelp() throws Exception {
        SshCommand c = parse("-Q", "kex");
        assertNull(c.destination);
        assertEquals("kex", c.query);
        assertTrue(parse("--help").help);
        SshCommand all = parse("-AaCGnsTVe", "none", "-D", "1080", "-R", "9:h:9", "-J", "j1,j2", "-F", "cfg", "h");
        assertTrue(all.forwardAgent && all.noForwardAgent && all.compression && all.printConfig && all.stdinNull
                && all.subsystem && all.noTty && all.version);
        assertEquals("none", all.escapeChar);
        assertEquals(List.of("1080"), all.dynamicForwards);
        assertEquals(List.of("9:h:9"), all.remoteForwards);
        assertEquals("j1,j2", all.proxyJump);
        assertEquals("cfg", all.configFile);
        // -X, -Y and -x: the last one given counts, as in ssh
        assertEquals("X", parse("-X", "h").forwardX11);
        assertEquals("Y", parse("-XY", "h").forwardX11);
        assertEquals("x", parse("-Y", "-x", "h").forwardX11);
    }

    @Test
    void usageErrorsExit255() {
        assertEquals(255, SshCommand.run(List.of("-Z")));
        assertEquals(255, SshCommand.run(List.of()));
        assertEquals(0, SshCommand.run(List.of("--help")));
    }
}
