package dev.sluice.importer.internal.plan;

import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The mapping options of an import, as given on the command line (source column names, before renaming).
 *
 * @param table the table name
 * @param timeIndex the source column of the time index, or null to infer one (or use the import's time)
 * @param timeFormat the time index's format, or null to infer it
 * @param tags source columns that are tags
 * @param types type overrides by source column
 * @param skip source columns left out
 * @param rename new names by source column
 * @param zone the zone of times without an offset
 * @param tableOptions options for a table the import creates ({@code ttl}, {@code append_mode}...)
 */
public record Mapping(String table, String timeIndex, String timeFormat, List<String> tags,
        Map<String, TypeNames.Type> types, Set<String> skip, Map<String, String> rename, ZoneId zone,
        Map<String, String> tableOptions) {

    /**
     * Returns the target name of a source column.
     *
     * @param source the source column name
     * @return the name in the table
     */
    public String target(String source) {
        return rename.getOrDefault(source, source);
    }
}
