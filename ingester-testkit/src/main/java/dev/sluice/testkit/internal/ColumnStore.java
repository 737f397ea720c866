package dev.sluice.testkit.internal;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import java.math.BigInteger;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One table column's values by row position, held as columns rather than row objects so that millions of
 * retained rows fit in a test JVM: numbers, booleans, dates and times in {@code long} chunks, tag strings as
 * dictionary ids in chunks as narrow as the dictionary allows, everything else as object references. NULLs are
 * a sparse bit set. Values go in and come out as the types {@code GreptimeTestServer.rows()} documents.
 */
final class ColumnStore {
    private static final int SHIFT = 12;
    private static final int CHUNK = 1 << SHIFT;
    private static final int MASK = CHUNK - 1;

    private enum Kind { LONG, DICT, OBJECT }

    final TableSchema.Column column;
    private final Kind kind;
    /** Positions before this one predate the column (added later) and read as NULL. */
    private final int first;
    private final BitSet nulls = new BitSet();
    /** Number chunks: {@code int[]} offsets from the chunk's base while they fit, else {@code long[]}. */
    private Object[] longs = new Object[0];
    private long[] bases = new long[0];
    private Object[][] objects = new Object[0][];
    /** Dictionary ids, one byte, short or int per row: as wide as the dictionary's size needs. */
    private Object[] ids = new Object[0];
    private int idWidth = 1;
    private final Map<Object, Integer> dictionary;
    private final List<Object> dictionaryValues;

    ColumnStore(TableSchema.Column column, int first) {
        this.column = column;
        this.first = first;
        DataType t = column.dataType();
        if (t == DataType.String && column.semanticType() == dev.sluice.data.SemanticType.Tag) {
            kind = Kind.DICT;
            dictionary = new HashMap<>();
            dictionaryValues = new ArrayList<>();
        } else {
            kind = t == DataType.Binary || t == DataType.Json || t == DataType.String || t == DataType.Decimal128
                    || t == DataType.Vector ? Kind.OBJECT : Kind.LONG;
            dictionary = null;
            dictionaryValues = null;
        }
    }

    /** Stores a value (null for NULL) at a position; positions are written in increasing order. */
    void set(int pos, Object value) {
        int chunk = pos >>> SHIFT;
        if (value == null) {
            nulls.set(pos);
            return;
        }
        nulls.clear(pos);
        switch (kind) {
            case LONG:
                setLong(pos, encode(value));
                break;
            case DICT:
                setId(pos, id(value));
                break;
            default:
                if (chunk >= objects.length) {
                    objects = Arrays.copyOf(objects, chunk + 1);
                }
                if (objects[chunk] == null) {
                    objects[chunk] = new Object[CHUNK];
                }
                objects[chunk][pos & MASK] = value;
        }
    }

    /** Reads the value at a position, as {@code rows()} hands it out (byte arrays copied). */
    Object get(int pos) {
        if (pos < first || nulls.get(pos)) {
            return null;
        }
        int chunk = pos >>> SHIFT;
        switch (kind) {
            case LONG:
                return chunk < longs.length && longs[chunk] != null ? decode(longAt(pos)) : null;
            case DICT:
                return chunk < ids.length && ids[chunk] != null ? dictionaryValues.get(idAt(pos)) : null;
            default:
                Object v = chunk < objects.length && objects[chunk] != null ? objects[chunk][pos & MASK] : null;
                if (v instanceof byte[] && column.dataType() == DataType.Vector) {
                    float[] elements = ServerTypes.vectorElements((byte[]) v, column.vectorType().dim());
                    if (elements != null) {
                        return elements;
                    }
                }
                return v instanceof byte[] ? ((byte[]) v).clone() : v;
        }
    }

    /** Hash of the key value at a position, equal for equal values; see {@link #sameKey}. */
    int keyHash(int pos) {
        if (pos < first || nulls.get(pos)) {
            return 0;
        }
        int chunk = pos >>> SHIFT;
        switch (kind) {
            case LONG: return Long.hashCode(longAt(pos));
            case DICT: return Integer.hashCode(idAt(pos)) * 0x9E3779B9;
            default:
                Object v = objects[chunk][pos & MASK];
                return v instanceof byte[] ? Arrays.hashCode((byte[]) v) : v.hashCode();
        }
    }

    /** Hash a value would have once stored; -1 ids (unknown tag strings) can match nothing. */
    int keyHashOf(Object value) {
        if (value == null) {
            return 0;
        }
        switch (kind) {
            case LONG: return Long.hashCode(encode(value));
            case DICT:
                Integer id = dictionary.get(value);
                return id == null ? Integer.hashCode(-1) * 0x9E3779B9 : Integer.hashCode(id) * 0x9E3779B9;
            default: return value instanceof byte[] ? Arrays.hashCode((byte[]) value) : value.hashCode();
        }
    }

