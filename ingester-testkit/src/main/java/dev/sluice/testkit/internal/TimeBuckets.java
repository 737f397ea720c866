package dev.sluice.testkit.internal;

import dev.sluice.data.DataType;

/**
 * The time range a region can hold. GreptimeDB's memtable keeps rows in time partitions of one day
 * ({@code INITIAL_TIME_WINDOW}): a row's partition starts at its time in seconds aligned down to the day, and that
 * start and the partition's end (start plus a day) must both fit in an i64 in the time index's unit; a write with
 * a row whose partition does not fit is refused as an invalid request of the region (1004). The checks and wording
 * follow src/mito2/src/memtable/time_partition.rs (GreptimeDB 1.2): {@code partition_start_timestamp} and
 * {@code PartTimeRange::from_start_duration} on the row path ({@code write_multi_parts}), and
 * {@code find_partitions_by_time_range} on the bulk path; timestamps print as {@code <value>::<Unit>}
 * (src/common/time/src/timestamp.rs, Debug) and the bucket as Rust prints a Duration ({@code 86400s}).
 */
public final class TimeBuckets {
    private static final long DAY = 86_400;
    private static final String BUCKET = "86400s";

    private TimeBuckets() {
    }

    /**
     * Checks the rows of one region write through the row path.
     *
     * @param unit the time index's type
     * @param times the rows' time index values in that unit
     * @return the reason the region refuses the write, or null when every row fits
     */
    public static String rowWriteRefusal(DataType unit, long[] times) {
        for (long ts : times) {
            if (start(unit, Math.floorDiv(Math.floorDiv(ts, unit.unitsPerSecond()), DAY)) == null) {
                return "timestamp " + debug(ts, unit) + " and bucket " + BUCKET + " are out of range";
            }
        }
        return partitionRefusal(unit, times);
    }

    /**
     * Checks the rows of one bulk (Arrow) write.
     *
     * @param unit the time index's type
     * @param times the rows' time index values in that unit
     * @return the reason the region refuses the write, or null when every row fits
     */
    public static String bulkWriteRefusal(DataType unit, long[] times) {
        if (times.length == 0) {
            return null;
        }
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (long ts : times) {
            min = Math.min(min, ts);
            max = Math.max(max, ts);
        }
        long per = unit.unitsPerSecond();
        long first = Math.floorDiv(Math.floorDiv(min, per), DAY);
        long last = Math.floorDiv(Math.floorDiv(max, per), DAY);
        if (last - first + 1 <= times.length) {
            // Every day bucket from the earliest to the latest, its start printed as the bucket's number.
            for (long bucket = first; bucket <= last; bucket++) {
                if (start(unit, bucket) == null) {
                    return "Timestamp out of range: " + bucket;
                }
            }
        } else {
            for (long ts : times) {
                if (start(unit, Math.floorDiv(Math.floorDiv(ts, per), DAY)) == null) {
                    return "Timestamp out of range: " + debug(ts, unit);
                }
            }
        }
        return partitionRefusal(unit, times);
    }

    /** The partition of some row ends past what the unit can hold. */
    private static String partitionRefusal(DataType unit, long[] times) {
        for (long ts : times) {
            long bucket = Math.floorDiv(Math.floorDiv(ts, unit.unitsPerSecond()), DAY);
            Long start = start(unit, bucket);
            if (start != null && end(unit, bucket) == null) {
                return "Partition time range for " + debug(start, unit) + " is out of bound, bucket size: " + BUCKET;
            }
        }
        return null;
    }

    /** A day bucket's start in the unit, or null when it does not fit. */
    private static Long start(DataType unit, long bucket) {
        try {
            return Math.multiplyExact(Math.multiplyExact(bucket, DAY), unit.unitsPerSecond());
        } catch (ArithmeticException overflow) {
            return null;
        }
    }

    /** A day bucket's (exclusive) end in the unit, or null when it does not fit. */
    private static Long end(DataType unit, long bucket) {
        try {
            return Math.multiplyExact(Math.addExact(Math.multiplyExact(bucket, DAY), DAY), unit.unitsPerSecond());
        } catch (ArithmeticException overflow) {
            return null;
        }
    }

    private static String debug(long value, DataType unit) {
        String name;
        switch (unit) {
            case TimestampSecond: name = "Second"; break;
            case TimestampMillisecond: name = "Millisecond"; break;
            case TimestampMicrosecond: name = "Microsecond"; break;
            default: name = "Nanosecond";
        }
        return value + "::" + name;
    }
}
