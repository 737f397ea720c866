package dev.sluice.kafka.connect.connection;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.kafka.connect.GreptimeSinkConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/**
 * {@code greptimedb.connection} beside the connector's own keys: TLS turned off by one and implied by the other is
 * a contradiction refused naming both, and a size or duration too large for its key is a configuration error naming
 * the key; neither shows the string's password.
 */
class TheConnectionStringsContradictionsAndOverflowsAreConfigErrorsTest {
    private static String outcome(Map<String, String> props, String... named) {
        try {
            new GreptimeSinkConfig(props);
            return props + " accepted";
        } catch (ConfigException e) {
            for (String n : named) {
                if (!e.getMessage().contains(n)) {
                    return props + ": refused without naming " + n + ": " + e.getMessage();
                }
            }
            if (e.getMessage().contains("Sup3rSecret")) {
                return props + ": shows the password: " + e.getMessage();
            }
            return null;
        } catch (RuntimeException e) {
            return props + ": " + e;
        }
    }

    @Test
    void tlsOffOneWayAndImpliedTheOtherIsRefusedNamingBoth() {
        List<String> wrong = new ArrayList<>();
        String w = outcome(Map.of(GreptimeSinkConfig.CONNECTION_STRING, "greptimedb://u:Sup3rSecret@h?tls=false",
                GreptimeSinkConfig.TLS_CA, "/etc/ca.pem"), GreptimeSinkConfig.TLS_CA, "tls");
        if (w != null) {
            wrong.add(w);
        }
        w = outcome(Map.of(GreptimeSinkConfig.CONNECTION_STRING, "greptimedb://u:Sup3rSecret@h?tls_ca=/etc/ca.pem",
                GreptimeSinkConfig.TLS_ENABLED, "false"), GreptimeSinkConfig.TLS_ENABLED, "tls_ca");
        if (w != null) {
            wrong.add(w);
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    @Test
    void aSizeTooLargeForItsKeyIsAConfigErrorNamingTheKey() {
        String w = outcome(Map.of(GreptimeSinkConfig.CONNECTION_STRING,
                "greptimedb://u:Sup3rSecret@h?max_message_size=4GiB"), GreptimeSinkConfig.CONNECTION_STRING,
                "'max_message_size'");
        assertTrue(w == null, w);
    }
}
