package io.pqssh.inventory;

import java.io.IOException;
import java.util.List;

import io.pqssh.inventory.scan.ScanResult;

/** CbomTest.scanCbom (schema-validated) for tests in other packages. */
public final class CbomTestAccess {
    private CbomTestAccess() {
    }

    public static String scanCbom(List<ScanResult> results) throws IOException {
        return CbomTest.scanCbom(results);
    }

    /** The results of the real ZGrab2 records fixture. */
    public static List<ScanResult> fixtureResults() throws IOException {
        return Zgrab2ReaderTest.read(new java.io.ByteArrayInputStream(CbomTest.fixture())).results();
    }
}
