package io.pqssh.server.session;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * sshd's {@code AuthenticationMethods}: space-separated alternatives, each a comma-separated list of steps
 * {@code method} or {@code method:submethod}, or {@code any}. A step with a sub-method is done only by a success of
 * that method that ran that sub-method (for {@code publickey-kem}/{@code publickey-kem-and}: the KEM algorithm).
 * Immutable; {@link #start} gives the per-connection progress. Matching follows sshd's {@code list_starts_with}.
 */
public final class AuthenticationMethods {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(AuthenticationMethods.class);

    /** One step: a method name and an optional sub-method. */
    public record Step(String method, String submethod) {
        @Override
        public String toString() {
            return submethod == null ? method : method + ":" + submethod;
        }
    }

    private static final AuthenticationMethods ANY = new AuthenticationMethods(List.of());

    private final List<List<Step>> lists;

    private AuthenticationMethods(List<List<Step>> lists) {
        this.lists = lists;
    }

    public static AuthenticationMethods any() {
        return ANY;
    }

    /**
     * Parses the keyword's value; blank or {@code any} means any single method. Only the syntax is checked here,
     * {@link #check} checks the names against the server's methods.
     */
    public static AuthenticationMethods parse(String spec) {
        if (spec == null || spec.isBlank() || spec.strip().equals("any")) {
            return ANY;
        }
        List<List<Step>> lists = new ArrayList<>();
        for (String list : spec.strip().split("[ \t]+")) {
            List<Step> steps = new ArrayList<>();
            for (String step : list.split(",", -1)) {
                if (step.isEmpty()) {
                    throw new IllegalArgumentException("AuthenticationMethods: empty method in '" + list + "'");
                }
                int colon = step.indexOf(':');
                if (colon < 0) {
                    steps.add(new Step(step, null));
                } else if (colon == 0 || colon == step.length() - 1 || step.indexOf(':', colon + 1) >= 0) {
                    throw new IllegalArgumentException("AuthenticationMethods: '" + step
                            + "' is not method or method:submethod");
                } else {
                    steps.add(new Step(step.substring(0, colon), step.substring(colon + 1)));
                }
            }
            lists.add(List.copyOf(steps));
        }
        return new AuthenticationMethods(List.copyOf(lists));
    }

    public boolean isAny() {
        return lists.isEmpty();
    }

    public List<List<Step>> lists() {
        return lists;
    }

    /**
     * Checks every step against the enabled methods and rewrites sub-methods to their canonical form; {@code
     * submethods} returns the canonical sub-method for a (method, sub-method) pair, or throws
     * IllegalArgumentException naming what is wrong (a method that takes no sub-method, an unknown algorithm).
     * As sshd's {@code auth2_setup_methods_lists}, a list that names a method the server does not offer is skipped
     * (logged) and the others are kept; when none is left, as sshd's start-up check, IllegalArgumentException.
     */
    public AuthenticationMethods check(Collection<String> enabledMethods,
            java.util.function.BiFunction<String, String, String> submethods) {
        List<List<Step>> out = new ArrayList<>();
        String disabled = null;
        for (List<Step> list : lists) {
            Optional<Step> off = list.stream().filter(s -> !enabledMethods.contains(s.method())).findFirst();
            if (off.isPresent()) {
                disabled = disabled != null ? disabled : off.get().method();
                LOG.info("Authentication methods list \"{}\" contains disabled method, skipping",
                        String.join(",", list.stream().map(Step::toString).toList()));
                continue;
            }
            List<Step> steps = new ArrayList<>();
            for (Step s : list) {
                steps.add(s.submethod() == null ? s : new Step(s.method(), submethods.apply(s.method(), s.submethod())));
            }
            out.add(List.copyOf(steps));
        }
        if (out.isEmpty() && disabled != null) {
            throw new IllegalArgumentException("AuthenticationMethods cannot be satisfied by enabled authentication"
                    + " methods: method '" + disabled + "' is not enabled on this server (enabled: "
                    + String.join(",", enabledMethods) + ")");
        }
        return new AuthenticationMethods(List.copyOf(out));
    }

    /** Progress of one connection through the lists; {@code methodOrder} is the server's methods, in order. */
    public Progress start(List<String> methodOrder) {
        return new Progress(methodOrder);
    }

    /** Per-connection state; not thread-safe (the user-auth service serializes its calls). */
    public final class Progress {
        private final List<String> methodOrder;
        private final List<List<Step>> remaining = new ArrayList<>();

        private Progress(List<String> methodOrder) {
            this.methodOrder = List.copyOf(methodOrder);
            for (List<Step> l : lists) {
                remaining.add(new ArrayList<>(l));
            }
        }

        /** May {@code method} be tried now (sshd: some list starts with it, whatever its sub-method)? */
        public boolean allows(String method) {
            if (lists.isEmpty()) {
                return methodOrder.contains(method);
            }
            return remaining.stream().anyMatch(l -> !l.isEmpty() && l.get(0).method().equals(method));
        }

        /** May {@code method} run {@code submethod} now? */
        public boolean allows(String method, String submethod) {
            if (lists.isEmpty()) {
                return methodOrder.contains(method);
            }
            return remaining.stream().anyMatch(l -> !l.isEmpty() && matches(l.get(0), method, submethod));
        }

        /**
         * Records a success of {@code method} having run {@code submethod} (null if none): removes the matching
         * first step of every list; true when a list is complete (authentication done), false for partial success.
         */
        public boolean succeeded(String method, String submethod) {
            if (lists.isEmpty()) {
                return true;
            }
            boolean found = false;
            for (List<Step> l : remaining) {
                if (!l.isEmpty() && matches(l.get(0), method, submethod)) {
                    l.remove(0);
                    found = true;
                    if (l.isEmpty()) {
                        return true;
                    }
                }
            }
            if (!found) {
                throw new IllegalStateException("method " + method + " succeeded but no AuthenticationMethods list"
                        + " starts with it");
            }
            return false;
        }

        /** The method list for USERAUTH_FAILURE: the server's methods that some list allows next, in server order. */
        public String nextMethods() {
            Set<String> out = new LinkedHashSet<>();
            for (String m : methodOrder) {
                if (allows(m)) {
                    out.add(m);
                }
            }
            return String.join(",", out);
        }

        private boolean matches(Step step, String method, String submethod) {
            if (!step.method().equals(method)) {
                return false;
            }
            return step.submethod() == null || step.submethod().equals(submethod);
        }
    }
}
