/*
 * pqssh-pam-session: runs PAM's session stack around one pqssh server session, as sshd does in its per-connection
 * monitor (docs/security.md, "Issue 20 §2: PAM"). The pqssh server (root) starts it in place of the session's
 * process; it stays root, single-threaded, and:
 *
 *   pam_start(SERVICE, USER), PAM_RHOST, PAM_TTY; pam_setcred(PAM_ESTABLISH_CRED); pam_open_session
 *   (pam_loginuid writes this process's /proc/self/loginuid, pam_limits its rlimits, pam_systemd moves it into the
 *   user's scope: all inherited by the session's process, which is forked only afterwards);
 *   the modules' texts (pam_motd, pam_mail) and the server's login trailer ("Last login") on stdout when asked;
 *   fork: the child makes itself a session leader (with the pty as its controlling terminal for a pty session) and
 *   executes the server's chain (setpriv or chroot, the trampoline, the user's command) with a fixed environment;
 *   the session's environment reaches the trampoline (already the user's) through descriptor 3: the server's
 *   base variables, then pam_getenvlist(), then the server's overriding variables;
 *   waits, relaying the signals the server asks for; then pam_close_session, pam_setcred(PAM_DELETE_CRED), pam_end;
 *   reports the child's raw wait status to the server.
 *
 * Why C: pam_loginuid's write to /proc/self/loginuid is refused on any thread but the main one, and a JVM never
 * runs Java on its main thread; pam_limits and pam_systemd act on the calling process, which must not be the
 * server (docs/security.md).
 *
 * Usage (by the server only; fixed positions, no option parsing, no shell):
 *   pqssh-pam-session SERVICE USER RHOST TTY MESSAGES -- PROGRAM [ARG...]
 *     RHOST    the client's address, or "" for none
 *     TTY      the pty's path (/dev/pts/N) for a pty session, else "ssh"
 *     MESSAGES "1": print the modules' texts and the trailer (interactive login without ~/.hushlogin), else "0"
 *   descriptors: 0, 1, 2 the session's (a pty opened without becoming the controlling terminal, or pipes);
 *     3 from the server until EOF: base entries, an empty entry, overriding entries, an empty entry (each
 *       NUL-ended), then the trailer's bytes;
 *     4 from the server: one byte per signal to relay (number, | 0x80 for its process group too);
 *     5 to the server: "status RAW\n" (the child's wait status) or "fatal MESSAGE\n" (nothing was run).
 *   environment: the server's fixed one (no client input); the child gets PATH=/usr/bin:/bin only.
 * Exit: the child's status (128 + signal when it was killed), 255 when the session could not start.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <security/pam_appl.h>

#define ENV_FD 3
#define CONTROL_FD 4
#define REPORT_FD 5
/* the most the server sends on descriptor 3 (its environment is bounded far below: sshd's limits) */
#define MAX_PAYLOAD (4 * 1024 * 1024)
#define MAX_MESSAGES (64 * 1024)

static const char *const CHILD_ENV[] = {"PATH=/usr/bin:/bin", NULL};

/* texts of the session modules, shown when MESSAGES is 1 (sshd's loginmsg) */
static char messages[MAX_MESSAGES];
static size_t messages_len;

static void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void report(const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0) {
        return;
    }
    if ((size_t)n > sizeof line - 2) {
        n = sizeof line - 2;
    }
    line[n++] = '\n';
    ssize_t ignored = write(REPORT_FD, line, (size_t)n);
    (void)ignored;
}

/* One line on stderr (the session's: the client sees why), one to the server (its log), then exit 255. */
static void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void fatal(const char *fmt, ...) {
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    dprintf(STDERR_FILENO, "pqssh: %s\n", msg);
    report("fatal %s", msg);
    _exit(255);
}

static void append_message(const char *text) {
    size_t n = strlen(text);
    if (n == 0 || messages_len + n + 1 > sizeof messages) {
        return;
    }
    memcpy(messages + messages_len, text, n);
    messages_len += n;
    messages[messages_len++] = '\n';
}

/* sshd's store_conv: texts are kept for the login, prompts are refused (there is nobody to answer them). */
static int conversation(int n, const struct pam_message **msg, struct pam_response **resp, void *data) {
    (void)data;
    *resp = NULL;
    if (n <= 0 || n > PAM_MAX_NUM_MSG) {
        return PAM_CONV_ERR;
    }
    struct pam_response *reply = calloc((size_t)n, sizeof *reply);
    if (reply == NULL) {
        return PAM_CONV_ERR;
    }
    for (int i = 0; i < n; i++) {
        switch (msg[i]->msg_style) {
        case PAM_ERROR_MSG:
        case PAM_TEXT_INFO:
            append_message(msg[i]->msg != NULL ? msg[i]->msg : "");
            break;
        default:
            free(reply);
            return PAM_CONV_ERR;
        }
    }
    *resp = reply;
    return PAM_SUCCESS;
}

static void write_all(int fd, const char *buf, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return; /* the reader is gone (the session ended early): nothing more to give it */
        }
        buf += n;
        len -= (size_t)n;
    }
}

