package dev.sluice.internal.send;

import io.grpc.Channel;
import java.util.function.Supplier;

/**
 * Where the attempts of every write path go, and what each attempt's end tells about its endpoint: unary writes,
 * streams and bulk batches choose their endpoint here and report here, so that an endpoint failing for one path is
 * avoided and ejected for all of them. The client's {@code Endpoints} is the one implementation.
 */
public interface Route {
    /**
     * Chooses the endpoint of the next attempt.
     *
     * @param avoid the endpoint of the attempt that just failed, skipped when another is available; or null
     * @return the endpoint
     */
    Target next(Target avoid);

    /** One endpoint, as an attempt sees it. */
    interface Target {
        /**
         * Returns the endpoint's {@code host:port}, named in transport failures.
         *
         * @return the address
         */
        String address();

        /**
         * Returns the endpoint's shared channel, carrying the client's headers.
         *
         * @return the channel
         */
        Channel channel();

        /** An attempt reached the server, whatever the server answered: the endpoint is alive. */
        void reached();

        /**
         * An attempt failed in the transport (refused, reset, unreachable): counts towards ejecting the endpoint.
         *
         * @param cause what failed, naming the endpoint and the root cause
         * @param next what the client does about it, said with the first failure of a run
         */
        void transportFailed(String cause, Supplier<String> next);
    }
}
