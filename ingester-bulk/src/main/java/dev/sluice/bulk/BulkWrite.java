package dev.sluice.bulk;

import dev.sluice.write.WhenFull;

/** Settings of a {@link BulkStreamWriter}. */
public final class BulkWrite {
    private BulkWrite() {
    }

    /**
     * Immutable bulk writer settings.
     *
     * <table>
     *   <caption>Options</caption>
     *   <tr><th>option</th><th>default</th><th>meaning</th></tr>
     *   <tr><td>allocatorInitReservation</td><td>0</td><td>off-heap bytes reserved for the writer up front</td></tr>
     *   <tr><td>allocatorMaxAllocation</td><td>1 GiB</td><td>off-heap bytes the writer's batches may use; a batch
     *       growing past it fails with an error naming the limit. The writer keeps two sets of vectors, one filled
     *       while the other is sent; when the cap leaves no room for the second, each batch is copied to the heap
     *       for sending instead</td></tr>
     *   <tr><td>requestTimeout</td><td>60 s</td><td>how long a batch may wait for its answer on one stream;
     *       then the stream is cancelled and, as the retry policy allows, its unanswered batches are resent on a
     *       new one</td></tr>
     *   <tr><td>maxInFlightRequests</td><td>8</td><td>unanswered batches allowed, 1..31 (the server drops
     *       answers beyond 32 unsent)</td></tr>
     *   <tr><td>whenFull</td><td>Block</td><td>when every slot is taken: wait up to {@code maxBlock} for one,
     *       or fail at once</td></tr>
     *   <tr><td>maxBlock</td><td>60 s</td><td>longest wait of {@code writeNext()} for a free slot under
     *       {@link WhenFull#Block}</td></tr>
     *   <tr><td>createTable</td><td>true</td><td>create the table (if missing) before streaming: the open-source
     *       server does not create tables on this path</td></tr>
     * </table>
     */
    public static final class Config {
        private final long allocatorInitReservation;
        private final long allocatorMaxAllocation;
        private final java.time.Duration requestTimeout;
        private final int maxInFlightRequests;
        private final WhenFull whenFull;
        private final java.time.Duration maxBlock;
        private final boolean createTable;

        private Config(Builder b) {
            this.allocatorInitReservation = b.allocatorInitReservation;
            this.allocatorMaxAllocation = b.allocatorMaxAllocation;
            this.requestTimeout = b.requestTimeout;
            this.maxInFlightRequests = b.maxInFlightRequests;
            this.whenFull = b.whenFull;
            this.maxBlock = b.maxBlock;
            this.createTable = b.createTable;
        }

        /**
         * Starts a builder with the defaults.
         *
         * @return a builder
         */
        public static Builder newBuilder() {
            return new Builder();
        }

        /** @return bytes reserved up front */
        public long allocatorInitReservation() {
            return allocatorInitReservation;
        }

        /** @return the off-heap cap in bytes */
        public long allocatorMaxAllocation() {
            return allocatorMaxAllocation;
        }

        /** @return how long a batch may wait for its answer on one stream */
        public java.time.Duration requestTimeout() {
            return requestTimeout;
        }

        /** @return unanswered batches allowed */
        public int maxInFlightRequests() {
            return maxInFlightRequests;
        }

        /** @return the policy when every slot is taken */
        public WhenFull whenFull() {
            return whenFull;
        }

        /** @return the longest wait for a free slot under {@link WhenFull#Block} */
        public java.time.Duration maxBlock() {
            return maxBlock;
        }

        /**
         * Starts a builder holding this config's values.
         *
         * @return a builder
         */
        public Builder toBuilder() {
            return new Builder().allocatorInitReservation(allocatorInitReservation)
                    .allocatorMaxAllocation(allocatorMaxAllocation).requestTimeout(requestTimeout)
                    .maxInFlightRequests(maxInFlightRequests).whenFull(whenFull).maxBlock(maxBlock)
                    .createTable(createTable);
        }

