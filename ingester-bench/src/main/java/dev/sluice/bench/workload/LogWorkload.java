package dev.sluice.bench.workload;

import dev.sluice.data.DataType;
import dev.sluice.data.RowAppender;
import dev.sluice.data.TableSchema;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * Application logs, 14 columns: {@code log_ts} millisecond time index and 13 strings, among them a
 * ~2,000-character {@code log_message} from per-level templates and random 64-bit hex trace and span ids.
 * The short strings come from pools built up front (the ids' pool is larger than the client's cache of encoded
 * text). Each row's message is a new {@code String}, decoded from a pool of UTF-8 bytes as a service reading log
 * lines decodes them: a client that keeps the caller's string then keeps it alive itself, as it would with real log
 * lines, where a pooled string would be kept alive by the pool whatever the client does. (The official Java
 * ingester's benchmarks build each row's message afresh too: {@code LogTextHelper.generate2kText} in
 * {@code GreptimeTeam/greptimedb-ingester-java}, {@code ingester-example/src/main/java/io/greptime/bench}.)
 */
public final class LogWorkload implements Workload {
    private static final long START = Instant.parse("2024-01-01T00:00:00Z").toEpochMilli();
    private static final String[] LEVELS = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR"};
    /**
     * Distinct message texts per level: 20,480 in all, about 41 MB of UTF-8. Each row decodes its message afresh
     * (see the class comment); the texts vary so that the server does not see one message repeated.
     */
    private static final int MESSAGES_PER_LEVEL = 4_096;
    private static final int ID_POOL = 1 << 16;

    private final long seed;
    private final TableSchema schema;
    private final String[] businesses = pool("biz-", 10);
    private final String[] apps = pool("app-", 50);
    private final String[] hostNames = pool("node-", 200);
    private final String[] pods = pool("pod-", 500);
    private final String[] logNames = pool("com.example.service.Component", 30);
    private final String[] uris = pool("/api/v1/resource/", 100);
    private final String[] errnos = {"0", "0", "0", "0", "EIO", "ETIMEDOUT", "ECONNRESET", "ENOENT"};
    private final String[] traceFlags = {"00", "01"};
    private final String[] traceStates = {"", "vendor=a", "vendor=b,rojo=00f067aa0ba902b7"};
    private final byte[][][] messages = new byte[LEVELS.length][MESSAGES_PER_LEVEL][];
    private final String[] ids = new String[ID_POOL];

    /**
     * Creates the workload and its pools.
     *
     * @param seed random seed
     */
    public LogWorkload(long seed) {
        this.seed = seed;
        this.schema = TableSchema.newBuilder("bench_logs")
                .addTimestamp("log_ts", DataType.TimestampMillisecond)
                .addField("business_name", DataType.String).addField("app_name", DataType.String)
                .addField("host_name", DataType.String).addField("log_message", DataType.String)
                .addField("log_level", DataType.String).addField("log_name", DataType.String)
                .addField("uri", DataType.String).addField("trace_id", DataType.String)
                .addField("span_id", DataType.String).addField("errno", DataType.String)
                .addField("trace_flags", DataType.String).addField("trace_state", DataType.String)
                .addField("pod_name", DataType.String).build();
        for (int l = 0; l < LEVELS.length; l++) {
            for (int m = 0; m < MESSAGES_PER_LEVEL; m++) {
                messages[l][m] = message(l, m).getBytes(StandardCharsets.UTF_8);
            }
        }
        for (int i = 0; i < ID_POOL; i++) {
            ids[i] = String.format("%016x", SplitMix.mix(seed, i, 99));
        }
    }

    private static String[] pool(String prefix, int n) {
        String[] out = new String[n];
        for (int i = 0; i < n; i++) {
            out[i] = prefix + i;
        }
        return out;
    }

    private String message(int level, int variant) {
        StringBuilder sb = new StringBuilder(2_100);
        sb.append('[').append(LEVELS[level]).append("] request handled by worker ").append(variant).append(": ");
        int word = 0;
        while (sb.length() < 2_000) {
            long r = SplitMix.mix(seed, level * 1_000L + variant, word++);
            sb.append(WORDS[(int) Long.remainderUnsigned(r, WORDS.length)]).append(' ');
            if (word % 17 == 0) {
                sb.append("key=").append(Long.toHexString(r)).append(' ');
            }
        }
        return sb.toString();
    }

