package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** Base of bulk test classes on the shared testkit: each test starts on an empty server and leaves no off-heap memory. */
abstract class BulkTestkitTest extends DefaultTestkitTest {
    @BeforeEach
    void clear() {
        server.clear();
    }

    @AfterEach
    void noOffHeapLeft() {
        assertEquals(0, db.stats().bulkAllocatedBytes(), "every bulk buffer was released");
    }
}