/* Descriptor 3 up to EOF. */
static char *read_payload(size_t *len) {
    size_t cap = 64 * 1024, used = 0;
    char *buf = malloc(cap);
    if (buf == NULL) {
        fatal("PAM session: out of memory");
    }
    for (;;) {
        if (used == cap) {
            if (cap >= MAX_PAYLOAD) {
                fatal("PAM session: the session's environment exceeds %d bytes", MAX_PAYLOAD);
            }
            cap *= 2;
            char *bigger = realloc(buf, cap);
            if (bigger == NULL) {
                fatal("PAM session: out of memory");
            }
            buf = bigger;
        }
        ssize_t n = read(ENV_FD, buf + used, cap - used);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            fatal("PAM session: reading the environment: %s", strerror(errno));
        }
        if (n == 0) {
            break;
        }
        used += (size_t)n;
    }
    *len = used;
    return buf;
}

/* The offset just past the next empty entry at or after off (the end of a section), or fail. */
static size_t section_end(const char *buf, size_t len, size_t off) {
    while (off < len) {
        const char *nul = memchr(buf + off, '\0', len - off);
        if (nul == NULL) {
            break;
        }
        size_t entry = (size_t)(nul - (buf + off));
        off += entry + 1;
        if (entry == 0) {
            return off;
        }
    }
    fatal("PAM session: malformed environment from the server");
}

/* sshd's PAM_ENV_DENYLIST: what PAM was told about the connection does not flow back into the session. */
static int pam_entry_allowed(const char *e) {
    const char *eq = strchr(e, '=');
    return eq != NULL && eq != e && strncmp(e, "SSH_AUTH_INFO", 13) != 0 && strncmp(e, "SSH_CONNECTION", 14) != 0;
}

static void close_session(pam_handle_t *pam, int rc) {
    pam_close_session(pam, PAM_SILENT);
    pam_setcred(pam, PAM_DELETE_CRED | PAM_SILENT);
    pam_end(pam, rc);
}

