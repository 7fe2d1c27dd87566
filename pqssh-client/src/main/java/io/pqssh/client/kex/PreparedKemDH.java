package io.pqssh.client.kex;

import org.apache.sshd.common.digest.Digest;
import org.apache.sshd.common.kex.AbstractDH;
import org.apache.sshd.common.kex.CurveSizeIndicator;
import org.apache.sshd.common.kex.KeyEncapsulationMethod;
import org.apache.sshd.common.util.buffer.Buffer;

/**
 * MINA's hybrid (EC)DH for one exchange, with a KEM client whose key pair {@link PreparedKemShare} made ahead.
 * Everything but the KEM is MINA's own object: its curve, its encodings and its hash.
 */
final class PreparedKemDH extends AbstractDH implements CurveSizeIndicator {
    private final AbstractDH mina;
    private final KeyEncapsulationMethod kem;

    /** {@code mina} must be a hybrid exchange's DH (a KEM and a {@link CurveSizeIndicator}); see {@link #wraps}. */
    PreparedKemDH(AbstractDH mina, KeyEncapsulationMethod.Client prepared) {
        this.mina = mina;
        KeyEncapsulationMethod.Client initialised = new KeyEncapsulationMethod.Client() {
            @Override
            public void init() {
                // the key pair was made by PreparedKemShare
            }

            @Override
            public byte[] getPublicKey() {
                return prepared.getPublicKey();
            }

            @Override
            public byte[] extractSecret(byte[] encapsulated) {
                return prepared.extractSecret(encapsulated);
            }

            @Override
            public int getEncapsulationLength() {
                return prepared.getEncapsulationLength();
            }
        };
        this.kem = new KeyEncapsulationMethod() {
            @Override
            public Client getClient() {
                return initialised;
            }

            @Override
            public Server getServer() {
                throw new UnsupportedOperationException("client side only");
            }
        };
    }

    static boolean wraps(AbstractDH dh) {
        return dh.getKeyEncapsulation() != null && dh instanceof CurveSizeIndicator;
    }

    @Override
    public KeyEncapsulationMethod getKeyEncapsulation() {
        return kem;
    }

    @Override
    public void setF(byte[] f) {
        mina.setF(f);
    }

    @Override
    protected byte[] calculateE() throws Exception {
        return mina.getE();
    }

    @Override
    protected byte[] calculateK() throws Exception {
        return mina.getK();
    }

    @Override
    public Digest getHash() throws Exception {
        return mina.getHash();
    }

    @Override
    public void putE(Buffer buffer, byte[] e) {
        mina.putE(buffer, e);
    }

    @Override
    public void putF(Buffer buffer, byte[] f) {
        mina.putF(buffer, f);
    }

    @Override
    public int getByteLength() {
        return ((CurveSizeIndicator) mina).getByteLength();
    }

    @Override
    public String toString() {
        return "PreparedKemDH[" + mina + "]";
    }
}
