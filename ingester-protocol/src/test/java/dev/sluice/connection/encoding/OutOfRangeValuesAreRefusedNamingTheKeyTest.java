package dev.sluice.connection.encoding;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ConnectionConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A value its setting cannot take (negative, zero where a positive is needed, a timezone that is neither an offset
 * nor an IANA name) is refused when the string is read, naming its key, for every key: it is not sent to the server
 * to be refused with every write, nor read as the default.
 */
class OutOfRangeValuesAreRefusedNamingTheKeyTest {
    @Test
    void everyOutOfRangeValueIsRefusedNamingItsKey() {
        String[][] cases = {
            {"request_timeout", "request_timeout=0s"},
            {"request_timeout", "request_timeout=PT-5S"},
            {"retry_attempts", "retry_attempts=0"},
            {"retry_attempts", "retry_attempts=-2"},
            {"retry_timeout", "retry_timeout=PT-1S"},
            {"retry_backoff", "retry_backoff=PT-1S"},
            {"health_check_interval", "health_check_interval=PT-1S"},
            {"max_block", "max_block=PT-1S"},
            {"flush_interval", "flush_interval=PT-1S"},
            {"max_in_flight_requests", "max_in_flight_requests=-1"},
            {"max_in_flight_bytes", "max_in_flight_bytes=0"},
            {"max_message_size", "max_message_size=0"},
            {"max_inbound_message_size", "max_inbound_message_size=-1"},
            {"batch_rows", "batch_rows=0"},
            {"batch_bytes", "batch_bytes=0"},
            {"batch_in_flight", "batch_in_flight=0"},
            {"buffer_rows", "buffer_rows=-1"},
            {"timezone", "timezone=Mars/Phobos"},
            {"timezone", "timezone=%2B25:00"},
        };
        List<String> wrong = new ArrayList<>();
        for (String[] c : cases) {
            String s = "greptimedb://db1:4001/public?" + c[1];
            try {
                ConnectionConfig.parse(s);
                wrong.add(c[1] + ": accepted");
            } catch (IllegalArgumentException e) {
                if (!e.getMessage().contains(c[0])) {
                    wrong.add(c[1] + ": refused without naming " + c[0] + ": " + e.getMessage());
                }
            } catch (RuntimeException e) {
                wrong.add(c[1] + ": " + e);
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }
}