int main(int argc, char **argv) {
    if (argc < 8 || strcmp(argv[6], "--") != 0 || argv[7][0] != '/') {
        dprintf(STDERR_FILENO, "pqssh-pam-session: started by the pqssh server only"
                " (SERVICE USER RHOST TTY MESSAGES -- /PROGRAM [ARG...])\n");
        return 255;
    }
    const char *service = argv[1], *user = argv[2], *rhost = argv[3], *tty = argv[4];
    int show = strcmp(argv[5], "1") == 0;
    int pty = tty[0] == '/';
    char **program = argv + 7;

    /* nothing but 0..5 from whoever started us; no core file of a root process holding PAM state */
    close_range(REPORT_FD + 1, ~0U, 0);
    prctl(PR_SET_DUMPABLE, 0);
    /* the signals to relay and SIGCHLD arrive on a signalfd; SIGPIPE is blocked so that a gone reader is EPIPE */
    sigset_t relay, blocked;
    sigemptyset(&relay);
    int relayed[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD};
    for (size_t i = 0; i < sizeof relayed / sizeof relayed[0]; i++) {
        sigaddset(&relay, relayed[i]);
    }
    blocked = relay;
    sigaddset(&blocked, SIGPIPE);
    if (sigprocmask(SIG_BLOCK, &blocked, NULL) != 0) {
        fatal("PAM session: sigprocmask: %s", strerror(errno));
    }
    int sigfd = signalfd(-1, &relay, SFD_CLOEXEC);
    if (sigfd < 0) {
        fatal("PAM session: signalfd: %s", strerror(errno));
    }
    fcntl(CONTROL_FD, F_SETFD, FD_CLOEXEC);
    fcntl(REPORT_FD, F_SETFD, FD_CLOEXEC);

    size_t len;
    char *payload = read_payload(&len);
    close(ENV_FD);
    size_t base_end = section_end(payload, len, 0);
    size_t over_end = section_end(payload, len, base_end);

    struct pam_conv conv = {conversation, NULL};
    pam_handle_t *pam = NULL;
    int rc = pam_start(service, user, &conv, &pam);
    if (rc != PAM_SUCCESS) {
        fatal("PAM: pam_start(%s): %s", service, pam_strerror(pam, rc));
    }
    if (rhost[0] != '\0' && (rc = pam_set_item(pam, PAM_RHOST, rhost)) != PAM_SUCCESS) {
        fatal("PAM: pam_set_item(PAM_RHOST): %s", pam_strerror(pam, rc));
    }
    if ((rc = pam_set_item(pam, PAM_TTY, tty)) != PAM_SUCCESS) {
        fatal("PAM: pam_set_item(PAM_TTY): %s", pam_strerror(pam, rc));
    }
    /* sshd's order: credentials, then the session (do_pam_setcred, do_pam_session) */
    if ((rc = pam_setcred(pam, PAM_ESTABLISH_CRED)) != PAM_SUCCESS) {
        fatal("PAM: pam_setcred(): %s", pam_strerror(pam, rc));
    }
    if ((rc = pam_open_session(pam, 0)) != PAM_SUCCESS) {
        const char *why = pam_strerror(pam, rc);
        pam_setcred(pam, PAM_DELETE_CRED | PAM_SILENT);
        fatal("PAM: pam_open_session(): %s", why);
    }
    char **pamenv = pam_getenvlist(pam);
    /* whatever a module did to them: the wait below needs SIGCHLD's default, the child gets every default */
    for (int sig = 1; sig < NSIG; sig++) {
        if (sig != SIGKILL && sig != SIGSTOP) {
            signal(sig, SIG_DFL);
        }
    }

    if (show) {
        write_all(STDOUT_FILENO, messages, messages_len);
        write_all(STDOUT_FILENO, payload + over_end, len - over_end);
    }

    int envpipe[2];
    if (pipe2(envpipe, O_CLOEXEC) != 0) {
        close_session(pam, PAM_SUCCESS);
        fatal("PAM session: pipe: %s", strerror(errno));
    }
    pid_t child = fork();
    if (child < 0) {
        int e = errno;
        close_session(pam, PAM_SUCCESS);
        fatal("PAM session: fork: %s", strerror(e));
    }
    if (child == 0) {
        /* the session's process: its own session (and, with a pty, that terminal as its controlling one), as the
           server starts it without PAM; the environment pipe on 3, nothing else open beyond 0..3 */
        if (setsid() < 0) {
            dprintf(STDERR_FILENO, "pqssh: setsid: %s\n", strerror(errno));
            _exit(255);
        }
        if (pty && ioctl(STDIN_FILENO, TIOCSCTTY, 0) != 0) {
            dprintf(STDERR_FILENO, "pqssh: %s: cannot make it the controlling terminal: %s\n", tty, strerror(errno));
            _exit(255);
        }
        if (envpipe[0] == ENV_FD) {
            fcntl(ENV_FD, F_SETFD, 0);
        } else if (dup2(envpipe[0], ENV_FD) != ENV_FD) {
            dprintf(STDERR_FILENO, "pqssh: dup2: %s\n", strerror(errno));
            _exit(255);
        }
        close_range(ENV_FD + 1, ~0U, 0);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execve(program[0], program, (char *const *)CHILD_ENV);
        dprintf(STDERR_FILENO, "pqssh: %s: %s\n", program[0], strerror(errno));
        _exit(127);
    }
    close(envpipe[0]);
    /* the child reads while this writes; a child that ended early makes this EPIPE, not a signal */
    write_all(envpipe[1], payload, base_end - 1);
    for (char **e = pamenv; e != NULL && *e != NULL; e++) {
        if (pam_entry_allowed(*e)) {
            write_all(envpipe[1], *e, strlen(*e) + 1);
        }
    }
    write_all(envpipe[1], payload + base_end, over_end - base_end - 1);
    close(envpipe[1]);
    if (pamenv != NULL) {
        for (char **e = pamenv; *e != NULL; e++) {
            free(*e);
        }
        free(pamenv);
    }
    free(payload);

    /* wait, relaying signals: only to the child (and its process group) while it is not reaped, so never to a
       process that has taken its pid */
    int status = 0, control_open = 1;
    for (;;) {
        struct pollfd fds[2] = {{sigfd, POLLIN, 0}, {CONTROL_FD, POLLIN, 0}};
        if (poll(fds, control_open ? 2 : 1, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            break; /* cannot happen with valid descriptors; fall through to waiting without relaying */
        }
        if (fds[0].revents & POLLIN) {
            struct signalfd_siginfo si;
            if (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
                if (si.ssi_signo == SIGCHLD) {
                    pid_t w = waitpid(child, &status, WNOHANG);
                    if (w == child) {
                        goto ended;
                    }
                    if (w < 0 && errno != EINTR) {
                        break; /* cannot happen (SIGCHLD is at its default): stop relaying, wait below */
                    }
                } else {
                    kill(child, (int)si.ssi_signo);
                }
            }
        }
        if (control_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            unsigned char req[64];
            ssize_t n = read(CONTROL_FD, req, sizeof req);
            if (n <= 0 && !(n < 0 && errno == EINTR)) {
                control_open = 0; /* the server is gone or done: the session goes on, as without PAM */
                close(CONTROL_FD);
            }
            for (ssize_t i = 0; i < n; i++) {
                int sig = req[i] & 0x7f;
                if (sig >= 1 && sig < NSIG) {
                    if (req[i] & 0x80) {
                        kill(-child, sig);
                    }
                    kill(child, sig);
                }
            }
        }
    }
    for (;;) {
        if (waitpid(child, &status, 0) == child) {
            break;
        }
        if (errno != EINTR) {
            close_session(pam, PAM_SUCCESS);
            fatal("PAM session: waitpid: %s", strerror(errno));
        }
    }
ended:
    close_session(pam, PAM_SUCCESS);
    report("status %d", status);
    if (WIFSIGNALED(status)) {
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status);
}
