package dev.sluice.bench.workload;

/** A stateless 64-bit mixer: a cheap, repeatable pseudo-random value for (seed, row, salt). */
final class SplitMix {
    private SplitMix() {
    }

    static long mix(long seed, long row, long salt) {
        long z = seed * 0x9E3779B97F4A7C15L + row * 0xBF58476D1CE4E5B9L + salt * 0x94D049BB133111EBL;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** A double in [0, 1). */
    static double unit(long seed, long row, long salt) {
        return (mix(seed, row, salt) >>> 11) * 0x1.0p-53;
    }

    /** An int in [0, bound). */
    static int below(long seed, long row, long salt, int bound) {
        return (int) Long.remainderUnsigned(mix(seed, row, salt), bound);
    }
}
