package dev.sluice.internal.error;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which failures the client sends again. */
class GrpcErrorsTest {
    @Test
    void theDoPutMemoryLimitRejectionIsRetryableThoughItIsInvalidArgument() {
        Throwable t = Status.INVALID_ARGUMENT.withDescription("Request memory limit exceeded: 536870912 bytes")
                .asRuntimeException();
        assertTrue(GrpcErrors.fromThrowable(t, List.of("t")).retryable());
    }

    @Test
    void otherInvalidArgumentsAreNotRetryable() {
        Throwable t = Status.INVALID_ARGUMENT.withDescription("column s expect type String").asRuntimeException();
        assertFalse(GrpcErrors.fromThrowable(t, List.of("t")).retryable());
    }
}
