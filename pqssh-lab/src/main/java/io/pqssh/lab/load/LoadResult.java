package io.pqssh.lab.load;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One row of load.json: one server x method x workers. {@code status} is "ok", "failed" (failures or the server
 * died), "n/a" (the server has no such method) or "unsupported" (pqssh lacks it in this build); numbers are null
 * when not measured. {@code server_jit_ms_per_conn}: CPU of the pqssh server JVM's JIT compiler threads over the
 * window per login (part of {@code cpu_ms_per_conn}; null for sshd); {@code client_cpu_ms_per_conn}: CPU of the
 * lab's own JVM (the load generator, same for every server) per login. {@code cpu_ms_per_conn} comes from the
 * server's own cgroup v2 ({@code cpu_source} "cgroup-v2 cpu.stat": every process the server created, see
 * {@link ServerCgroup}) where the lab can make one, else from /proc ({@code cpu_source} "proc"); {@code
 * proc_cpu_ms_per_conn} is always the /proc count (utime+stime+cutime+cstime of the server's main process: only
 * the children it waited for), for comparison. {@code login_user}: the account the workers log in as;
 * {@code loadavg_start}/{@code loadavg_end}: the machine's 1-minute load average when the window opened and closed.
 */
public record LoadResult(
        @JsonProperty("server") String server,
        @JsonProperty("method") String method,
        @JsonProperty("workers") int workers,
        @JsonProperty("status") String status,
        @JsonProperty("kex") String kex,
        @JsonProperty("conn_per_s") Double connPerS,
        @JsonProperty("successes") long successes,
        @JsonProperty("failures") long failures,
        @JsonProperty("failures_by_cause") Map<String, Long> failuresByCause,
        @JsonProperty("p50_ms") Double p50Ms,
        @JsonProperty("p95_ms") Double p95Ms,
        @JsonProperty("p99_ms") Double p99Ms,
        @JsonProperty("cpu_ms_per_conn") Double cpuMsPerConn,
        @JsonProperty("server_jit_ms_per_conn") Double serverJitMsPerConn,
        @JsonProperty("client_cpu_ms_per_conn") Double clientCpuMsPerConn,
        @JsonProperty("peak_mem_mb") Double peakMemMb,
        @JsonProperty("mem_source") String memSource,
        @JsonProperty("measured_s") double measuredS,
        @JsonProperty("client_logins_total") long clientLoginsTotal,
        @JsonProperty("server_logins_total") Long serverLoginsTotal,
        @JsonProperty("server_alive_at_end") boolean serverAliveAtEnd,
        @JsonProperty("note") String note,
        @JsonProperty("cpu_source") String cpuSource,
        @JsonProperty("proc_cpu_ms_per_conn") Double procCpuMsPerConn,
        @JsonProperty("login_user") String loginUser,
        @JsonProperty("loadavg_start") Double loadavgStart,
        @JsonProperty("loadavg_end") Double loadavgEnd) {

    static LoadResult notMeasured(String server, String method, int workers, String status, String kex,
            String note) {
        return new LoadResult(server, method, workers, status, kex, null, 0, 0, Map.of(), null, null, null, null,
                null, null, null, null, 0, 0, null, false, note, null, null, null, null, null);
    }
}
