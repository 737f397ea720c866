package dev.sluice.kafka.connect.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Names the table of a topic: an optional regex rename of the whole topic name, then the {@code ${topic}}
 * template. Names are cached per topic. Not thread-safe (one per task).
 */
public final class TableNamer {
    private final String template;
    private final Pattern regex;
    private final String replacement;
    private final Map<String, String> cache = new HashMap<>();

    /**
     * Creates a namer.
     *
     * @param template text with {@code ${topic}}
     * @param regex a pattern matched against the whole topic, or empty for none
     * @param replacement the replacement of a matching topic ({@code $1} groups allowed)
     */
    public TableNamer(String template, String regex, String replacement) {
        this.template = template;
        this.regex = regex == null || regex.isEmpty() ? null : Pattern.compile(regex);
        this.replacement = replacement;
    }

    /**
     * Returns the table of a topic.
     *
     * @param topic the topic
     * @return the table name (checked later, when the schema is built)
     */
    public String tableFor(String topic) {
        String t = cache.get(topic);
        if (t == null) {
            String base = topic;
            if (regex != null) {
                Matcher m = regex.matcher(topic);
                if (m.matches()) {
                    base = m.replaceAll(replacement);
                }
            }
            t = template.replace("${topic}", base);
            cache.put(topic, t);
        }
        return t;
    }
}
