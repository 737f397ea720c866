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
    void aCallWhoseDeadlinePassedBeforeItStartedNamesTheEndpointItWasFor() {
        // What grpc-java's ClientCallImpl.start reports when the deadline a call was made with has already passed
        // when the call starts (a busy machine between computing the deadline and starting the call).
        Throwable t = Status.DEADLINE_EXCEEDED.withDescription("ClientCall started after CallOptions deadline was"
                + " exceeded -0.006256116 seconds ago. Name resolution delay 0.000000000 seconds.").asRuntimeException();
        dev.sluice.write.Err err = GrpcErrors.fromThrowable(t, List.of("t"), "db1:4001");
        assertTrue(err.message().contains("db1:4001"), err.message());
        assertTrue(err.message().contains("ClientCall started after"), err.message());
        assertTrue(err.retryable());
    }

    @Test
    void otherInvalidArgumentsAreNotRetryable() {
        Throwable t = Status.INVALID_ARGUMENT.withDescription("column s expect type String").asRuntimeException();
        assertFalse(GrpcErrors.fromThrowable(t, List.of("t")).retryable());
    }

    @Test
    void aWriteOnAConnectionThatJustClosedIsATransportFailureAndRetryable() {
        // What grpc-netty reports when a write fails on a channel closing for a reason it does not know yet.
        Throwable t = Status.UNKNOWN.withDescription("Channel closed but for unknown reason")
                .withCause(new java.nio.channels.ClosedChannelException()).asRuntimeException();
        dev.sluice.write.Err err = GrpcErrors.fromThrowable(t, List.of("t"));
        assertTrue(err.retryable());
        assertTrue(GrpcErrors.transportFailure(err));
        org.junit.jupiter.api.Assertions.assertEquals(dev.sluice.write.StatusCode.Grpc.UNAVAILABLE, err.grpcCode());
    }

    @Test
    void anUnknownStatusFromTheServerStaysFinal() {
        io.grpc.Metadata trailers = new io.grpc.Metadata();
        trailers.put(io.grpc.Metadata.Key.of("x-greptime-err-code", io.grpc.Metadata.ASCII_STRING_MARSHALLER), "1003");
        assertFalse(GrpcErrors.fromThrowable(Status.UNKNOWN.withDescription("internal").asRuntimeException(trailers),
                List.of("t")).retryable());
        assertFalse(GrpcErrors.fromThrowable(Status.UNKNOWN.withDescription("boom").asRuntimeException(),
                List.of("t")).retryable());
    }
}
