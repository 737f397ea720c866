package dev.sluice.fault;

import org.junit.jupiter.api.Test;

/**
 * Every path with the client's default settings stores every row when every tenth request is rate limited:
 * {@code stored == acknowledged == sent}, counted from the futures and the testkit's stored rows.
 */
class DefaultDeliveryUnderRateLimitsTest extends DefaultDeliveryKit {
    @Test
    void regularStoresEveryRowWhenEveryTenthRequestIsRateLimited() {
        everyTenthRequestRateLimited(Path.REGULAR);
    }

    @Test
    void streamStoresEveryRowWhenEveryTenthRequestIsRateLimited() {
        everyTenthRequestRateLimited(Path.STREAM);
    }

    @Test
    void bulkStoresEveryRowWhenEveryTenthRequestIsRateLimited() {
        everyTenthRequestRateLimited(Path.BULK);
    }

    @Test
    void batchingOverRegularStoresEveryRowWhenEveryTenthRequestIsRateLimited() {
        everyTenthRequestRateLimited(Path.BATCHING_REGULAR);
    }

    @Test
    void batchingOverBulkStoresEveryRowWhenEveryTenthRequestIsRateLimited() {
        everyTenthRequestRateLimited(Path.BATCHING_BULK);
    }
}
