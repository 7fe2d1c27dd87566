package io.pqssh.cli;

/** One-line descriptions of failures for the terminal. */
final class Errors {
    private Errors() {
    }

    static String describe(Throwable t) {
        StringBuilder b = new StringBuilder();
        Throwable cur = t;
        String last = null;
        for (int depth = 0; cur != null && depth < 4; depth++, cur = cur.getCause()) {
            String m = cur.getMessage();
            if (m != null && !m.equals(last) && (last == null || !last.contains(m))) {
                if (b.length() > 0) {
                    b.append(": ");
                }
                b.append(m);
                last = m;
            }
        }
        return b.length() == 0 ? t.getClass().getSimpleName() : b.toString();
    }
}
