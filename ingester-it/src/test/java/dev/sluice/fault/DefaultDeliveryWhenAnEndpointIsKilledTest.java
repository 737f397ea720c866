package dev.sluice.fault;

import org.junit.jupiter.api.Test;

/**
 * Every path with the client's default settings moves to the surviving endpoint when one of two is killed mid-run:
 * {@code stored == acknowledged} and {@code acknowledged + failed == sent}.
 */
class DefaultDeliveryWhenAnEndpointIsKilledTest extends DefaultDeliveryKit {
    @Test
    void regularMovesToTheSurvivorWhenOneOfTwoEndpointsIsKilled() {
        oneOfTwoEndpointsKilled(Path.REGULAR);
    }

    @Test
    void streamMovesToTheSurvivorWhenOneOfTwoEndpointsIsKilled() {
        oneOfTwoEndpointsKilled(Path.STREAM);
    }

    @Test
    void bulkMovesToTheSurvivorWhenOneOfTwoEndpointsIsKilled() {
        oneOfTwoEndpointsKilled(Path.BULK);
    }

    @Test
    void batchingOverRegularMovesToTheSurvivorWhenOneOfTwoEndpointsIsKilled() {
        oneOfTwoEndpointsKilled(Path.BATCHING_REGULAR);
    }

    @Test
    void batchingOverBulkMovesToTheSurvivorWhenOneOfTwoEndpointsIsKilled() {
        oneOfTwoEndpointsKilled(Path.BATCHING_BULK);
    }
}
