package io.pqssh.core.cert;

import io.pqssh.core.wire.MalformedMessageException;

/** The certificate's {@code uint32 type} field (PROTOCOL.certkeys): what the certified key may authenticate. */
public enum CertificateType {
    USER(1, "user"),
    HOST(2, "host");

    private final int code;
    private final String label;

    CertificateType(int code, String label) {
        this.code = code;
        this.label = label;
    }

    public int code() {
        return code;
    }

    /** {@code user} or {@code host}, as ssh-keygen -L prints it. */
    public String label() {
        return label;
    }

    static CertificateType of(long code) throws MalformedMessageException {
        for (CertificateType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        throw new MalformedMessageException("certificate type " + code + " is neither user (1) nor host (2)");
    }
}
