package dev.sluice.errorkind;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.write.Err;
import dev.sluice.write.ErrorKind;
import dev.sluice.write.StatusCode;
import dev.sluice.write.StatusCode.Grpc;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every GreptimeDB status code is classified once, as data, setup or transient, and every user of the client reads
 * the same answer from {@link Err#kind()}.
 */
class EveryStatusCodeHasOneKindTest {
    /** The expected kind of each code answered without the retryable hint. */
    private static final Map<StatusCode, ErrorKind> EXPECTED = new EnumMap<>(StatusCode.class);

    static {
        for (StatusCode c : List.of(StatusCode.Unknown, StatusCode.Unexpected, StatusCode.Internal,
                StatusCode.InvalidArguments, StatusCode.InvalidSyntax, StatusCode.PlanQuery,
                StatusCode.EngineExecuteQuery, StatusCode.TableColumnNotFound, StatusCode.TableColumnExists)) {
            EXPECTED.put(c, ErrorKind.Data);
        }
        for (StatusCode c : List.of(StatusCode.Unsupported, StatusCode.TableAlreadyExists, StatusCode.TableNotFound,
                StatusCode.DatabaseNotFound, StatusCode.RegionAlreadyExists, StatusCode.DatabaseAlreadyExists,
                StatusCode.UserNotFound, StatusCode.UnsupportedPasswordType, StatusCode.UserPasswordMismatch,
                StatusCode.AuthHeaderNotFound, StatusCode.InvalidAuthHeader, StatusCode.AccessDenied,
                StatusCode.PermissionDenied)) {
            EXPECTED.put(c, ErrorKind.Setup);
        }
        for (StatusCode c : List.of(StatusCode.Cancelled, StatusCode.IllegalState, StatusCode.External,
                StatusCode.DeadlineExceeded, StatusCode.Suspended, StatusCode.RegionNotFound,
                StatusCode.RegionReadonly, StatusCode.RegionNotReady, StatusCode.RegionBusy,
                StatusCode.TableUnavailable, StatusCode.StorageUnavailable, StatusCode.RequestOutdated,
                StatusCode.RuntimeResourcesExhausted, StatusCode.RateLimited)) {
            EXPECTED.put(c, ErrorKind.Transient);
        }
    }

    private static Err err(int code, Grpc grpc, boolean retryable, String message) {
        return new Err(code, grpc, message, retryable, List.of("t"), null);
    }

    @Test
    void everyCodeButSuccessIsDecided() {
        EnumSet<StatusCode> undecided = EnumSet.allOf(StatusCode.class);
        undecided.removeAll(EXPECTED.keySet());
        assertEquals(EnumSet.of(StatusCode.Success), undecided);
    }

    @Test
    void eachCodeWithoutTheRetryHintHasItsKind() {
        for (Map.Entry<StatusCode, ErrorKind> e : EXPECTED.entrySet()) {
            StatusCode c = e.getKey();
            assertEquals(e.getValue(), err(c.code(), c.grpcCode(), false, "refused").kind(), c.name());
        }
    }

    @Test
    void anyCodeMarkedRetryableIsTransient() {
        for (StatusCode c : StatusCode.values()) {
            assertEquals(ErrorKind.Transient, err(c.code(), c.grpcCode(), true, "try later").kind(), c.name());
        }
    }

    @Test
    void invalidArgumentsNamingADatabaseATableOptionOrAForbiddenCreateIsSetupAndAnyOtherIsData() {
        int code = StatusCode.InvalidArguments.code();
        Grpc grpc = Grpc.INVALID_ARGUMENT;
        assertEquals(ErrorKind.Setup, err(code, grpc, false, "Failed to find schema, schema info: nowhere").kind());
        assertEquals(ErrorKind.Setup, err(code, grpc, false, "Failed to parse table option, key: ttl, value: 7x")
                .kind());
        assertEquals(ErrorKind.Setup, err(code, grpc, false, "Invalid InsertRequest, reason: Table `t` does not exist,"
                + " and `auto_create_table` hint is disabled").kind());
        assertEquals(ErrorKind.Data, err(code, grpc, false, "column f0 expect type Float64(Float64Type), given:"
                + " INT64(4)").kind());
        assertEquals(ErrorKind.Data, err(code, grpc, false, null).kind());
    }

    @Test
    void withoutACodeTheGrpcStatusDecides() {
        Map<Grpc, ErrorKind> expected = new EnumMap<>(Grpc.class);
        for (Grpc g : Grpc.values()) {
            expected.put(g, ErrorKind.Data);
        }
        for (Grpc g : List.of(Grpc.UNAUTHENTICATED, Grpc.PERMISSION_DENIED, Grpc.UNIMPLEMENTED, Grpc.NOT_FOUND)) {
            expected.put(g, ErrorKind.Setup);
        }
        for (Grpc g : List.of(Grpc.UNAVAILABLE, Grpc.RESOURCE_EXHAUSTED, Grpc.DEADLINE_EXCEEDED, Grpc.CANCELLED,
                Grpc.ABORTED)) {
            expected.put(g, ErrorKind.Transient);
        }
        for (Grpc g : Grpc.values()) {
            assertEquals(expected.get(g), err(-1, g, false, "auth failed").kind(), "-1 " + g);
            assertEquals(expected.get(g), err(0, g, false, "odd").kind(), "0 " + g);
            assertEquals(expected.get(g), err(9999, g, false, "a newer code").kind(), "9999 " + g);
        }
        assertEquals(ErrorKind.Transient, err(-1, Grpc.INTERNAL, true, "connection reset").kind());
    }
}
