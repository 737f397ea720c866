package dev.sluice.importer.internal.plan;

import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.importer.internal.failure.UsageException;
import java.util.ArrayList;
import java.util.List;

/**
 * Widening: a plan with one more column, for a source column the sample did not show (the regular path adds it with
 * its first write).
 */
public final class Widening {
    private Widening() {
    }

    /**
     * Returns a plan with one more field column, for a JSON key first seen after the sample (regular path, which
     * adds the column with its first write). Its type is inferred from the first value, as the sample's are.
     *
     * @param plan the plan
     * @param source the source column (the key)
     * @param value its first non-null value
     * @return the extended plan
     * @throws UsageException when the new column does not make a valid schema
     */
    public static Plan withField(Plan plan, String source, Object value) {
        return withColumn(plan, source, List.of(value));
    }

    /**
     * Returns a plan with one more column, for a source column of a later input that the sampled one lacks
     * (regular path, which adds the column with its first write). Its type is inferred from that input's sampled
     * values as the first input's are; it is a tag when {@code --tags} names it.
     *
     * @param plan the plan
     * @param source the source column
     * @param values its sampled values (nulls allowed)
     * @return the extended plan
     * @throws UsageException when the new column does not make a valid schema
     */
    public static Plan withColumn(Plan plan, String source, List<Object> values) {
        Mapping mapping = plan.mapping();
        TypeInference st = new TypeInference();
        Object first = null;
        for (Object v : values) {
            if (v != null) {
                st.add(v, mapping.zone());
                first = first == null ? v : first;
            }
        }
        TypeNames.Type t = mapping.types().get(source);
        if (t == null) {
            t = st.type(plan.jsonSource(), first);
        }
        SemanticType sem = mapping.tags().contains(source) ? SemanticType.Tag : SemanticType.Field;
        List<Plan.Col> more = new ArrayList<>(plan.cols());
        more.add(new Plan.Col(mapping.target(source), source, sem, t,
                t.type().isTimestamp() ? TimeFormat.parse("iso", mapping.zone()) : null));
        TableSchema extended;
        try {
            extended = Plan.schemaOf(plan.schema().tableName(), more);
        } catch (IllegalArgumentException e) {
            throw new UsageException("key '" + source + "' cannot be added as a column: " + e.getMessage());
        }
        List<String> added = new ArrayList<>(plan.newColumns());
        added.add(mapping.target(source));
        return new Plan(extended, more, plan.importTime(), added, plan.tableExists(), mapping, plan.jsonSource());
    }
}
