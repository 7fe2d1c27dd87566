package io.pqssh.client.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * A server's banner reaches the user's terminal with its control characters made visible (octal, as OpenSSH's
 * fmprintf): before, pqssh printed it raw, so a server could clear the screen, retitle the window or move the cursor
 * over what the user reads next.
 */
class BannerVisibleTest {
    @Test
    void escapeSequencesAreMadeVisibleAndTextIsKept() {
        assertEquals("Authorized use only\n\\033[2J\\033]0;owned\\007tab\there\\177 end\\015\n",
                ClientSetup.visible("Authorized use only\n\u001b[2J\u001b]0;owned\u0007tab\there\u007f end\r\n"));
        // printable non-ASCII stays as it is; C1 controls are made visible too
        assertEquals("na\u00efve \u00e9t\u00e9 \\233", ClientSetup.visible("na\u00efve \u00e9t\u00e9 \u009b"));
    }
}
