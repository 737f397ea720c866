package dev.sluice.importer.internal.cli;

import dev.sluice.importer.internal.failure.UsageException;
import dev.sluice.importer.internal.plan.TypeNames;
import dev.sluice.importer.internal.run.RunSetup;
import dev.sluice.importer.internal.source.Inputs;
import dev.sluice.sink.internal.SinkSettings;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads the parsed command line into the values the import's setup uses, refusing what is not allowed with a usage
 * error that names the option.
 */
final class OptionReading {
    private final ImportOptions o;

    OptionReading(ImportOptions o) {
        this.o = o;
    }

    void validate() {
        o.resolveConnection();
        if (o.timeoutSeconds <= 0) {
            throw new UsageException("--timeout must be 1 second or more, not " + o.timeoutSeconds);
        }
        if (o.retryDeadlineSeconds <= 0) {
            throw new UsageException("--retry-deadline must be 1 second or more, not " + o.retryDeadlineSeconds);
        }
        if (o.maxErrors != null && !o.onError.equals("skip")) {
            throw new UsageException("--max-errors applies with --on-error skip (the default, abort, stops at the first"
                    + " bad row): add --on-error skip, or leave --max-errors out");
        }
        if (o.maxErrors != null && o.maxErrors < 0) {
            throw new UsageException("--max-errors must be 0 or more, not " + o.maxErrors + " (leave it out for no"
                    + " limit)");
        }
        if (!o.onError.equals("abort") && !o.onError.equals("skip")) {
            throw new UsageException("--on-error must be abort or skip, not '" + o.onError + "'");
        }
        if (!o.path.equalsIgnoreCase("bulk") && !o.path.equalsIgnoreCase("regular")) {
            throw new UsageException("--path must be bulk or regular, not '" + o.path + "'");
        }
        if (!Set.of("fail", "check", "resend", "skip").contains(o.inDoubt)) {
            throw new UsageException("--in-doubt must be fail, check, resend or skip, not '" + o.inDoubt + "'");
        }
        if (o.batch < 1 || o.parallelism < 1 || o.sample < 1 || o.inFlight < 1 || o.inFlight > 31) {
            throw new UsageException("--batch, --parallelism and --sample must be at least 1, --in-flight 1..31");
        }
        if (o.rejects != null && o.onError.equals("abort")) {
            // a rejects file still records the row the import stopped at
            return;
        }
    }

    ZoneId zone() {
        try {
            return ZoneId.of(o.timezone);
        } catch (DateTimeException e) {
            throw new UsageException("--timezone '" + o.timezone + "' is not a zone: use an offset such as +08:00 or a"
                    + " name such as Asia/Shanghai");
        }
    }

    String tableName(List<Inputs.Input> inputs) {
        if (o.table != null) {
            return o.table;
        }
        Inputs.Input first = inputs.get(0);
        if (first.path() == null) {
            throw new UsageException("standard input needs --table");
        }
        String n = first.path().getFileName().toString();
        n = n.replaceAll("(?i)\\.(gz|zst|zstd)$", "").replaceAll("\\.[^.]*$", "");
        n = n.replaceAll("[^A-Za-z0-9_]", "_");
        return n.isEmpty() || Character.isDigit(n.charAt(0)) ? "t_" + n : n;
    }

