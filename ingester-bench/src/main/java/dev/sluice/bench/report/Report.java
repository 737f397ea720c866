package dev.sluice.bench.report;

import java.awt.Color;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.category.DefaultCategoryDataset;

/** Prints the result table and writes CSV, JSON and a bar chart. */
public final class Report {
    private Report() {
    }

    private static String ms(long micros) {
        return micros < 0 ? "-" : String.format(Locale.ROOT, "%.1f", micros / 1000.0);
    }

    /**
     * Prints the table.
     *
     * @param out where
     * @param header the run's description
     * @param results one row per mode
     */
    public static void print(PrintStream out, String header, List<ModeResult> results) {
        out.println();
        out.println(header);
        out.printf(Locale.ROOT, "%-8s %12s %9s %12s %8s %9s %9s %8s %9s %7s  %s%n", "mode", "rows", "seconds", "rows/s",
                "MB/s", "p50 ms", "p99 ms", "cpu s", "heap MiB", "gen s", "status");
        for (ModeResult r : results) {
            out.printf(Locale.ROOT, "%-8s %,12d %9.2f %,12.0f %8.1f %9s %9s %8.1f %9d %7.2f  %s%n", r.mode(), r.rows(),
                    r.seconds(), r.rowsPerSecond(), r.megabytesPerSecond(), ms(r.p50Micros()), ms(r.p99Micros()),
                    r.clientCpuSeconds(), r.peakHeapMiB(), r.generatorSeconds(), r.status());
        }
    }

    /**
     * Writes CSV or JSON, by the file's extension.
     *
     * @param file results.csv or results.json
     * @param results the rows
     * @throws IOException on failure
     */
    public static void write(Path file, List<ModeResult> results) throws IOException {
        StringBuilder sb = new StringBuilder();
        boolean json = file.toString().toLowerCase(Locale.ROOT).endsWith(".json");
        if (json) {
            sb.append("[\n");
            for (int i = 0; i < results.size(); i++) {
                ModeResult r = results.get(i);
                sb.append(String.format(Locale.ROOT, "  {\"mode\":\"%s\",\"rows\":%d,\"seconds\":%.3f,\"rows_per_second\":%.1f,"
                                + "\"mb_per_second\":%.2f,\"p50_ms\":%s,\"p99_ms\":%s,\"client_cpu_seconds\":%.2f,"
                                + "\"peak_heap_mib\":%d,\"generator_seconds\":%.2f,\"status\":\"%s\"}%s\n",
                        r.mode(), r.rows(), r.seconds(), r.rowsPerSecond(), r.megabytesPerSecond(), jsonMs(r.p50Micros()),
                        jsonMs(r.p99Micros()), r.clientCpuSeconds(), r.peakHeapMiB(), r.generatorSeconds(),
                        r.status().replace("\\", "\\\\").replace("\"", "\\\""), i + 1 < results.size() ? "," : ""));
            }
            sb.append("]\n");
        } else {
            sb.append("mode,rows,seconds,rows_per_second,mb_per_second,p50_ms,p99_ms,client_cpu_seconds,peak_heap_mib,"
                    + "generator_seconds,status\n");
            for (ModeResult r : results) {
                sb.append(String.format(Locale.ROOT, "%s,%d,%.3f,%.1f,%.2f,%s,%s,%.2f,%d,%.2f,\"%s\"\n", r.mode(), r.rows(),
                        r.seconds(), r.rowsPerSecond(), r.megabytesPerSecond(), ms(r.p50Micros()), ms(r.p99Micros()),
                        r.clientCpuSeconds(), r.peakHeapMiB(), r.generatorSeconds(), r.status().replace("\"", "'")));
            }
        }
        Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
    }

    private static String jsonMs(long micros) {
        return micros < 0 ? "null" : String.format(Locale.ROOT, "%.3f", micros / 1000.0);
    }

    /**
     * Draws rows/s per mode as a bar chart (PNG).
     *
     * @param file the PNG
     * @param title the chart title
     * @param results the rows
     * @throws IOException on failure
     */
    public static void chart(Path file, String title, List<ModeResult> results) throws IOException {
        System.setProperty("java.awt.headless", "true");
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (ModeResult r : results) {
            data.addValue(r.rowsPerSecond(), "rows/s", r.mode());
        }
        JFreeChart chart = ChartFactory.createBarChart(title, "mode", "rows per second", data,
                PlotOrientation.VERTICAL, false, false, false);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(new File(file.toString()), chart, 800, 500);
    }
}
