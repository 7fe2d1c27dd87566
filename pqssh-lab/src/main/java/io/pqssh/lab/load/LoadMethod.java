package io.pqssh.lab.load;

import java.util.Locale;

/** The client authentication methods of the load lab (Appendix C of the KEMUAuth paper, plus Ed25519). */
public enum LoadMethod {
    KEM_MLKEM768("publickey-kem-mlkem768", "publickey-kem"),
    MLDSA65("publickey-mldsa65", "publickey"),
    ED25519("publickey-ed25519", "publickey");

    private final String label;
    private final String wireMethod;

    LoadMethod(String label, String wireMethod) {
        this.label = label;
        this.wireMethod = wireMethod;
    }

    public String label() {
        return label;
    }

    public String wireMethod() {
        return wireMethod;
    }

    public static LoadMethod parse(String s) {
        String n = s.toLowerCase(Locale.ROOT).replace("-", "").replace("_", "");
        return switch (n) {
            case "kem", "mlkem768", "publickeykem", "publickeykemmlkem768", "kemuauth" -> KEM_MLKEM768;
            case "mldsa65", "publickeymldsa65" -> MLDSA65;
            case "ed25519", "publickeyed25519" -> ED25519;
            default -> throw new IllegalArgumentException("unknown method '" + s
                    + "' (known: kem (ML-KEM-768 publickey-kem), mldsa65, ed25519)");
        };
    }
}
