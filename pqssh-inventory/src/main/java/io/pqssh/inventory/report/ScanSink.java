package io.pqssh.inventory.report;

import java.io.IOException;

import io.pqssh.inventory.scan.ScanResult;

/**
 * A report written while a scan streams: {@link #accept} once per result as it arrives, {@link #finish} once with the
 * aggregate counts. Implementations keep nothing per result (the HTML table spills to a temporary file), so memory
 * does not grow with the number of targets.
 */
public interface ScanSink extends AutoCloseable {
    void accept(ScanResult r) throws IOException;

    /** Writes what depends on the totals and flushes; the sink is done afterwards. */
    void finish(ScanCounters counters) throws IOException;

    @Override
    default void close() throws IOException {
    }
}
