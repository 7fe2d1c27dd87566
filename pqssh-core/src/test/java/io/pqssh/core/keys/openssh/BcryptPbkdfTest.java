package io.pqssh.core.keys.openssh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Known answers of OpenBSD's bcrypt_pbkdf regression test (regress/lib/libutil/bcrypt_pbkdf). */
class BcryptPbkdfTest {
    private static final HexFormat HEX = HexFormat.of();

    @ParameterizedTest
    @CsvSource({
            "70617373776f7264, 73616c74, 4, 5bbf0cc293587f1c3635555c27796598d47e579071bf427e9d8fbe842aba34d9",
            "70617373776f7264, 00, 4, c12b566235eee04c212598970a579a67",
            "00, 73616c74, 4, 6051be18c2f4f82cbf0efee5471b4bb9",
            "70617373776f726400, 73616c7400, 4, 7410e44cf4fa07bfaac8a928b1727fac001375e7bf7384370f48efd121743050",
            "7061737300776f72, 7361006c, 4, c2bffd9db38f6569efef4372f4de83c0",
            "7061737300776f7264, 7361006c74, 4, 4ba4ac3925c0e8d7f0cdb6bb1684a56f",
            "70617373776f7264, 73616c74, 8, e1367ec5151a33faac4cc1c144cd23fa15d5548493ecc99b9b5d9c0d3b27bec7"
                    + "6227ea66088b849b20ab7aa478010246e74bba51723fefa9f9474d6508845e8d",
            "70617373776f7264, 73616c74, 42, 833cf0dcf56db65608e8f0dc0ce882bd",
    })
    void openBsdVectors(String passHex, String saltHex, int rounds, String expectedHex) {
        byte[] expected = HEX.parseHex(expectedHex);
        byte[] got = BcryptPbkdf.derive(HEX.parseHex(passHex), HEX.parseHex(saltHex), rounds, expected.length);
        assertEquals(expectedHex, HEX.formatHex(got));
    }

    @Test
    void longPassword() {
        String pass = "Lorem ipsum dolor sit amet, consectetur adipisicing elit, "
                + "sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. "
                + "Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris "
                + "nisi ut aliquip ex ea commodo consequat. "
                + "Duis aute irure dolor in reprehenderit in voluptate velit esse cillum "
                + "dolore eu fugiat nulla pariatur. Excepteur sint occaecat cupidatat non "
                + "proident, sunt in culpa qui officia deserunt mollit anim id est laborum.";
        byte[] got = BcryptPbkdf.derive(pass.getBytes(StandardCharsets.US_ASCII),
                "salis\0".getBytes(StandardCharsets.US_ASCII), 8, 16);
        assertArrayEquals(HEX.parseHex("10978b07253df57f71a162eb0e8ad30a"), got);
    }

    @Test
    void piTableHasBlowfishConstants() {
        int[] w = EksBlowfish.initialWords();
        assertEquals(1042, w.length);
        assertEquals(0x243F6A88, w[0]); // P1
        assertEquals(0x8979FB1B, w[17]); // P18
        assertEquals(0xD1310BA6, w[18]); // S1[0]
        assertEquals(0x3AC372E6, w[1041]); // S4[255]
    }

    @Test
    void rejectsDegenerateInput() {
        assertThrows(IllegalArgumentException.class, () -> BcryptPbkdf.derive(new byte[1], new byte[1], 0, 16));
        assertThrows(IllegalArgumentException.class, () -> BcryptPbkdf.derive(new byte[0], new byte[1], 1, 16));
        assertThrows(IllegalArgumentException.class, () -> BcryptPbkdf.derive(new byte[1], new byte[1], 1, 1025));
    }
}