        /** @return whether the writer creates a missing table first */
        public boolean createTable() {
            return createTable;
        }



        @Override
        public String toString() {
            return "BulkWrite.Config{initReservation=" + allocatorInitReservation + ", maxAllocation=" + allocatorMaxAllocation
                    + ", requestTimeout=" + requestTimeout + ", maxInFlightRequests=" + maxInFlightRequests
                    + ", whenFull=" + whenFull + ", maxBlock=" + maxBlock + ", createTable=" + createTable + '}';
        }

        /** Builder for {@link Config}. */
        public static final class Builder {
            private long allocatorInitReservation;
            private long allocatorMaxAllocation = 1L << 30;
            private java.time.Duration requestTimeout = java.time.Duration.ofSeconds(60);
            private int maxInFlightRequests = 8;
            private WhenFull whenFull = WhenFull.Block;
            private java.time.Duration maxBlock = java.time.Duration.ofSeconds(60);
            private boolean createTable = true;

            private Builder() {
            }


            /**
             * Sets the up-front reservation.
             *
             * @param bytes 0 or more, at most the max allocation
             * @return this
             */
            public Builder allocatorInitReservation(long bytes) {
                if (bytes < 0) {
                    throw new IllegalArgumentException("allocatorInitReservation must be >= 0");
                }
                this.allocatorInitReservation = bytes;
                return this;
            }

            /**
             * Sets the off-heap cap.
             *
             * @param bytes a positive size
             * @return this
             */
            public Builder allocatorMaxAllocation(long bytes) {
                if (bytes <= 0) {
                    throw new IllegalArgumentException("allocatorMaxAllocation must be positive");
                }
                this.allocatorMaxAllocation = bytes;
                return this;
            }

            /**
             * Sets how long a batch may wait for its answer on one stream.
             *
             * @param timeout a positive duration
             * @return this
             */
            public Builder requestTimeout(java.time.Duration timeout) {
                if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                    throw new IllegalArgumentException("requestTimeout must be positive");
                }
                this.requestTimeout = timeout;
                return this;
            }

            /**
             * Sets how many batches may be unanswered.
             *
             * @param n 1..31
             * @return this
             */
            public Builder maxInFlightRequests(int n) {
                if (n < 1 || n > 31) {
                    throw new IllegalArgumentException("maxInFlightRequests must be within 1..31: GreptimeDB keeps at"
                            + " most 32 unsent answers and silently drops the rest; got " + n);
                }
                this.maxInFlightRequests = n;
                return this;
            }

            /**
             * Sets the longest wait of {@code writeNext()} for a free slot under {@link WhenFull#Block}.
             *
             * @param wait zero or positive (default 60 s)
             * @return this
             */
            public Builder maxBlock(java.time.Duration wait) {
                if (wait == null || wait.isNegative()) {
                    throw new IllegalArgumentException("maxBlock must be zero or positive");
                }
                this.maxBlock = wait;
                return this;
            }

            /**
             * Sets the policy when every slot is taken.
             *
             * @param policy block (bounded) or fail fast
             * @return this
             */
            public Builder whenFull(WhenFull policy) {
                this.whenFull = java.util.Objects.requireNonNull(policy, "policy");
                return this;
            }

            /**
             * Chooses whether a missing table is created before streaming.
             *
             * @param create true (default) to create it
             * @return this
             */
            public Builder createTable(boolean create) {
                this.createTable = create;
                return this;
            }

            /**
             * Builds the settings.
             *
             * @return the config
             * @throws IllegalArgumentException when the reservation exceeds the cap
             */
            public Config build() {
                if (allocatorInitReservation > allocatorMaxAllocation) {
                    throw new IllegalArgumentException("allocatorInitReservation exceeds allocatorMaxAllocation");
                }
                return new Config(this);
            }
        }
    }
}
