package io.pqssh.core.keys.authorized;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The options field of an {@code authorized_keys} line, with OpenSSH's syntax and meaning (sshd(8) "AUTHORIZED_KEYS
 * FILE FORMAT"): comma-separated, values in double quotes ({@code \"} inside), names case-insensitive. Flags are
 * applied in order, so {@code restrict,pty} allows a pty and nothing else. Unknown or malformed options make the
 * whole line invalid ({@link OptionsException}), as in sshd.
 */
public final class AuthorizedKeyOptions {
    /** No options: everything permitted. */
    public static final AuthorizedKeyOptions NONE = new AuthorizedKeyOptions();

    private boolean restrict;
    private boolean certAuthority;
    private boolean noTouchRequired;
    private boolean verifyRequired;
    private boolean portForwarding = true;
    private boolean agentForwarding = true;
    private boolean x11Forwarding = true;
    private boolean pty = true;
    private boolean userRc = true;
    private String command;
    private String from;
    private String principals;
    private String tunnel;
    private Instant expiryTime;
    private final List<String> environment = new ArrayList<>();
    private final List<String> permitOpen = new ArrayList<>();
    private final List<String> permitListen = new ArrayList<>();
    private final List<String> names = new ArrayList<>();

    private AuthorizedKeyOptions() {
    }

    /** An options field is invalid; the message is sshd-like ({@code unknown key option "foo"}). */
    public static final class OptionsException extends Exception {
        private static final long serialVersionUID = 1L;

        public OptionsException(String message) {
            super(message);
        }
    }

    /** One raw option as written: lower-case name and unquoted value (null for flags). */
    record RawOption(String name, String value) {
    }

    /** Parses an options field; expiry times without {@code Z} are in {@code zone}. */
    public static AuthorizedKeyOptions parse(String field, ZoneId zone) throws OptionsException {
        List<RawOption> raw = new ArrayList<>();
        int end = split(field, 0, raw);
        if (end != field.length()) {
            throw new OptionsException("unexpected whitespace in options");
        }
        return interpret(raw, zone);
    }

    /**
     * sshd's {@code sshauthopt_parse} on a whole line, as for an AuthorizedPrincipalsFile line {@code options
     * principal}: the options up to the first blank outside quotes; what follows is not read here.
     */
    public static AuthorizedKeyOptions parseLeading(String line, ZoneId zone) throws OptionsException {
        List<RawOption> raw = new ArrayList<>();
        split(line, 0, raw);
        return interpret(raw, zone);
    }

    /**
     * Splits the options at the start of {@code line} (from {@code start}) up to the first whitespace outside
     * quotes, appending to {@code out}; returns the index where the options end.
     */
    static int split(String line, int start, List<RawOption> out) throws OptionsException {
        int i = start;
        int n = line.length();
        while (i < n && !isSpace(line.charAt(i))) {
            int nameStart = i;
            while (i < n && line.charAt(i) != '=' && line.charAt(i) != ',' && !isSpace(line.charAt(i))) {
                if (line.charAt(i) == '"') {
                    throw new OptionsException("unexpected quote in option name");
                }
                i++;
            }
            String name = line.substring(nameStart, i).toLowerCase(Locale.ROOT);
            if (name.isEmpty()) {
                throw new OptionsException("empty option");
            }
            String value = null;
            if (i < n && line.charAt(i) == '=') {
                i++;
                if (i >= n || line.charAt(i) != '"') {
                    throw new OptionsException("missing start quote in value of option \"" + name + "\"");
                }
                i++;
                StringBuilder v = new StringBuilder();
                while (i < n && line.charAt(i) != '"') {
                    if (line.charAt(i) == '\\' && i + 1 < n && line.charAt(i + 1) == '"') {
                        i++;
                    }
                    v.append(line.charAt(i++));
                }
                if (i >= n) {
                    throw new OptionsException("missing end quote in value of option \"" + name + "\"");
                }
                i++; // closing quote
                value = v.toString();
            }
            out.add(new RawOption(name, value));
            if (i >= n || isSpace(line.charAt(i))) {
                break;
            }
            if (line.charAt(i) != ',') {
                throw new OptionsException("unexpected character after option \"" + name + "\"");
            }
            i++;
        }
        return i;
    }