    /** Whether the value at a position equals a value (both possibly null). */
    boolean sameKey(int pos, Object value) {
        boolean storedNull = pos < first || nulls.get(pos);
        if (storedNull || value == null) {
            return storedNull && value == null;
        }
        int chunk = pos >>> SHIFT;
        switch (kind) {
            case LONG: return longAt(pos) == encode(value);
            case DICT:
                Integer id = dictionary.get(value);
                return id != null && idAt(pos) == id;
            default:
                Object v = objects[chunk][pos & MASK];
                return v instanceof byte[] && value instanceof byte[] ? Arrays.equals((byte[]) v, (byte[]) value) : v.equals(value);
        }
    }

    /** Whether two positions hold the same key value. */
    boolean sameKey(int a, int b) {
        return sameKey(a, raw(b));
    }

    /** The value at a position without copying (for comparisons and compaction). */
    Object raw(int pos) {
        if (pos < first || nulls.get(pos)) {
            return null;
        }
        int chunk = pos >>> SHIFT;
        switch (kind) {
            case LONG: return decode(longAt(pos));
            case DICT: return dictionaryValues.get(idAt(pos));
            default: return objects[chunk][pos & MASK];
        }
    }

    private void setLong(int pos, long bits) {
        int chunk = pos >>> SHIFT;
        if (chunk >= longs.length) {
            longs = Arrays.copyOf(longs, chunk + 1);
            bases = Arrays.copyOf(bases, chunk + 1);
        }
        Object c = longs[chunk];
        if (c == null) {
            c = new int[CHUNK];
            longs[chunk] = c;
            bases[chunk] = bits;
        }
        if (c instanceof int[]) {
            long offset = bits - bases[chunk]; // wraps consistently: base + offset == bits
            if (offset == (int) offset) {
                ((int[]) c)[pos & MASK] = (int) offset;
                return;
            }
            long[] wide = new long[CHUNK];
            int[] narrow = (int[]) c;
            for (int i = 0; i < CHUNK; i++) {
                wide[i] = bases[chunk] + narrow[i];
            }
            longs[chunk] = wide;
            c = wide;
        }
        ((long[]) c)[pos & MASK] = bits;
    }

    private long longAt(int pos) {
        int chunk = pos >>> SHIFT;
        Object c = longs[chunk];
        return c instanceof int[] ? bases[chunk] + ((int[]) c)[pos & MASK] : ((long[]) c)[pos & MASK];
    }

    private long encode(Object v) {
        switch (column.dataType()) {
            case Bool: return (Boolean) v ? 1 : 0;
            case Float32: return Float.floatToIntBits((Float) v);
            case Float64: return Double.doubleToLongBits((Double) v);
            case UInt64: return ((BigInteger) v).longValue();
            case Date: return ((LocalDate) v).toEpochDay();
            default: return (Long) v;
        }
    }

    private Object decode(long bits) {
        switch (column.dataType()) {
            case Bool: return bits != 0;
            case Float32: return Float.intBitsToFloat((int) bits);
            case Float64: return Double.longBitsToDouble(bits);
            case UInt64: return new BigInteger(Long.toUnsignedString(bits));
            case Date: return LocalDate.ofEpochDay(bits);
            default: return bits;
        }
    }

    private int id(Object value) {
        Integer id = dictionary.get(value);
        if (id == null) {
            id = dictionaryValues.size();
            dictionary.put(value, id);
            dictionaryValues.add(value);
            int needed = id < 0x100 ? 1 : id < 0x10000 ? 2 : 4;
            if (needed > idWidth) {
                widen(needed);
            }
        }
        return id;
    }

    private void widen(int width) {
        for (int c = 0; c < ids.length; c++) {
            if (ids[c] == null) {
                continue;
            }
            Object wider = width == 2 ? new short[CHUNK] : new int[CHUNK];
            for (int i = 0; i < CHUNK; i++) {
                int v = read(ids[c], i);
                if (width == 2) {
                    ((short[]) wider)[i] = (short) v;
                } else {
                    ((int[]) wider)[i] = v;
                }
            }
            ids[c] = wider;
        }
        idWidth = width;
    }

    private static int read(Object chunk, int i) {
        if (chunk instanceof byte[]) {
            return ((byte[]) chunk)[i] & 0xFF;
        }
        if (chunk instanceof short[]) {
            return ((short[]) chunk)[i] & 0xFFFF;
        }
        return ((int[]) chunk)[i];
    }

    private int idAt(int pos) {
        return read(ids[pos >>> SHIFT], pos & MASK);
    }

    private void setId(int pos, int id) {
        int chunk = pos >>> SHIFT;
        if (chunk >= ids.length) {
            ids = Arrays.copyOf(ids, chunk + 1);
        }
        if (ids[chunk] == null) {
            ids[chunk] = idWidth == 1 ? new byte[CHUNK] : idWidth == 2 ? new short[CHUNK] : new int[CHUNK];
        }
        Object c = ids[chunk];
        if (c instanceof byte[]) {
            ((byte[]) c)[pos & MASK] = (byte) id;
        } else if (c instanceof short[]) {
            ((short[]) c)[pos & MASK] = (short) id;
        } else {
            ((int[]) c)[pos & MASK] = id;
        }
    }
}