    static Map<String, String> keyValues(List<String> items, String option) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String kv : items) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new UsageException(option + " takes name=value items, not '" + kv + "'");
            }
            out.put(kv.substring(0, eq).strip(), kv.substring(eq + 1).strip());
        }
        return out;
    }

    Map<String, TypeNames.Type> types() {
        Map<String, TypeNames.Type> out = new LinkedHashMap<>();
        for (String item : o.types) {
            for (String one : splitOutsideParens(item)) {
                int colon = one.lastIndexOf(':');
                if (colon <= 0) {
                    throw new UsageException("--types takes column:Type items, not '" + one + "'");
                }
                try {
                    out.put(one.substring(0, colon).strip(), TypeNames.parse(one.substring(colon + 1)));
                } catch (IllegalArgumentException e) {
                    throw new UsageException("--types " + one + ": " + e.getMessage());
                }
            }
        }
        return out;
    }

    static List<String> splitOutsideParens(String s) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                out.add(s.substring(start, i));
                start = i + 1;
            }
        }
        out.add(s.substring(start));
        out.removeIf(String::isBlank);
        return out;
    }

    String password() {
        return o.password != null ? o.password : System.getenv("SLUICE_PASSWORD");
    }

    String httpEndpoint() {
        if (o.httpEndpoint != null) {
            return o.httpEndpoint;
        }
        String e = o.endpoints.get(0);
        int colon = e.lastIndexOf(':');
        return (colon > 0 ? e.substring(0, colon) : e) + ":4000";
    }

    /**
     * Refuses CSV options that give two roles one character (a quote that is also the delimiter, a comment character
     * that is also the quote...) or a line break, before anything is read.
     *
     * @param formatDelimiter the delimiter of the input's format, when {@code --delimiter} is not given
     */
    void checkCsvCharacters(char formatDelimiter) {
        Map<String, Character> roles = new LinkedHashMap<>();
        if (o.delimiter != null) {
            roles.put("--delimiter", givenDelimiter());
        } else {
            roles.put("--delimiter (default)", formatDelimiter);
        }
        roles.put("--quote", o.quote);
        if (o.comment != null) {
            roles.put("--comment", o.comment);
        }
        if (o.escape != null && o.escape != o.quote) {
            roles.put("--escape", o.escape);
        }
        List<Map.Entry<String, Character>> list = new ArrayList<>(roles.entrySet());
        for (int i = 0; i < list.size(); i++) {
            char c = list.get(i).getValue();
            if (c == '\n' || c == '\r') {
                throw new UsageException(list.get(i).getKey() + " cannot be a line break");
            }
            for (int j = i + 1; j < list.size(); j++) {
                if (list.get(j).getValue() == c) {
                    throw new UsageException(list.get(j).getKey() + " and " + list.get(i).getKey() + " are both '"
                            + (c == '\t' ? "\\t" : String.valueOf(c)) + "': each needs a character of its own");
                }
            }
        }
    }

    char givenDelimiter() {
        String d = o.delimiter.equals("\\t") || o.delimiter.equalsIgnoreCase("tab") ? "\t" : o.delimiter;
        if (d.length() != 1) {
            throw new UsageException("--delimiter must be one character, not '" + o.delimiter + "'");
        }
        return d.charAt(0);
    }

    /**
     * Refuses the column options line protocol has no use for: its points name their own tags, fields and time.
     *
     * @throws UsageException naming the first such option given
     */
    void checkLineProtocolOptions() {
        Map<String, Boolean> given = new java.util.LinkedHashMap<>();
        given.put("--skip", !o.skip.isEmpty());
        given.put("--rename", !o.rename.isEmpty());
        given.put("--types", !o.types.isEmpty());
        given.put("--tags", !o.tags.isEmpty());
        given.put("--time-index", o.timeIndex != null);
        given.put("--time-format", o.timeFormat != null);
        for (Map.Entry<String, Boolean> g : given.entrySet()) {
            if (g.getValue()) {
                throw new UsageException(g.getKey() + " applies to CSV, TSV, JSON Lines and Parquet columns; line"
                        + " protocol points name their own tags, fields and time (--precision gives its unit): leave "
                        + g.getKey() + " out; nothing was sent");
            }
        }
    }

    long precisionUnits() {
        switch (o.precision.toLowerCase(Locale.ROOT)) {
            case "ns": case "n": return 1_000_000_000L;
            case "us": case "u": return 1_000_000L;
            case "ms": return 1_000L;
            case "s": return 1L;
            default: throw new UsageException("--precision must be ns, us, ms or s, not '" + o.precision + "'");
        }
    }

    boolean appendModeAsked(Map<String, String> with) {
        return o.appendMode || "true".equalsIgnoreCase(with.get("append_mode"));
    }

    /**
     * The options of a table created for line protocol: {@code merge_mode=last_non_null} unless the options choose
     * append mode or a merge mode, as GreptimeDB's own InfluxDB write endpoint creates its tables
     * ({@code AutoCreateTableType::LastNonNull} in GreptimeDB's {@code src/operator/src/insert.rs}). So two points of
     * one series and time keep the union of their fields, as InfluxDB keeps them, instead of the later point's nulls
     * hiding the earlier one's fields.
     */
    static Map<String, String> lineProtocolTableOptions(Map<String, String> with, boolean appendMode) {
        if (appendMode || with.containsKey("merge_mode")) {
            return with;
        }
        Map<String, String> options = new java.util.LinkedHashMap<>(with);
        options.put("merge_mode", "last_non_null");
        return options;
    }

    RunSetup.Settings settings() {
        return new RunSetup.Settings(o.batch, o.inFlight, o.parallelism, o.sample, o.onError.equals("skip"), o.maxErrors,
                o.quiet, o.timeoutSeconds);
    }

    SinkSettings target() {
        return o.settings(password());
    }
}