    static AuthorizedKeyOptions interpret(List<RawOption> raw, ZoneId zone) throws OptionsException {
        AuthorizedKeyOptions o = new AuthorizedKeyOptions();
        for (RawOption r : raw) {
            String name = r.name();
            String v = r.value();
            o.names.add(name);
            switch (name) {
                case "restrict" -> {
                    flag(r);
                    o.restrict = true;
                    o.portForwarding = false;
                    o.agentForwarding = false;
                    o.x11Forwarding = false;
                    o.pty = false;
                    o.userRc = false;
                }
                case "cert-authority" -> o.certAuthority = flag(r);
                case "no-touch-required" -> o.noTouchRequired = flag(r);
                case "verify-required" -> o.verifyRequired = flag(r);
                case "port-forwarding" -> o.portForwarding = flag(r);
                case "no-port-forwarding" -> o.portForwarding = !flag(r);
                case "agent-forwarding" -> o.agentForwarding = flag(r);
                case "no-agent-forwarding" -> o.agentForwarding = !flag(r);
                case "x11-forwarding" -> o.x11Forwarding = flag(r);
                case "no-x11-forwarding" -> o.x11Forwarding = !flag(r);
                case "pty" -> o.pty = flag(r);
                case "no-pty" -> o.pty = !flag(r);
                case "user-rc" -> o.userRc = flag(r);
                case "no-user-rc" -> o.userRc = !flag(r);
                case "command" -> {
                    if (o.command != null) {
                        throw new OptionsException("multiple \"command\" clauses");
                    }
                    o.command = value(r);
                }
                case "principals" -> {
                    if (o.principals != null) {
                        throw new OptionsException("multiple \"principals\" clauses");
                    }
                    o.principals = value(r);
                }
                case "from" -> {
                    if (o.from != null) {
                        throw new OptionsException("multiple \"from\" clauses");
                    }
                    String f = value(r);
                    String problem = OpenSshPatterns.validateList(f);
                    if (problem != null) {
                        throw new OptionsException("invalid from=\"" + f + "\": " + problem);
                    }
                    o.from = f;
                }
                case "expiry-time" -> {
                    Instant t = parseExpiry(value(r), zone);
                    if (o.expiryTime == null || t.isBefore(o.expiryTime)) {
                        o.expiryTime = t; // as sshd: the earliest of several wins
                    }
                }
                case "environment" -> {
                    String e = value(r);
                    int eq = e.indexOf('=');
                    if (eq <= 0 || !e.substring(0, eq).chars().allMatch(c -> c == '_' || Character.isLetterOrDigit(c)
                            && c < 128)) {
                        throw new OptionsException("invalid environment string \"" + e + "\"");
                    }
                    o.environment.add(e);
                }
                case "permitopen" -> o.permitOpen.add(hostPort(value(r), true, name));
                case "permitlisten" -> o.permitListen.add(hostPort(value(r), false, name));
                case "tunnel" -> {
                    String t = value(r);
                    if (!t.equalsIgnoreCase("any") && !t.matches("[0-9]{1,9}")) {
                        throw new OptionsException("invalid tunnel device \"" + t + "\"");
                    }
                    if (o.tunnel != null) {
                        throw new OptionsException("multiple \"tunnel\" clauses");
                    }
                    o.tunnel = t;
                }
                default -> throw new OptionsException("unknown key option \"" + name + "\"");
            }
        }
        return o;
    }

    private static boolean flag(RawOption r) throws OptionsException {
        if (r.value() != null) {
            throw new OptionsException("option \"" + r.name() + "\" takes no value");
        }
        return true;
    }

    private static String value(RawOption r) throws OptionsException {
        if (r.value() == null) {
            throw new OptionsException("option \"" + r.name() + "\" requires a value");
        }
        return r.value();
    }

    /** {@code YYYYMMDD[HHMM[SS]]} with an optional {@code Z}/{@code z} for UTC, else in {@code zone}. */
    static Instant parseExpiry(String s, ZoneId zone) throws OptionsException {
        String t = s;
        ZoneId z = zone;
        if (t.endsWith("Z") || t.endsWith("z")) {
            t = t.substring(0, t.length() - 1);
            z = ZoneOffset.UTC;
        }
        if (!t.chars().allMatch(c -> c >= '0' && c <= '9') || (t.length() != 8 && t.length() != 12
                && t.length() != 14)) {
            throw new OptionsException("invalid expiry-time \"" + s + "\" (expected YYYYMMDD[HHMM[SS]][Z])");
        }
        try {
            int year = Integer.parseInt(t.substring(0, 4));
            int month = Integer.parseInt(t.substring(4, 6));
            int day = Integer.parseInt(t.substring(6, 8));
            int hour = t.length() >= 12 ? Integer.parseInt(t.substring(8, 10)) : 0;
            int minute = t.length() >= 12 ? Integer.parseInt(t.substring(10, 12)) : 0;
            int second = t.length() == 14 ? Integer.parseInt(t.substring(12, 14)) : 0;
            return LocalDateTime.of(year, month, day, hour, minute, second).atZone(z).toInstant();
        } catch (DateTimeException e) {
            throw new OptionsException("invalid expiry-time \"" + s + "\": " + e.getMessage());
        }
    }

