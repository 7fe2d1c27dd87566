package io.pqssh.server;

import java.util.List;
import java.util.function.BiConsumer;

import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.config.keys.OpenSshCertificate;
import org.apache.sshd.common.kex.extension.DefaultServerKexExtensionHandler;
import org.apache.sshd.common.kex.extension.KexExtensionHandler.KexPhase;
import org.apache.sshd.common.kex.extension.parser.ServerSignatureAlgorithms;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.server.auth.UserAuth;
import org.apache.sshd.server.auth.UserAuthFactory;
import org.apache.sshd.server.auth.pubkey.UserAuthPublicKey;
import org.apache.sshd.server.session.ServerSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * sshd's {@code PubkeyAcceptedAlgorithms} for the publickey method: a request whose algorithm is not in the list fails
 * like a wrong key (sshd: "signature algorithm X not in PubkeyAcceptedAlgorithms"), without MINA looking at the key. MINA would
 * otherwise verify user keys and CA signatures with the session's list, which is the host key list: HostKeyAlgorithms
 * would then narrow user keys too. The same list goes into {@code server-sig-algs}, so that a client picks an RSA
 * signature the server accepts.
 */
final class PublickeyAlgorithms implements UserAuthFactory {
    private static final Logger LOG = LoggerFactory.getLogger("io.pqssh.sshd");

    private final List<String> accepted;
    private final List<NamedFactory<Signature>> verifiers;
    private final boolean authenticatorChecksCertificateOptions;

    /**
     * {@code authenticatorChecksCertificateOptions}: the authenticator is {@link CertificateOptionsEnforcing}, so
     * MINA's refusal of every certificate with {@code force-command} is left out.
     */
    PublickeyAlgorithms(List<String> accepted, boolean authenticatorChecksCertificateOptions) {
        this.accepted = List.copyOf(accepted);
        this.verifiers = ServerAlgorithms.signatures(this.accepted);
        this.authenticatorChecksCertificateOptions = authenticatorChecksCertificateOptions;
    }

    @Override
    public String getName() {
        return UserAuthPublicKey.NAME;
    }

    @Override
    public UserAuth createUserAuth(ServerSession session) {
        return new UserAuthPublicKey(verifiers) {
            @Override
            public Boolean doAuth(Buffer buffer, boolean init) throws Exception {
                int start = buffer.rpos();
                buffer.getBoolean();
                String alg = buffer.getString();
                buffer.rpos(start);
                if (!accepted.contains(alg)) {
                    // sshd logs the refusal, not who asked: the Failed line follows
                    LOG.info("userauth_pubkey: signature algorithm {} not in PubkeyAcceptedAlgorithms [preauth]", alg);
                    return Boolean.FALSE;
                }
                return super.doAuth(buffer, init);
            }

            @Override
            protected void verifyCertificateSignature(ServerSession s, OpenSshCertificate cert) throws Exception {
                // MINA checks the CA's signature with the session's (host key) list; pqssh's CertificateAuthorizer
                // checks it again against CASignatureAlgorithms, so any algorithm pqssh can verify will do here
                String sigAlg = cert.getSignatureAlgorithm();
                Signature verifier = ServerAlgorithms.allSignatures().stream()
                        .filter(f -> f.getName().equals(sigAlg)).findFirst()
                        .orElseThrow(() -> new java.security.cert.CertificateException(
                                "no verifier for CA signature algorithm " + sigAlg)).create();
                verifier.initVerifier(s, cert.getCaPubKey());
                verifier.update(s, cert.getMessage());
                if (!verifier.verify(s, cert.getSignature())) {
                    throw new java.security.cert.CertificateException("CA signature verification failed");
                }
            }

            @Override
            protected void verifyCriticalOptions(ServerSession s, OpenSshCertificate cert)
                    throws java.security.cert.CertificateException {
                if (!authenticatorChecksCertificateOptions) {
                    super.verifyCriticalOptions(s, cert);
                }
                // else: CertificateAuthorizer refuses unknown critical options and enforces the known ones
            }
        };
    }

    /** {@code server-sig-algs} from the accepted list (MINA's default sends the host key list). */
    KexExtensionHandlerImpl serverSigAlgs() {
        return new KexExtensionHandlerImpl(accepted.stream().filter(n -> !n.contains("-cert-")).toList());
    }

    static final class KexExtensionHandlerImpl extends DefaultServerKexExtensionHandler {
        private final List<String> algorithms;

        KexExtensionHandlerImpl(List<String> algorithms) {
            this.algorithms = algorithms;
        }

        @Override
        public void collectExtensions(Session session, KexPhase phase, BiConsumer<String, Object> marshaller) {
            if (phase == KexPhase.NEWKEYS && !algorithms.isEmpty()) {
                marshaller.accept(ServerSignatureAlgorithms.NAME, algorithms);
            }
        }
    }
}
