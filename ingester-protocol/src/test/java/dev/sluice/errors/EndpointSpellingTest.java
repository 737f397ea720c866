package dev.sluice.errors;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.WriteOk;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Endpoints as users copy them from elsewhere: a gRPC target URI, GreptimeDB's HTTP address, a URL without a port,
 * an address with blanks around it. Each is either used as meant or refused when the options are built, with a
 * suggestion that would work (host:port of the gRPC port).
 */
class EndpointSpellingTest {
    private static String refusal(String endpoint) {
        return assertThrows(IllegalArgumentException.class,
                () -> GreptimeOptions.newBuilder(endpoint, "public")).getMessage();
    }

    @Test
    void aGrpcTargetUriGetsAUsableSuggestion() {
        String m = refusal("dns:///127.0.0.1:4001");
        assertTrue(m.contains("e.g. '127.0.0.1:4001'"), "suggests the host:port inside the URI: " + m);
    }

    @Test
    void greptimesHttpAddressIsNotSuggestedAsTheGrpcEndpoint() {
        String m = refusal("http://127.0.0.1:4000");
        assertFalse(m.contains("e.g. '127.0.0.1:4000'"),
                "4000 is the HTTP port the user pasted; the example to follow must not be it: " + m);
        assertTrue(m.contains("127.0.0.1:4001"), "suggests the gRPC port on that host: " + m);
    }

    @Test
    void aUrlWithoutAPortGetsASuggestionThatIsHostAndPort() {
        String m = refusal("http://db.example");
        assertFalse(m.contains("e.g. 'db.example'"), "the example given is itself refused (not host:port): " + m);
    }

    @Test
    void anEndpointWithBlanksAroundItIsUsedOrRefusedWhenBuilt() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            String padded = " " + server.endpoint() + " ";
            GreptimeOptions options;
            try {
                options = GreptimeOptions.newBuilder(List.of(padded), "public")
                        .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(2)).build()).build();
            } catch (IllegalArgumentException refused) {
                assertTrue(refused.getMessage().contains(padded.trim()), refused.getMessage());
                return;
            }
            try (GreptimeDB db = GreptimeDB.create(options)) {
                TableSchema s = TableSchema.newBuilder("padded").addTag("host", DataType.String)
                        .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
                Result<WriteOk, Err> r = db.write(Table.from(s).addRow("h", 1.0, 1L)).join();
                assertTrue(r.isOk(), () -> "accepted '" + padded + "' when built, then: " + r.getErr());
            }
        }
    }
}
