package dev.sluice.bench.report;

/**
 * One mode's figures.
 *
 * @param mode regular, stream or bulk
 * @param rows rows acknowledged
 * @param seconds wall time
 * @param wireBytes message bytes sent
 * @param p50Micros median batch latency (send to answer), -1 when not measured
 * @param p99Micros 99th percentile batch latency, -1 when not measured
 * @param clientCpuSeconds CPU time of the client's threads (the embedded testkit's excluded)
 * @param peakHeapMiB peak heap of the process during the mode
 * @param generatorSeconds estimated CPU time spent generating rows
 * @param status ok, or what failed
 */
public record ModeResult(String mode, long rows, double seconds, long wireBytes, long p50Micros, long p99Micros,
                         double clientCpuSeconds, long peakHeapMiB, double generatorSeconds, String status) {
    /** @return rows per second */
    public double rowsPerSecond() {
        return seconds > 0 ? rows / seconds : 0;
    }

    /** @return wire megabytes (10^6) per second */
    public double megabytesPerSecond() {
        return seconds > 0 ? wireBytes / 1e6 / seconds : 0;
    }
}
