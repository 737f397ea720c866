package dev.sluice.testkit;

import dev.sluice.write.StatusCode;
import java.util.List;
import java.util.Map;

/**
 * One request the testkit received, as a test would want to check it.
 *
 * @param method the gRPC method's short name: {@code Handle}, {@code HandleRequests} (one record per message),
 *     {@code HealthCheck} or {@code DoPut}
 * @param kind {@code insert}, {@code delete}, {@code ddl}, {@code health}, {@code bulk} or {@code other}
 * @param database the database the server resolved (empty when it could not)
 * @param username the basic-auth user sent in the request header, or null
 * @param timezone the request header's timezone ("" when none)
 * @param hints the hints read from {@code x-greptime-hints} and {@code x-greptime-hint-*}
 * @param metadata every ASCII request header (authorization values included, as sent)
 * @param tables tables addressed, in request order
 * @param rows rows carried by the request
 * @param outcome {@link StatusCode#Success} or the code the testkit answered with (null when never answered, and for a request held by {@link Faults#hold} before storing)
 */
public record RecordedRequest(String method, String kind, String database, String username, String timezone,
                              Map<String, String> hints, Map<String, String> metadata, List<String> tables,
                              int rows, StatusCode outcome) {
}
