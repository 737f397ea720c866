package dev.sluice.connection.edges;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ConnectionConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A key written with an empty value ({@code tls_ca=}) names no file and no host: it is refused when the string is
 * read, naming the key, instead of turning TLS on with an empty trust file or an empty expected server name.
 */
class EmptyPathsAndNamesAreRefusedNamingTheKeyTest {
    @Test
    void emptyTlsFilesAndServerNamesAreRefusedNamingTheKey() {
        List<String> accepted = new ArrayList<>();
        for (String key : List.of("tls_ca", "tls_server_name")) {
            try {
                ConnectionConfig c = ConnectionConfig.parse("greptimedb://h/db?" + key + "=");
                accepted.add(key + "= accepted, giving " + c.options().tls());
            } catch (IllegalArgumentException e) {
                if (!e.getMessage().contains("'" + key + "'")) {
                    accepted.add(key + "= refused without naming it: " + e.getMessage());
                }
            }
        }
        try {
            ConnectionConfig c = ConnectionConfig.parse("greptimedb://h/db?tls_cert=&tls_key=");
            accepted.add("tls_cert=&tls_key= accepted, giving " + c.options().tls());
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().contains("'tls_cert'") && !e.getMessage().contains("'tls_key'")) {
                accepted.add("tls_cert=&tls_key= refused without naming them: " + e.getMessage());
            }
        }
        assertTrue(accepted.isEmpty(), String.join("; ", accepted));
    }
}