    private static final String[] WORDS = {"connection", "timeout", "retry", "payload", "user", "session", "cache",
        "miss", "hit", "query", "latency", "upstream", "downstream", "shard", "replica", "commit", "rollback",
        "token", "expired", "granted", "queue", "depth", "worker", "thread", "pool", "exhausted", "recovered"};

    @Override
    public TableSchema schema() {
        return schema;
    }

    @Override
    public void fill(Consumer<Object[]> sink, long first, int count) {
        Object[] row = new Object[schema.columnCount()];
        for (long i = first; i < first + count; i++) {
            // Three mixes give 16-bit slices; pick(slice, n) maps a slice onto [0, n) with a multiply, not a division.
            long r = SplitMix.mix(seed, i, 0);
            long q = SplitMix.mix(seed, i, 1);
            int level = pick(r, 100);
            int lv = level < 5 ? 4 : level < 15 ? 3 : level < 75 ? 2 : level < 95 ? 1 : 0;
            row[0] = START + i;
            row[1] = businesses[pick(r >>> 16, businesses.length)];
            row[2] = apps[pick(r >>> 32, apps.length)];
            row[3] = hostNames[pick(r >>> 48, hostNames.length)];
            row[4] = new String(messages[lv][pick(q, MESSAGES_PER_LEVEL)], StandardCharsets.UTF_8);
            row[5] = LEVELS[lv];
            row[6] = logNames[pick(q >>> 16, logNames.length)];
            row[7] = uris[pick(q >>> 32, uris.length)];
            row[8] = ids[(int) (q >>> 48)];
            row[9] = ids[(int) ((i * 31 + (r >>> 20)) & (ID_POOL - 1))];
            long t = SplitMix.mix(seed, i, 2);
            row[10] = errnos[pick(t, errnos.length)];
            row[11] = traceFlags[pick(t >>> 16, traceFlags.length)];
            row[12] = traceStates[pick(t >>> 32, traceStates.length)];
            row[13] = pods[pick(t >>> 48, pods.length)];
            sink.accept(row);
        }
    }

    /** The same rows as {@link #fill}, the time index as a primitive long. */
    @Override
    public void append(RowAppender a, long first, int count) {
        for (long i = first; i < first + count; i++) {
            long r = SplitMix.mix(seed, i, 0);
            long q = SplitMix.mix(seed, i, 1);
            int level = pick(r, 100);
            int lv = level < 5 ? 4 : level < 15 ? 3 : level < 75 ? 2 : level < 95 ? 1 : 0;
            a.setLong(0, START + i);
            a.setString(1, businesses[pick(r >>> 16, businesses.length)]);
            a.setString(2, apps[pick(r >>> 32, apps.length)]);
            a.setString(3, hostNames[pick(r >>> 48, hostNames.length)]);
            a.setString(4, new String(messages[lv][pick(q, MESSAGES_PER_LEVEL)], StandardCharsets.UTF_8));
            a.setString(5, LEVELS[lv]);
            a.setString(6, logNames[pick(q >>> 16, logNames.length)]);
            a.setString(7, uris[pick(q >>> 32, uris.length)]);
            a.setString(8, ids[(int) (q >>> 48)]);
            a.setString(9, ids[(int) ((i * 31 + (r >>> 20)) & (ID_POOL - 1))]);
            long t = SplitMix.mix(seed, i, 2);
            a.setString(10, errnos[pick(t, errnos.length)]);
            a.setString(11, traceFlags[pick(t >>> 16, traceFlags.length)]);
            a.setString(12, traceStates[pick(t >>> 32, traceStates.length)]);
            a.setString(13, pods[pick(t >>> 48, pods.length)]);
            a.endRow();
        }
    }

    /** Maps the low 16 bits of {@code bits} uniformly (to within 1/65,536) onto {@code [0, n)}. */
    private static int pick(long bits, int n) {
        return (int) (((bits & 0xFFFF) * n) >>> 16);
    }
}
