package dev.sluice.bench.cost;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Reads a flight recording of {@link TwoBuildsInOneJvm} and sets the two builds' profiles side by side: each CPU
 * sample and each allocation sample belongs to the build whose class loader ({@code A} or {@code B}) loaded the
 * classes on its stack. Prints, per build, the samples by thread kind, by the method on top of the stack, and by
 * the innermost project method ({@code dev.sluice}) on the stack; the allocation weight by type and by the
 * innermost project method; and the JIT's deoptimizations and long compilations of each build's methods. Lines are sorted by the larger difference between the builds first.
 *
 * <p>usage: {@code java -cp ingester-bench.jar dev.sluice.bench.cost.JfrByBuild recording.jfr [lines]}
 */
public final class JfrByBuild {
    private JfrByBuild() {
    }

    /** Counts per key, for builds A and B. */
    private static final class Table {
        final String title;
        final Map<String, double[]> rows = new HashMap<>();

        Table(String title) {
            this.title = title;
        }

        void add(String key, int build, double weight) {
            rows.computeIfAbsent(key, k -> new double[2])[build] += weight;
        }

        void print(int lines, String unit) {
            double ta = 0;
            double tb = 0;
            for (double[] v : rows.values()) {
                ta += v[0];
                tb += v[1];
            }
            System.out.printf(Locale.ROOT, "%n== %s (A total %.0f, B total %.0f %s)%n", title, ta, tb, unit);
            System.out.printf(Locale.ROOT, "%12s %12s %12s  %s%n", "A", "B", "B-A", "key");
            List<Map.Entry<String, double[]>> sorted = rows.entrySet().stream()
                    .sorted(Comparator.comparingDouble(e -> -Math.abs(e.getValue()[1] - e.getValue()[0])))
                    .limit(lines).toList();
            for (Map.Entry<String, double[]> e : sorted) {
                double[] v = e.getValue();
                System.out.printf(Locale.ROOT, "%12.0f %12.0f %+12.0f  %s%n", v[0], v[1], v[1] - v[0], e.getKey());
            }
        }
    }

    /**
     * Prints the side-by-side profile.
     *
     * @param args the recording, and optionally how many lines each table prints
     * @throws IOException when the recording cannot be read
     */
    public static void main(String[] args) throws IOException {
        int lines = args.length > 1 ? Integer.parseInt(args[1]) : 25;
        Table threads = new Table("CPU samples by thread");
        Table top = new Table("CPU samples by top frame");
        Table project = new Table("CPU samples by innermost project frame");
        Table allocType = new Table("allocation weight by type");
        Table allocSite = new Table("allocation weight by innermost project frame");
        Table allocTop = new Table("allocation weight by top frame");
        Table deopt = new Table("deoptimizations by method and reason");
        Table compiled = new Table("compilations of 100 ms or more, ms by method");
        long unknown = 0;
        try (RecordingFile f = new RecordingFile(Path.of(args[0]))) {
            while (f.hasMoreEvents()) {
                RecordedEvent e = f.readEvent();
                String type = e.getEventType().getName();
                boolean cpu = type.equals("jdk.ExecutionSample");
                boolean alloc = type.equals("jdk.ObjectAllocationSample");
                if (type.equals("jdk.Deoptimization") || type.equals("jdk.Compilation")) {
                    var m = e.getValue("method") instanceof jdk.jfr.consumer.RecordedMethod rm ? rm : null;
                    var loader = m == null || m.getType() == null ? null : m.getType().getClassLoader();
                    int build = loader == null ? -1 : "A".equals(loader.getName()) ? 0 : "B".equals(loader.getName()) ? 1 : -1;
                    if (build >= 0 && type.equals("jdk.Deoptimization")) {
                        deopt.add(shortName(m.getType().getName()) + "." + m.getName() + " " + e.getString("reason")
                                + "/" + e.getString("action"), build, 1);
                    } else if (build >= 0) {
                        compiled.add(shortName(m.getType().getName()) + "." + m.getName(), build,
                                e.getDuration().toNanos() / 1e6);
                    }
                    continue;
                }
                if (!cpu && !alloc) {
                    continue;
                }
                RecordedStackTrace st = e.getStackTrace();
                if (st == null) {
                    continue;
                }
                int build = -1;
                String innermost = "(no project frame)";
                for (RecordedFrame fr : st.getFrames()) {
                    if (fr.getMethod() == null || fr.getMethod().getType() == null) {
                        continue;
                    }
                    var loader = fr.getMethod().getType().getClassLoader();
                    String ln = loader == null ? null : loader.getName();
                    if (build < 0 && "A".equals(ln)) {
                        build = 0;
                    } else if (build < 0 && "B".equals(ln)) {
                        build = 1;
                    }
                    String cls = fr.getMethod().getType().getName();
                    if (innermost.startsWith("(") && cls.startsWith("dev.sluice")) {
                        innermost = shortName(cls) + "." + fr.getMethod().getName();
                    }
                }
                if (build < 0) {
                    unknown++;
                    continue;
                }
                RecordedFrame first = st.getFrames().isEmpty() ? null : st.getFrames().get(0);
                String topName = first == null || first.getMethod() == null ? "?"
                        : shortName(first.getMethod().getType().getName()) + "." + first.getMethod().getName();
                if (cpu) {
                    String thread = e.getThread("sampledThread") == null ? "?" : e.getThread("sampledThread").getJavaName();
                    threads.add(thread == null ? "?" : thread.replaceAll("[0-9]+", "N"), build, 1);
                    top.add(topName, build, 1);
                    project.add(innermost, build, 1);
                } else {
                    double w = e.getLong("weight");
                    allocType.add(e.getClass("objectClass").getName(), build, w / 1e6);
                    allocSite.add(innermost, build, w / 1e6);
                    allocTop.add(topName, build, w / 1e6);
                }
            }
        }
        System.out.println("samples with no frame of either build: " + unknown);
        threads.print(lines, "samples");
        top.print(lines, "samples");
        project.print(lines, "samples");
        allocType.print(lines, "MB");
        allocSite.print(lines, "MB");
        allocTop.print(lines, "MB");
        deopt.print(lines, "deoptimizations");
        compiled.print(lines, "ms");
    }

    private static String shortName(String cls) {
        int dot = cls.lastIndexOf('.');
        return dot < 0 ? cls : cls.substring(dot + 1);
    }
}
