package dev.sluice.connection.edges;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ConnectionConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A size or a duration too large for its setting is a bad value like any other: the string is refused with an
 * {@code IllegalArgumentException} naming the key, never an arithmetic overflow that names nothing.
 */
class OverflowingSizesAndDurationsAreRefusedNamingTheKeyTest {
    private static String outcome(String key, String value) {
        try {
            ConnectionConfig.parse("greptimedb://h/db?" + key + "=" + value);
            return key + "=" + value + " accepted";
        } catch (IllegalArgumentException e) {
            return e.getMessage().contains("'" + key + "'") ? null : key + "=" + value + ": " + e;
        } catch (RuntimeException e) {
            return key + "=" + value + ": " + e;
        }
    }

    @Test
    void sizesBeyondAnIntAndDurationsBeyondALongAreRefusedNamingTheirKey() {
        List<String> wrong = new ArrayList<>();
        for (String[] kv : new String[][] {
                {"max_message_size", "4GiB"},
                {"max_inbound_message_size", "8GiB"},
                {"max_message_size", "3000000000"},
                {"request_timeout", "9223372036854775807h"},
                {"retry_timeout", "9223372036854775807m"},
                {"max_block", "9223372036854775807h"}}) {
            String w = outcome(kv[0], kv[1]);
            if (w != null) {
                wrong.add(w);
            }
        }
        assertTrue(wrong.isEmpty(), "refused without naming the key (or accepted): " + wrong);
    }
}
