package io.pqssh.client.transfer;

import java.util.List;

/**
 * One sftp command line split as sftp's getopt(3) does: single-letter flags (clustered, {@code -hi}) before the
 * first operand, {@code --} ends them, any letter not in the command's set is {@code cmd: Invalid flag -x}.
 */
record ShellArgs(String flags, List<String> operands) {
    /** An unknown flag, with sftp's message. */
    static final class BadFlag extends Exception {
        private static final long serialVersionUID = 1L;

        BadFlag(String message) {
            super(message, null, false, false);
        }
    }

    /** {@code words}: the command name, then its arguments; {@code allowed}: the flag letters it takes. */
    static ShellArgs parse(List<String> words, String allowed) throws BadFlag {
        StringBuilder flags = new StringBuilder();
        int i = 1;
        for (; i < words.size(); i++) {
            String w = words.get(i);
            if (w.equals("--")) {
                i++;
                break;
            }
            if (!w.startsWith("-") || w.length() == 1) {
                break;
            }
            for (char c : w.substring(1).toCharArray()) {
                if (allowed.indexOf(c) < 0) {
                    throw new BadFlag(words.get(0) + ": Invalid flag -" + c);
                }
                flags.append(c);
            }
        }
        return new ShellArgs(flags.toString(), List.copyOf(words.subList(i, words.size())));
    }

    boolean has(char flag) {
        return flags.indexOf(flag) >= 0;
    }
}
