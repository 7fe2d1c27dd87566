package io.pqssh.client.keys;

import java.io.Console;
import java.io.PrintStream;
import java.util.Arrays;

/**
 * Where {@code pqssh keygen} asks for passphrases: the terminal (without echo), as ssh-keygen does. No terminal
 * means no prompt: the caller must pass {@code -N}/{@code -P}.
 */
public interface PassphrasePrompt {
    /** Reads one passphrase without echo; {@code null} when the input ended. */
    char[] read(String prompt);

    /** Prints a message to the user (to the terminal, so it never mixes with a command's output). */
    void tell(String message);

    /** The process's terminal, or an error naming the option to use instead. */
    static PassphrasePrompt terminal(String instead) {
        Console c = System.console();
        if (c == null || !c.isTerminal()) {
            throw new IllegalArgumentException("no terminal to ask for a passphrase: give it with " + instead);
        }
        return new PassphrasePrompt() {
            @Override
            public char[] read(String prompt) {
                return c.readPassword("%s", prompt);
            }

            @Override
            public void tell(String message) {
                PrintStream out = System.err;
                out.println(message);
            }
        };
    }

    /**
     * Asks twice for a new passphrase (empty allowed) until both agree, at most three times, as ssh-keygen's
     * {@code private_key_passphrase}; the caller wipes the result.
     */
    default char[] readNew(String prompt, String again) {
        for (int attempt = 0; attempt < 3; attempt++) {
            char[] first = read(prompt);
            char[] second = first == null ? null : read(again);
            if (first == null || second == null) {
                wipe(first);
                throw new IllegalArgumentException("no passphrase entered (end of input)");
            }
            boolean same = constantTimeEquals(first, second);
            wipe(second);
            if (same) {
                return first;
            }
            wipe(first);
            tell("Passphrases do not match.  Try again.");
        }
        throw new IllegalArgumentException("Passphrases do not match (three attempts)");
    }

    /** Compares without an early exit, so timing says nothing about where two passphrases differ. */
    static boolean constantTimeEquals(char[] a, char[] b) {
        int diff = a.length ^ b.length;
        for (int i = 0; i < Math.max(a.length, b.length); i++) {
            diff |= (i < a.length ? a[i] : 0) ^ (i < b.length ? b[i] : 0);
        }
        return diff == 0;
    }

    static void wipe(char[] c) {
        if (c != null) {
            Arrays.fill(c, '\0');
        }
    }
}