    /** {@code host:port} (permitopen: port or {@code *}; host may be {@code [v6]}); permitlisten allows a port alone. */
    private static String hostPort(String v, boolean hostRequired, String name) throws OptionsException {
        String host;
        String port;
        if (v.startsWith("[")) {
            int close = v.indexOf(']');
            if (close < 0 || close + 1 >= v.length() || v.charAt(close + 1) != ':') {
                throw new OptionsException("invalid " + name + " \"" + v + "\"");
            }
            host = v.substring(1, close);
            port = v.substring(close + 2);
        } else {
            int colon = v.lastIndexOf(':');
            if (colon < 0) {
                if (hostRequired) {
                    throw new OptionsException("missing port in " + name + " \"" + v + "\"");
                }
                host = "";
                port = v;
            } else {
                host = v.substring(0, colon);
                port = v.substring(colon + 1);
                if (host.indexOf(':') >= 0) {
                    throw new OptionsException("invalid " + name + " \"" + v + "\" (use [addr]:port for IPv6)");
                }
            }
        }
        if (hostRequired && host.isEmpty()) {
            throw new OptionsException("missing host in " + name + " \"" + v + "\"");
        }
        if (!port.equals("*")) {
            if (!port.matches("[0-9]{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
                throw new OptionsException("invalid port in " + name + " \"" + v + "\"");
            }
        }
        return v;
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t';
    }

    // ---------------------------------------------------------------- accessors

    /** Option names in the order written (lower case). */
    public List<String> names() {
        return Collections.unmodifiableList(names);
    }

    public boolean isEmpty() {
        return names.isEmpty();
    }

    public boolean restrict() {
        return restrict;
    }

    public boolean certAuthority() {
        return certAuthority;
    }

    public boolean noTouchRequired() {
        return noTouchRequired;
    }

    public boolean verifyRequired() {
        return verifyRequired;
    }

    public boolean portForwardingAllowed() {
        return portForwarding;
    }

    public boolean agentForwardingAllowed() {
        return agentForwarding;
    }

    public boolean x11ForwardingAllowed() {
        return x11Forwarding;
    }

    public boolean ptyAllowed() {
        return pty;
    }

    public boolean userRcAllowed() {
        return userRc;
    }

    /** The forced command, unquoted. */
    public Optional<String> command() {
        return Optional.ofNullable(command);
    }

    /** The raw {@code from=} pattern list. */
    public Optional<String> from() {
        return Optional.ofNullable(from);
    }

    /** The raw {@code principals=} list (comma-separated). */
    public Optional<String> principals() {
        return Optional.ofNullable(principals);
    }

    public List<String> principalList() {
        return principals == null ? List.of() : Arrays.asList(principals.split(","));
    }

    public Optional<String> tunnel() {
        return Optional.ofNullable(tunnel);
    }

    /** The key is not valid after this instant (the earliest {@code expiry-time}). */
    public Optional<Instant> expiryTime() {
        return Optional.ofNullable(expiryTime);
    }

    /** {@code NAME=value} strings, in order. */
    public List<String> environment() {
        return Collections.unmodifiableList(environment);
    }

    /** {@code host:port} strings, in order. */
    public List<String> permitOpen() {
        return Collections.unmodifiableList(permitOpen);
    }

    public List<String> permitListen() {
        return Collections.unmodifiableList(permitListen);
    }

    /**
     * Why this key may not be used by a client at {@code clientAddress} (and, when resolved, {@code clientHostname})
     * at time {@code now}, or empty if it may: {@code expiry-time} and {@code from=} as sshd enforces them.
     */
    public Optional<String> denialReason(String clientAddress, String clientHostname, Instant now) {
        if (expiryTime != null && expiryTime.getEpochSecond() < now.getEpochSecond()) {
            return Optional.of("key expired at " + expiryTime);
        }
        if (from != null) {
            if (clientAddress == null) {
                return Optional.of("from=\"" + from + "\" given but the client address is unknown");
            }
            String host = clientHostname != null ? clientHostname : clientAddress;
            int m = OpenSshPatterns.matchHostAndIp(host, clientAddress, from);
            if (m < 0) {
                return Optional.of("invalid criteria in from=\"" + from + "\"");
            }
            if (m == 0) {
                return Optional.of("correct key but not from a permitted host (" + clientAddress
                        + (clientHostname != null ? " / " + clientHostname : "") + ", from=\"" + from + "\")");
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "AuthorizedKeyOptions" + names;
    }
}
