package io.pqssh.inventory.scan;

import java.io.IOException;
import java.security.PublicKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.sshd.client.ClientBuilder;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.client.session.ClientSession.ClientSessionEvent;
import org.apache.sshd.common.AttributeRepository;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.kex.BuiltinDHFactories;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;

import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.mina.internal.kex.InitialKexSignature;
import io.pqssh.mina.kex.PqKex;

/**
 * Collects host keys: for each host key algorithm a server offers, one key exchange with a MINA client restricted to
 * that algorithm; the server key verifier records the key and the session is closed right after the key exchange,
 * before any authentication. The key reported is K_S as the server sent it, so a host certificate
 * ({@code *-cert-v01@openssh.com} algorithms) is reported as the certificate, with its CA ({@link HostCertificate}).
 */
public final class HostKeyCollector implements AutoCloseable {
    private static final AttributeRepository.AttributeKey<Attempt> ATTEMPT = new AttributeRepository.AttributeKey<>();

    private final SshClient client;
    private final Duration timeout;
    private final List<NamedFactory<Signature>> allSignatures;

    /** One collection: the signature algorithm offered, the key the verifier saw, K_S as the server sent it. */
    private record Attempt(List<NamedFactory<Signature>> signatures, AtomicReference<PublicKey> key,
            AtomicReference<byte[]> sent) {
        static Attempt of(ClientSession session) {
            return session.getConnectionContext() == null ? null : session.getConnectionContext().getAttribute(ATTEMPT);
        }

        /** Keeps K_S while the session still holds it (MINA clears a session's attributes when it closes). */
        void keepSent(Session session) {
            InitialKexSignature.firstHostKey(session).ifPresent(sent::set);
        }
    }

    public HostKeyCollector(Duration timeout) {
        this.timeout = timeout;
        client = ClientBuilder.builder().build();
        List<String> kex = new ArrayList<>();
        for (String n : Algorithms.OPENSSH10_CLIENT_KEX) {
            kex.add(n);
        }
        for (String n : Algorithms.PQSSH_KEX) {
            if (!kex.contains(n)) {
                kex.add(n);
            }
        }
        // collecting keys needs a key exchange the server agrees to, however old: legacy servers offer only
        // SHA-1 groups (diffie-hellman-group14-sha1 + ssh-rsa, as RHEL/CentOS 7 era configs)
        for (BuiltinDHFactories f : BuiltinDHFactories.VALUES) {
            if (!kex.contains(f.getName())) {
                kex.add(f.getName());
            }
        }
        kex.removeIf(n -> {
            var f = BuiltinDHFactories.resolveFactory(n);
            return f == null || !f.isSupported();
        });
        // every exchange records K_S as sent: a host certificate reaches the verifier only when MINA's own checks
        // (principals naming the scanned address, validity) pass, otherwise as its plain key
        client.setKeyExchangeFactories(PqKex.factories(kex,
                f -> InitialKexSignature.recording(ClientBuilder.DH2KEX.apply(f), f.isGroupExchange())));
        // ML-DSA, the OpenSSH composite, SLH-DSA and Falcon host keys, as pqssh's own client does
        io.pqssh.mina.keys.MinaPqKeys.ensureInstalled();
        client.setSignatureFactories(io.pqssh.mina.keys.PqSignatureFactories.withPq(client.getSignatureFactories()));
        allSignatures = new ArrayList<>(client.getSignatureFactories());
        client.setServerKeyVerifier((session, addr, key) -> {
            Attempt a = session.getConnectionContext() == null ? null : session.getConnectionContext().getAttribute(ATTEMPT);
            if (a != null) {
                a.key().set(key);
            }
            // accepting lets the exchange finish quietly (a refusal makes MINA log a warning per probe); the
            // session is closed at WAIT_AUTH, before any authentication is attempted
            return a != null;
        });
        client.addSessionListener(new SessionListener() {
            @Override
            public void sessionCreated(Session session) {
                if (session instanceof ClientSession cs && Attempt.of(cs) != null) {
                    cs.setSignatureFactories(Attempt.of(cs).signatures());
                }
            }

            @Override
            public void sessionEvent(Session session, Event event) {
                if (event == Event.KexCompleted && session instanceof ClientSession cs && Attempt.of(cs) != null) {
                    Attempt.of(cs).keepSent(session);
                }
            }

            // MINA fails the exchange when it cannot check a host certificate's CA signature (the collector offers
            // one algorithm, so the CA's is not among the session's): K_S was read by then
            @Override
            public void sessionException(Session session, Throwable t) {
                if (session instanceof ClientSession cs && Attempt.of(cs) != null) {
                    Attempt.of(cs).keepSent(session);
                }
            }
        });
        client.start();
    }

    /** One entry per offered host key algorithm, in the server's order. */
    public List<ScanResult.HostKey> collect(Target t, List<String> offered) {
        List<ScanResult.HostKey> out = new ArrayList<>();
        for (String alg : offered) {
            out.add(collectOne(t, alg));
        }
        return out;
    }

    private ScanResult.HostKey collectOne(Target t, String alg) {
        List<NamedFactory<Signature>> sig = allSignatures.stream().filter(f -> f.getName().equals(alg)).toList();
        if (sig.isEmpty()) {
            return new ScanResult.HostKey(alg, null, null, null, "host key algorithm not supported by the collector");
        }
        Attempt a = new Attempt(sig, new AtomicReference<>(), new AtomicReference<>());
        ClientSession session = null;
        try {
            session = client.connect("pqssh-scan", t.host(), t.port(), AttributeRepository.ofKeyValuePair(ATTEMPT, a))
                    .verify(timeout).getSession();
            session.waitFor(EnumSet.of(ClientSessionEvent.CLOSED, ClientSessionEvent.WAIT_AUTH), timeout);
        } catch (IOException | RuntimeException e) {
            if (a.key().get() == null && a.sent().get() == null) {
                return new ScanResult.HostKey(alg, null, null, null,
                        e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
            }
        } finally {
            if (session != null) {
                a.keepSent(session);
                session.close(true);
            }
        }
        PublicKey key = a.key().get();
        // MINA ends the exchange before the verifier when it cannot check a host certificate (its CA's algorithm is
        // not the one offered, a principal is not the scanned address): the certificate as sent is what is reported
        Optional<byte[]> sent = Optional.ofNullable(a.sent().get());
        if (key == null && sent.isEmpty()) {
            return new ScanResult.HostKey(alg, null, null, null, "no host key received within " + timeout.toMillis()
                    + " ms");
        }
        byte[] blob = sent.orElseGet(() -> blob(key));
        String type;
        try {
            type = PublicKeyLine.blobKeyType(blob);
        } catch (io.pqssh.core.keys.KeyFileException e) {
            type = alg;
        }
        return new ScanResult.HostKey(alg, type, KeyFingerprints.sha256(blob),
                type + " " + Base64.getEncoder().encodeToString(blob), null);
    }

    private static byte[] blob(PublicKey key) {
        if (key instanceof io.pqssh.mina.keys.PqPublicKey pq) {
            return pq.blob();
        }
        ByteArrayBuffer b = new ByteArrayBuffer();
        b.putRawPublicKey(key);
        return b.getCompactData();
    }

    @Override
    public void close() throws IOException {
        client.stop();
    }
}
