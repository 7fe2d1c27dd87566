package io.pqssh.server.config;

/**
 * One keyword line of an sshd_config after Include expansion: {@code where} is sshd's {@code FILE line N} and
 * {@code match} the Match block it sits in (null: the global section).
 */
public record ConfigLine(String keyword, String value, String where, MatchCondition match) {
}
