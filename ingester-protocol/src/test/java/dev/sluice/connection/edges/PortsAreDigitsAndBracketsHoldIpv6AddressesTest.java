package dev.sluice.connection.edges;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ConnectionConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A host's port is 1 to 65535 written in digits, and brackets hold an IPv6 address: anything else is refused when
 * the string is read, naming the host, rather than reaching the client as an endpoint no one wrote.
 */
class PortsAreDigitsAndBracketsHoldIpv6AddressesTest {
    @Test
    void signedOrOutOfRangePortsAndBracketedNonAddressesAreRefusedNamingTheHost() {
        List<String> accepted = new ArrayList<>();
        for (String host : List.of("h:+80", "h:-80", "h:0", "h:65536", "h:99999999999", "[::1]:0", "[::1]:+4001",
                "[zz]:4001", "[db.example.com]:4001")) {
            try {
                ConnectionConfig c = ConnectionConfig.parse("greptimedb://" + host + "/db");
                accepted.add(host + " -> " + c.endpoints());
            } catch (IllegalArgumentException e) {
                if (!e.getMessage().contains(host)) {
                    accepted.add(host + " refused without naming it: " + e.getMessage());
                }
            }
        }
        assertTrue(accepted.isEmpty(), "accepted: " + accepted);
    }
}
