package io.pqssh.server.login;

/** Who this JVM runs as: uid and user name (from the kernel's credentials, not from {@code $USER}). */
public record ProcessIdentity(long uid, String name) {
    public static ProcessIdentity current() {
        com.sun.security.auth.module.UnixSystem u = new com.sun.security.auth.module.UnixSystem();
        return new ProcessIdentity(u.getUid(), u.getUsername());
    }
}
