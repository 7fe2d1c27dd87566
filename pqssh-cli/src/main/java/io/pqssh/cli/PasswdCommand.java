package io.pqssh.cli;

import java.io.BufferedReader;
import java.io.Console;
import java.io.InputStreamReader;
import java.util.concurrent.Callable;

import io.pqssh.server.PasswordFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code pqssh passwd USER}: prints a PasswordFile line for a password read from the terminal or stdin. */
@Command(name = "passwd", mixinStandardHelpOptions = true,
        description = "Print a PasswordFile line (PBKDF2-SHA256) for USER; the password is read from the terminal"
                + " or, without one, from the first line of standard input.")
public final class PasswdCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "USER")
    String user;

    @Override
    public Integer call() throws Exception {
        char[] pw;
        Console console = System.console();
        if (console != null) {
            pw = console.readPassword("Password for %s: ", user);
        } else {
            String line = new BufferedReader(new InputStreamReader(System.in)).readLine();
            if (line == null) {
                throw new IllegalArgumentException("no password on standard input");
            }
            pw = line.toCharArray();
        }
        System.out.println(PasswordFile.hashLine(user, pw));
        java.util.Arrays.fill(pw, '\0');
        return 0;
    }
}
