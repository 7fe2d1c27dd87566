package io.pqssh.client.agent;

import java.util.Map;
import java.util.function.Function;

import io.pqssh.core.agent.Agent;
import io.pqssh.core.agent.AgentProtocol;

/**
 * {@code pqssh agent -d}: one agent connection whose requests and answers are written to stderr by message type
 * (and extension name), never their contents: keys, passphrases and signatures stay out of the log.
 */
public final class AgentDebug {
    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(AgentProtocol.SSH_AGENT_FAILURE, "FAILURE"),
            Map.entry(AgentProtocol.SSH_AGENT_SUCCESS, "SUCCESS"),
            Map.entry(AgentProtocol.SSH_AGENTC_REQUEST_IDENTITIES, "REQUEST_IDENTITIES"),
            Map.entry(AgentProtocol.SSH_AGENT_IDENTITIES_ANSWER, "IDENTITIES_ANSWER"),
            Map.entry(AgentProtocol.SSH_AGENTC_SIGN_REQUEST, "SIGN_REQUEST"),
            Map.entry(AgentProtocol.SSH_AGENT_SIGN_RESPONSE, "SIGN_RESPONSE"),
            Map.entry(AgentProtocol.SSH_AGENTC_ADD_IDENTITY, "ADD_IDENTITY"),
            Map.entry(AgentProtocol.SSH_AGENTC_REMOVE_IDENTITY, "REMOVE_IDENTITY"),
            Map.entry(AgentProtocol.SSH_AGENTC_REMOVE_ALL_IDENTITIES, "REMOVE_ALL_IDENTITIES"),
            Map.entry(AgentProtocol.SSH_AGENTC_LOCK, "LOCK"),
            Map.entry(AgentProtocol.SSH_AGENTC_UNLOCK, "UNLOCK"),
            Map.entry(AgentProtocol.SSH_AGENTC_ADD_ID_CONSTRAINED, "ADD_ID_CONSTRAINED"),
            Map.entry(AgentProtocol.SSH_AGENTC_EXTENSION, "EXTENSION"),
            Map.entry(AgentProtocol.SSH_AGENT_EXTENSION_FAILURE, "EXTENSION_FAILURE"));

    private AgentDebug() {
    }

    public static Function<byte[], byte[]> logging(Agent agent) {
        Agent.Connection c = agent.connection();
        long id = System.nanoTime() & 0xffff;
        System.err.println("debug1: new connection " + id);
        return request -> {
            byte[] answer = c.handle(request);
            System.err.println("debug1: connection " + id + ": " + describe(request) + " -> " + describe(answer));
            return answer;
        };
    }

    private static String describe(byte[] message) {
        int type = message[0] & 0xff;
        String name = NAMES.getOrDefault(type, "type " + type);
        if (type == AgentProtocol.SSH_AGENTC_EXTENSION && message.length >= 5) {
            int n = ((message[1] & 0xff) << 24) | ((message[2] & 0xff) << 16) | ((message[3] & 0xff) << 8)
                    | (message[4] & 0xff);
            if (n > 0 && n <= 64 && message.length >= 5 + n) {
                name += " " + new String(message, 5, n, java.nio.charset.StandardCharsets.UTF_8)
                        .replaceAll("[^\\x21-\\x7e]", "?");
            }
        }
        return name;
    }
}
