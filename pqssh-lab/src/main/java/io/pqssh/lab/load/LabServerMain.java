package io.pqssh.lab.load;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;

import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.server.FileKeyAuthorizers;
import io.pqssh.server.PqsshServer;
import io.pqssh.server.ServerConfig;

/**
 * The pqssh server under test, run as a child JVM: {@link PqsshServer} assembled from an sshd_config-syntax file
 * the way {@code pqssh server -f FILE} does, plus a stats file the lab reads (authenticated sessions, pending KEM
 * challenges, heap used, heap after a requested GC). Usage: {@code LabServerMain CONFIG PORT_FILE STATS_FILE}.
 * A file {@code STATS_FILE.gc} with a number asks for a full GC; the answer is {@code gc_seq}/{@code heap_after_gc}.
 */
public final class LabServerMain {
    private LabServerMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: LabServerMain CONFIG PORT_FILE STATS_FILE");
            System.exit(2);
        }
        ServerConfig c = ServerConfig.load(Path.of(args[0]));
        PqsshServer.Builder b = PqsshServer.builder().systemShell()
                .host(c.listenAddress).port(c.port).hostKeyFiles(c.hostKeys)
                .kex(c.kexAlgorithms).requirePostQuantumKex(c.requirePostQuantumKex)
                .authenticationMethods(c.authenticationMethods).maxAuthTries(c.maxAuthTries)
                .loginGraceTime(c.loginGraceTime).sftp(c.sftp);
        FileKeyAuthorizers auth = new FileKeyAuthorizers(c.authorizedKeysFile, c.authorizedKemKeysFile);
        if (c.pubkeyAuthentication) {
            b.publickey(auth.publickey());
        }
        if (c.kemAuthentication) {
            b.kem(KemServerSettings.builder().allowedAlgorithms(c.kemAuthAlgorithms).authorizer(auth.kem())
                    .maxPending(c.maxPendingKemChallenges, c.maxPendingKemChallengesPerSource).build());
        }
        AtomicLong authenticated = new AtomicLong();
        AtomicLong sessions = new AtomicLong();
        PqsshServer server = b.start();
        // the server chooses its ML-KEM provider in the background after start (seconds of timing); the lab waits
        // for that choice so it does not compete with what is measured
        io.pqssh.core.kem.KemProviders.selected();
        // and its ML-DSA verification provider (PqsshServer does not start that selection itself), after the ML-KEM
        // one so the two timings do not compete
        io.pqssh.core.sig.SigProviders.selected();
        // likewise the transport warm-up PqsshServer starts (same future: it runs once per JVM)
        io.pqssh.server.TransportWarmup.start(server.sshd().getCipherFactories(),
                server.sshd().getMacFactories()).get(60, java.util.concurrent.TimeUnit.SECONDS);
        server.sshd().addSessionListener(new SessionListener() {
            @Override
            public void sessionCreated(Session session) {
                sessions.incrementAndGet();
            }

            @Override
            public void sessionEvent(Session session, Event event) {
                if (event == Event.Authenticated) {
                    authenticated.incrementAndGet();
                }
            }
        });
        Path stats = Path.of(args[2]);
        Path gcRequest = Path.of(args[2] + ".gc");
        Thread writer = new Thread(() -> {
            long gcSeq = 0;
            long heapAfterGc = -1;
            while (true) {
                try {
                    if (Files.exists(gcRequest)) {
                        long want = Long.parseLong(Files.readString(gcRequest).strip());
                        if (want != gcSeq) {
                            for (int i = 0; i < 3; i++) {
                                System.gc();
                                Thread.sleep(20);
                            }
                            Runtime rt = Runtime.getRuntime();
                            heapAfterGc = rt.totalMemory() - rt.freeMemory();
                            gcSeq = want;
                        }
                    }
                    Runtime rt = Runtime.getRuntime();
                    String s = "authenticated " + authenticated.get() + "\nsessions " + sessions.get()
                            + "\npending_kem " + server.pendingKemChallenges() + "\nheap_used "
                            + (rt.totalMemory() - rt.freeMemory()) + "\ngc_seq " + gcSeq + "\nheap_after_gc "
                            + heapAfterGc + "\n";
                    Path tmp = Path.of(args[2] + ".tmp");
                    Files.writeString(tmp, s);
                    Files.move(tmp, stats, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    System.err.println("stats: " + e);
                }
            }
        }, "lab-stats");
        writer.setDaemon(true);
        writer.start();
        Path portTmp = Path.of(args[1] + ".tmp");
        Files.writeString(portTmp, server.port() + "\n");
        Files.move(portTmp, Path.of(args[1]), StandardCopyOption.ATOMIC_MOVE);
        System.err.println("pqssh lab server listening on " + c.listenAddress + ":" + server.port());
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (Exception ignored) {
                // exiting anyway
            }
            stop.countDown();
        }));
        stop.await();
    }
}
