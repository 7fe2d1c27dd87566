package io.pqssh.lab.handshake;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One measured configuration: key exchange offered by the client and by the server, the server's host key and the
 * client's authentication. {@link #unsupported} is non-null when pqssh cannot run it (the lab lists it and says why,
 * it never substitutes another configuration).
 *
 * @param name        the label (published label where one exists)
 * @param suite       fig3, fig4, fig5, blog or user
 * @param clientKex   KEX names the client offers
 * @param serverKex   KEX names the server offers
 * @param hostKey     host key label (see {@link #SIG_TYPES})
 * @param auth        client auth label: a signature label, mk512/768/1024, password, {@code sig+kem} for
 *                    publickey-kem-and, or comma-separated steps ({@code ed25519,md65}) for a multi-step login
 * @param unsupported why it cannot run, or null
 */
public record HandshakeConfig(String name, String suite, List<String> clientKex, List<String> serverKex,
        String hostKey, String auth, String unsupported) {

    static final List<String> DEFAULT_KEX = List.of("mlkem768x25519-sha256", "sntrup761x25519-sha512",
            "curve25519-sha256");
    static final List<String> CLASSICAL_KEX = List.of("curve25519-sha256");
    static final List<String> PQ_KEX = List.of("mlkem768x25519-sha256", "curve25519-sha256");

    /** Signature key labels and their SSH key type names. */
    public static final Map<String, String> SIG_TYPES = new LinkedHashMap<>();
    /** KEM auth labels and their algorithm names. */
    public static final Map<String, String> KEM_TYPES = new LinkedHashMap<>();

    static {
        SIG_TYPES.put("ed25519", "ssh-ed25519");
        SIG_TYPES.put("md44", "ssh-mldsa-44");
        SIG_TYPES.put("md65", "ssh-mldsa-65");
        SIG_TYPES.put("md87", "ssh-mldsa-87");
        SIG_TYPES.put("falcon512", "ssh-falcon512");
        SIG_TYPES.put("falcon1024", "ssh-falcon1024");
        SIG_TYPES.put("sd128f", "ssh-slhdsapuresha2128f");
        SIG_TYPES.put("sd192f", "ssh-slhdsapuresha2192f");
        SIG_TYPES.put("sd256f", "ssh-slhdsapuresha2256f");
        SIG_TYPES.put("mldsa44-ed25519", "ssh-mldsa44-ed25519@openssh.com");
        // the KEMUAuth artifact's AND composites (pqssh's own wire layout, docs/lab-handshake.md)
        SIG_TYPES.put("ed25519-md65", "ssh-ed25519-mldsa-65");
        SIG_TYPES.put("ed25519-sd192f", "ssh-ed25519-slhdsapuresha2192f");
        KEM_TYPES.put("mk512", "MLKEM512");
        KEM_TYPES.put("mk768", "MLKEM768");
        KEM_TYPES.put("mk1024", "MLKEM1024");
    }

    public HandshakeConfig {
        clientKex = List.copyOf(clientKex);
        serverKex = List.copyOf(serverKex);
    }

    public boolean supported() {
        return unsupported == null;
    }

    /** What the server process must offer for this configuration: host key, KEX list, AuthenticationMethods. */
    public String serverProfile() {
        return hostKey + "|" + String.join(",", serverKex) + "|" + serverAuthenticationMethods();
    }

    /**
     * The server's {@code AuthenticationMethods}: the method itself for the hybrid and multi-step configurations
     * (as the artifact's sshd was set up), {@code any} otherwise.
     */
    public String serverAuthenticationMethods() {
        String m = method();
        return m.contains(",") || m.equals(HYBRID_AND) || m.equals(KEM_AND) ? m : "any";
    }

    static final String HYBRID_AND = "publickey-hybrid-and";
    static final String KEM_AND = "publickey-kem-and";

    /** The authentication method name on the wire; comma-separated for a multi-step login. */
    public String method() {
        List<String> steps = new ArrayList<>();
        for (String step : auth.split(",")) {
            steps.add(stepMethod(step));
        }
        return String.join(",", steps);
    }

    static String stepMethod(String step) {
        if (step.equals("password")) {
            return "password";
        }
        if (step.contains("+")) {
            return KEM_AND;
        }
        if (KEM_TYPES.containsKey(step)) {
            return "publickey-kem";
        }
        return isAndComposite(step) ? HYBRID_AND : "publickey";
    }

    /** Whether a signature label names one of the AND composites (used with publickey-hybrid-and). */
    static boolean isAndComposite(String label) {
        String type = SIG_TYPES.get(label);
        return type != null && io.pqssh.core.sig.SignatureKeyType.forName(type)
                .map(io.pqssh.core.sig.SignatureKeyType::andComposite).orElse(false);
    }

    /** Whether {@code auth} is a known auth label (see the record's parameter list). */
    static boolean validAuth(String auth) {
        for (String step : auth.split(",", -1)) {
            String[] p = step.split("\\+", -1);
            boolean ok = p.length == 1 ? SIG_TYPES.containsKey(step) || KEM_TYPES.containsKey(step)
                    || step.equals("password")
                    : p.length == 2 && SIG_TYPES.containsKey(p[0]) && !isAndComposite(p[0])
                            && KEM_TYPES.containsKey(p[1]);
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static HandshakeConfig of(String name, String suite, String hostKey, String auth) {
        return new HandshakeConfig(name, suite, DEFAULT_KEX, DEFAULT_KEX, hostKey, auth, null);
    }

    /** Every named configuration, in suite order. */
    public static List<HandshakeConfig> catalog() {
        List<HandshakeConfig> c = new ArrayList<>();
        // Figure 3: client-auth sweep, Ed25519 host key
        for (String a : List.of("ed25519", "md44", "md65", "md87", "falcon512", "falcon1024", "sd128f", "sd192f",
                "sd256f", "mk512", "mk768", "mk1024", "password")) {
            c.add(of(a, "fig3", "ed25519", a));
        }
        // Figure 4: migrations. h- = hybrid (AND composite keys under publickey-hybrid-and, or Ed25519 signature +
        // ML-KEM-768 under publickey-kem-and), ms- = multi-step AuthenticationMethods; host keys are the AND
        // composites (the artifact's SERVER_HOSTKEY_MODE=and)
        c.add(of("h-md65", "fig4", "ed25519-md65", "ed25519-md65"));
        c.add(of("h-sd192f", "fig4", "ed25519-sd192f", "ed25519-sd192f"));
        c.add(of("h-mk768-md65", "fig4", "ed25519-md65", "ed25519+mk768"));
        c.add(of("h-mk768-sd192f", "fig4", "ed25519-sd192f", "ed25519+mk768"));
        c.add(of("ms-md65", "fig4", "ed25519-md65", "ed25519,md65"));
        c.add(of("ms-mk768", "fig4", "ed25519-md65", "ed25519,mk768"));
        c.add(of("mk768-md65", "fig4", "md65", "mk768"));
        // Figure 5: client auth + host key
        c.add(of("ed25519+ed25519", "fig5", "ed25519", "ed25519"));
        c.add(of("md65+md65", "fig5", "md65", "md65"));
        c.add(of("sd192f+sd192f", "fig5", "sd192f", "sd192f"));
        c.add(of("mk768+md65", "fig5", "md65", "mk768"));
        c.add(of("mk768+sd192f", "fig5", "sd192f", "mk768"));
        // the blog: KEX support × key migrations to mldsa44-ed25519
        String[][] kex = {{"classical", "c", "c"}, {"client-pq", "p", "c"}, {"server-pq", "c", "p"}, {"both-pq", "p", "p"}};
        String[][] keys = {{"ed25519-keys", "ed25519", "ed25519"}, {"pq-user", "ed25519", "mldsa44-ed25519"},
                {"pq-host", "mldsa44-ed25519", "ed25519"}, {"pq-both", "mldsa44-ed25519", "mldsa44-ed25519"}};
        for (String[] k : kex) {
            for (String[] key : keys) {
                c.add(new HandshakeConfig("blog-" + k[0] + "/" + key[0], "blog",
                        k[1].equals("p") ? PQ_KEX : CLASSICAL_KEX, k[2].equals("p") ? PQ_KEX : CLASSICAL_KEX,
                        key[1], key[2], null));
            }
        }
        return c;
    }

    /** The configurations of a suite (fig3, fig4, fig5, blog, all). */
    public static List<HandshakeConfig> suite(String suite) {
        String s = suite.toLowerCase(Locale.ROOT);
        if (s.equals("all")) {
            return catalog();
        }
        List<HandshakeConfig> r = catalog().stream().filter(c -> c.suite().equals(s)).toList();
        if (r.isEmpty()) {
            throw new IllegalArgumentException("unknown suite '" + suite + "' (fig3, fig4, fig5, blog, all)");
        }
        return r;
    }

    /** A configuration by name; suite-qualified names like fig5/ed25519+ed25519 are accepted too. */
    public static HandshakeConfig byName(String name) {
        String n = name.contains(":") ? name.substring(name.indexOf(':') + 1) : name;
        for (HandshakeConfig c : catalog()) {
            if (c.name().equals(n)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown configuration '" + name + "'; known: "
                + String.join(", ", catalog().stream().map(HandshakeConfig::name).toList()));
    }

    /** A user-defined configuration from --kex, --hostkey and --auth. */
    public static HandshakeConfig user(String kexSpec, String hostKey, String auth) {
        List<String> kex = kexSpec == null || kexSpec.isBlank() ? DEFAULT_KEX : List.of(kexSpec.split(","));
        String hk = hostKey == null ? "ed25519" : hostKey;
        String au = auth == null ? "ed25519" : auth;
        if (!SIG_TYPES.containsKey(hk)) {
            throw new IllegalArgumentException("unknown --hostkey '" + hk + "'; known: " + SIG_TYPES.keySet());
        }
        if (!validAuth(au)) {
            throw new IllegalArgumentException("unknown --auth '" + au + "'; known: " + SIG_TYPES.keySet() + ", "
                    + KEM_TYPES.keySet() + ", password, SIG+KEM (publickey-kem-and), STEP,STEP (multi-step)");
        }
        String name = "kex=" + String.join("+", kex) + ",host=" + hk + ",auth=" + au;
        return new HandshakeConfig(name, "user", kex, kex, hk, au, null);
    }
}
