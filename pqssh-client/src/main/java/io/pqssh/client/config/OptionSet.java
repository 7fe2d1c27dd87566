package io.pqssh.client.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Values gathered while reading the command line and the config files, with ssh's rule: for most keywords the first
 * value obtained wins; {@code IdentityFile}, forwards, {@code SendEnv}... accumulate.
 */
final class OptionSet {
    private final Map<String, List<OptionValue>> values = new LinkedHashMap<>();

    /** Records a validated keyword's value. */
    void offer(Keyword k, OptionValue v) {
        if (shadowedProxy(k.lowerName())) {
            return;
        }
        List<OptionValue> list = values.computeIfAbsent(k.lowerName(), x -> new ArrayList<>());
        if (k.accumulates() || list.isEmpty()) {
            list.add(v);
        }
    }

    /**
     * ProxyJump and ProxyCommand exclude each other, the first obtained wins (ssh_config(5)): any ProxyCommand (also
     * {@code none}) shadows a later ProxyJump, a ProxyJump other than {@code none} a later ProxyCommand, as
     * OpenSSH 9.2's readconf.c does.
     */
    private boolean shadowedProxy(String keyword) {
        if (keyword.equals("proxyjump")) {
            return first("ProxyCommand") != null;
        }
        if (keyword.equals("proxycommand")) {
            OptionValue jump = first("ProxyJump");
            return jump != null && !jump.first().equalsIgnoreCase("none");
        }
        return false;
    }

    /** Overrides whatever was set (the command line's {@code -p}, as in ssh). */
    void force(String keyword, OptionValue v) {
        List<OptionValue> list = new ArrayList<>();
        list.add(v);
        values.put(keyword.toLowerCase(Locale.ROOT), list);
    }

    /** Sets when unset. */
    void setIfAbsent(String keyword, OptionValue v) {
        values.computeIfAbsent(keyword.toLowerCase(Locale.ROOT), x -> new ArrayList<>(List.of(v)));
    }

    OptionValue first(String keyword) {
        List<OptionValue> l = values.get(keyword.toLowerCase(Locale.ROOT));
        return l == null || l.isEmpty() ? null : l.get(0);
    }

    List<OptionValue> all(String keyword) {
        return List.copyOf(values.getOrDefault(keyword.toLowerCase(Locale.ROOT), List.of()));
    }

    Map<String, List<OptionValue>> snapshot() {
        Map<String, List<OptionValue>> out = new LinkedHashMap<>();
        values.forEach((k, v) -> out.put(k, List.copyOf(v)));
        return out;
    }
}
