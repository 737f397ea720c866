package dev.sluice.sink.internal;

import dev.sluice.ConnectionConfig;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The rule every integration keeps for a connection string given beside its own options: the string supplies what
 * it names, and an option that sets the same thing is refused, naming both, instead of one silently winning.
 */
public final class ConnectionOverlap {
    /** What the string calls its host list (always given). */
    public static final String HOSTS = "its hosts";
    /** What the string calls its database (always given: {@code public} when it names none). */
    public static final String DATABASE = "its /database";
    /** What the string calls its user. */
    public static final String USER = "its user@";
    /**
     * What the string calls its password ({@code user:password@}): a password given beside a string naming only its
     * user ({@code user@}) sets nothing the string sets, and is that user's password.
     */
    public static final String PASSWORD = "its user:password@";

    private ConnectionOverlap() {
    }

    /**
     * Reads a connection string given as an integration's option.
     *
     * @param connection how the user gave the string, e.g. {@code option 'connection'}
     * @param text the string
     * @return its settings
     * @throws IllegalArgumentException naming the option and the part of the string that is wrong
     */
    public static ConnectionConfig parse(String connection, String text) {
        try {
            return ConnectionConfig.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(connection + ": " + e.getMessage(), e);
        }
    }

    /**
     * A setting given beside the string that the string sets too.
     *
     * @param setting the setting as the user names it
     * @param inString what the string calls it
     */
    public record Clash(String setting, String inString) {
    }

    /**
     * Finds the first setting given beside the string that the string sets too, for an integration that words the
     * refusal itself (see {@link #refuse} for the arguments).
     *
     * @param c the string's settings
     * @param settings each setting the string can also set, with what the string calls it
     * @param given whether the user gave a setting (defaults do not count)
     * @return the clash, or empty when there is none
     */
    public static Optional<Clash> clash(ConnectionConfig c, Map<String, List<String>> settings,
                                        Predicate<String> given) {
        for (Map.Entry<String, List<String>> e : settings.entrySet()) {
            for (String inString : e.getValue()) {
                boolean set = switch (inString) {
                    case HOSTS, DATABASE -> true;
                    case USER -> c.hasUser();
                    case PASSWORD -> c.hasPassword();
                    default -> c.has(inString);
                };
                if (set && given.test(e.getKey())) {
                    return Optional.of(new Clash(e.getKey(), inString));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Refuses a setting given beside the string that the string sets too.
     *
     * @param c the string's settings
     * @param connection how the user gave the string, e.g. {@code option 'connection'}
     * @param settings each setting the string can also set, as the user names it (e.g. {@code option 'tls.enabled'}
     *     or {@code retry(...)}), with what the string calls it: keys such as {@code tls}, or {@link #HOSTS},
     *     {@link #DATABASE}, {@link #USER}, {@link #PASSWORD}
     * @param given whether the user gave a setting (defaults do not count)
     * @throws IllegalArgumentException naming the setting and the string's key
     */
    public static void refuse(ConnectionConfig c, String connection, Map<String, List<String>> settings,
                              Predicate<String> given) {
        clash(c, settings, given).ifPresent(x -> {
            throw new IllegalArgumentException(x.setting() + " is set, and " + connection + " sets it too ("
                    + x.inString() + "): keep one of them");
        });
    }

    /**
     * Refuses {@code ordered_per_table=false} in the string for an integration that keeps one batch of a table in
     * flight at a time whatever the string says ({@link SinkClients#open(SinkSettings,
     * dev.sluice.metrics.MetricsSink, boolean)} with {@code orderedPerTable}), so the key is refused rather than
     * silently overridden.
     *
     * @param c the string's settings
     * @param connection how the user gave the string, e.g. {@code option 'connection'}
     * @param why why the integration keeps the order, completing "the integration keeps one batch of a table in
     *     flight at a time ..."
     * @throws IllegalArgumentException naming the key
     */
    public static void refuseUnordered(ConnectionConfig c, String connection, String why) {
        if (c.has("ordered_per_table") && !c.batching().orderedPerTable()) {
            throw new IllegalArgumentException("key 'ordered_per_table' of " + connection + " is false, and this"
                    + " integration keeps one batch of a table in flight at a time " + why
                    + ": drop the key (true is the only value it takes)");
        }
    }

    /**
     * Refuses hints given beside the string that the string sets too ({@code hint.<name>}).
     *
     * @param c the string's settings
     * @param connection how the user gave the string, e.g. {@code option 'connection'}
     * @param hints how the user gave the hints, e.g. {@code option 'hints'}
     * @param names the hints' names
     * @throws IllegalArgumentException naming the hint and both settings
     */
    public static void refuseHints(ConnectionConfig c, String connection, String hints, Collection<String> names) {
        for (String name : names) {
            if (c.has("hint." + name)) {
                throw new IllegalArgumentException("hint '" + name + "' is set by " + hints + ", and " + connection
                        + " sets it too (hint." + name + "): keep one of them");
            }
        }
    }
}
