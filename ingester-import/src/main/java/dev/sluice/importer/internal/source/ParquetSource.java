package dev.sluice.importer.internal.source;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.importer.internal.failure.UsageException;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Reads a Parquet file row group by row group with parquet-java's column readers, without Hadoop. Each top-level
 * primitive column becomes a source column whose type comes from the file's schema ({@link #types()}); values are
 * {@code Long}, {@code BigInteger} (UInt64 above 2^63-1), {@code Double}, {@code Boolean}, {@code String},
 * {@link RecordSource.JsonText}, {@code byte[]}, {@code BigDecimal}, {@code LocalDate}, {@code LocalTime} and
 * {@code Instant}. A row's position is its row group and its row in that group, both counted from 1; {@link #line()}
 * is the row's number in the file, counted from 1.
 */
public final class ParquetSource implements RecordSource {
    /**
     * Opens files through {@code ParquetFileReader(InputFile, ParquetReadOptions)}. The constructor is looked up
     * rather than called: its overloads taking Hadoop's {@code Configuration} and {@code Path} would make the
     * compiler load Hadoop classes to choose between them, and Hadoop is not on the class path.
     */
    private static final MethodHandle OPEN;

    static {
        try {
            OPEN = MethodHandles.publicLookup().findConstructor(ParquetFileReader.class,
                    MethodType.methodType(void.class, InputFile.class, ParquetReadOptions.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Initialises the class that holds a file's footer, whose static Jackson mapper takes a fresh JVM a sixth of a
     * second, and loads the native Snappy library: on a thread of its own, this overlaps the main thread's reading of
     * the first footer.
     */
    public static void prepare() {
        try {
            Class.forName(org.apache.parquet.hadoop.metadata.ParquetMetadata.class.getName(), true,
                    ParquetSource.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            // the first file's opening meets the same problem and reports it with the file's name
        }
        ParquetCodecs.NativeSnappy.available(); // loads the native Snappy library here rather than at the first page
    }

    /** Reads one column's current value. */
    private interface Decoder {
        /**
         * Reads the value the reader stands at.
         *
         * @param r the column's reader
         * @return the value, as {@link ParquetSource} lists the types
         */
        Object read(ColumnReader r);
    }

    private final String inputName;
    private final ParquetFileReader reader;
    private final MessageType fileSchema;
    private final String createdBy;
    private MessageType requested;
    private final List<String> columns = new ArrayList<>();
    /**
     * A column's type as the file's schema declares it, mapped to GreptimeDB's.
     *
     * @param type the data type
     * @param decimal precision and scale of a decimal, else null
     */
    public record Declared(DataType type, DecimalType decimal) {
    }

    private final Map<String, Declared> types = new LinkedHashMap<>();
    private final List<ColumnDescriptor> descriptors = new ArrayList<>();
    private final List<Decoder> decoders = new ArrayList<>();
    private final List<BlockMetaData> groups;
    private final AtomicLong bytesRead;
    private final long fileSize;
    private ColumnReader[] readers;
    private PageReadStore pages;
    private final Object[] values;
    /**
     * Whether values are read before the next row is: one value object per string column is then re-pointed from
     * row to row. Strings are always handed over as their pages' UTF-8 bytes (pages are never overwritten: the codecs
     * decompress each into an array of its own), so they are checked alike in the sample and after it.
     */
    private boolean atOnce;
    private int group; // row groups started (the current one's number, from 1)
    private long groupRows;
    private long rowInGroup; // rows of the current group read
    private long row; // rows of the file read (the current row's number)
    private long bytesCounted;

    /**
     * Opens a file and reads its footer.
     *
     * @param file the file
     * @param inputName the input's name, for messages
     * @param skip source columns not imported (not read; they may be of a type this reader cannot map)
     * @param zone the zone of timestamps not adjusted to UTC
     * @param bytesRead counts the bytes of the row groups read, for progress
     * @throws IOException when the file is not a readable Parquet file
     * @throws UsageException when a column not in {@code skip} has no GreptimeDB type
     */
    public ParquetSource(Path file, String inputName, Set<String> skip, ZoneId zone, AtomicLong bytesRead)
            throws IOException {
        this.inputName = inputName;
        this.bytesRead = bytesRead;
        ParquetReadOptions options = HadoopFreeReadOptions.of(new ParquetCodecs());
        try {
            this.reader = (ParquetFileReader) OPEN.invoke(new LocalInputFile(file), options);
        } catch (IOException | RuntimeException | Error e) {
            throw new IOException("'" + inputName + "' is not a readable Parquet file: " + e.getMessage(), e);
        } catch (Throwable t) {
            throw new IOException("'" + inputName + "' cannot be opened: " + t, t);
        }
        try {
            this.fileSize = new LocalInputFile(file).getLength();
            this.fileSchema = reader.getFileMetaData().getSchema();
            this.createdBy = reader.getFileMetaData().getCreatedBy();
            this.groups = reader.getRowGroups();
            for (String s : skip) {
                if (!fileSchema.containsField(s)) {
                    throw new UsageException("--skip '" + s + "' is not a column of '" + inputName + "' (its columns: "
                            + String.join(", ", fileSchema.getFields().stream().map(Type::getName).toList()) + ")");
                }
            }
            List<Type> projected = new ArrayList<>();
            List<String> unsupported = new ArrayList<>();
            for (Type t : fileSchema.getFields()) {
                if (skip.contains(t.getName())) {
                    continue;
                }
                if (!t.isPrimitive() || t.isRepetition(Type.Repetition.REPEATED)) {
                    unsupported.add("'" + t.getName() + "' (" + (t.isPrimitive() ? "repeated" : "a nested group, list or"
                            + " map") + ")");
                    continue;
                }
                PrimitiveType p = t.asPrimitiveType();
                String why = map(p, zone);
                if (why != null) {
                    unsupported.add("'" + t.getName() + "' (" + why + ")");
                    continue;
                }
                columns.add(t.getName());
                projected.add(t);
                descriptors.add(fileSchema.getColumnDescription(new String[] {t.getName()}));
            }
            if (!unsupported.isEmpty()) {
                throw new UsageException("'" + inputName + "': column" + (unsupported.size() > 1 ? "s " : " ")
                        + String.join(", ", unsupported) + " cannot be stored in a GreptimeDB column: leave "
                        + (unsupported.size() > 1 ? "them" : "it") + " out with --skip");
            }
            this.requested = new MessageType(fileSchema.getName(), projected);
            reader.setRequestedSchema(requested);
        } catch (IOException | RuntimeException e) {
            reader.close();
            throw e;
        }
        this.values = new Object[columns.size()];
    }

    /**
     * Returns the type each source column has in the file's schema.
     *
     * @return the types by source column name
     */
    public Map<String, Declared> types() {
        return types;
    }

    /** Maps one column's Parquet type to a GreptimeDB type and a decoder; returns why not, or null. */
    private String map(PrimitiveType p, ZoneId zone) {
        LogicalTypeAnnotation l = p.getLogicalTypeAnnotation();
        String name = p.getName();
        switch (p.getPrimitiveTypeName()) {
            case BOOLEAN:
                return add(name, DataType.Bool, null, r -> r.getBoolean());
            case FLOAT:
                return add(name, DataType.Float32, null, r -> (double) r.getFloat());
            case DOUBLE:
                return add(name, DataType.Float64, null, r -> r.getDouble());
            case INT32:
                if (l == null) {
                    return add(name, DataType.Int32, null, r -> (long) r.getInteger());
                }
                if (l instanceof IntLogicalTypeAnnotation i) {
                    if (!i.isSigned() && i.getBitWidth() == 32) {
                        return add(name, DataType.UInt32, null, r -> Integer.toUnsignedLong(r.getInteger()));
                    }
                    return add(name, intType(i), null, r -> (long) r.getInteger());
                }
                if (l instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
                    return add(name, DataType.Date, null, r -> LocalDate.ofEpochDay(r.getInteger()));
                }
                if (l instanceof TimeLogicalTypeAnnotation) {
                    return add(name, DataType.TimeMillisecond, null,
                            r -> LocalTime.ofNanoOfDay(r.getInteger() * 1_000_000L));
                }
                if (l instanceof DecimalLogicalTypeAnnotation d) {
                    int scale = d.getScale();
                    return decimal(name, d, r -> BigDecimal.valueOf(r.getInteger(), scale));
                }
                return "INT32 " + l;
            case INT64:
                if (l == null) {
                    return add(name, DataType.Int64, null, r -> r.getLong());
                }
                if (l instanceof IntLogicalTypeAnnotation i) {
                    if (!i.isSigned() && i.getBitWidth() == 64) {
                        return add(name, DataType.UInt64, null, r -> {
                            long v = r.getLong();
                            return v >= 0 ? (Object) v : new BigInteger(Long.toUnsignedString(v));
                        });
                    }
                    return add(name, intType(i), null, r -> r.getLong());
                }
                if (l instanceof TimestampLogicalTypeAnnotation ts) {
                    long perSecond = perSecond(ts.getUnit());
                    DataType t = perSecond == 1_000L ? DataType.TimestampMillisecond
                            : perSecond == 1_000_000L ? DataType.TimestampMicrosecond : DataType.TimestampNanosecond;
                    if (ts.isAdjustedToUTC()) {
                        return add(name, t, null, r -> instant(r.getLong(), perSecond, null));
                    }
                    return add(name, t, null, r -> instant(r.getLong(), perSecond, zone));
                }
                if (l instanceof TimeLogicalTypeAnnotation tm) {
                    long perSecond = perSecond(tm.getUnit());
                    DataType t = perSecond == 1_000_000L ? DataType.TimeMicrosecond
                            : perSecond == 1_000L ? DataType.TimeMillisecond : DataType.TimeNanosecond;
                    long nanosPer = 1_000_000_000L / perSecond;
                    return add(name, t, null, r -> LocalTime.ofNanoOfDay(r.getLong() * nanosPer));
                }
                if (l instanceof DecimalLogicalTypeAnnotation d) {
                    int scale = d.getScale();
                    return decimal(name, d, r -> BigDecimal.valueOf(r.getLong(), scale));
                }
                return "INT64 " + l;
            case INT96:
                // The legacy Impala/Spark timestamp: nanoseconds of the day, then the Julian day, little-endian.
                return add(name, DataType.TimestampNanosecond, null, r -> {
                    ByteBuffer b = r.getBinary().toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
                    long nanos = b.getLong();
                    long day = b.getInt() - 2_440_588L;
                    return Instant.ofEpochSecond(day * 86_400L, nanos);
                });
            case BINARY:
            case FIXED_LEN_BYTE_ARRAY:
                if (l instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
                        || l instanceof LogicalTypeAnnotation.EnumLogicalTypeAnnotation) {
                    Utf8Text text = new Utf8Text();
                    return add(name, DataType.String, null,
                            r -> (atOnce ? text : new Utf8Text()).at(r.getBinary()));
                }
                if (l instanceof LogicalTypeAnnotation.JsonLogicalTypeAnnotation) {
                    return add(name, DataType.Json, null, r -> new JsonText(r.getBinary().toStringUsingUTF8()));
                }
                if (l instanceof DecimalLogicalTypeAnnotation d) {
                    int scale = d.getScale();
                    return decimal(name, d, r -> new BigDecimal(new BigInteger(r.getBinary().getBytes()), scale));
                }
                if (l instanceof LogicalTypeAnnotation.UUIDLogicalTypeAnnotation) {
                    return add(name, DataType.String, null, r -> {
                        ByteBuffer b = r.getBinary().toByteBuffer();
                        return new UUID(b.getLong(), b.getLong()).toString();
                    });
                }
                if (l instanceof LogicalTypeAnnotation.Float16LogicalTypeAnnotation) {
                    return add(name, DataType.Float32, null, r -> (double) half(r.getBinary().getBytes()));
                }
                if (l == null || l instanceof LogicalTypeAnnotation.BsonLogicalTypeAnnotation) {
                    return add(name, DataType.Binary, null, r -> r.getBinary().getBytes());
                }
                return p.getPrimitiveTypeName() + " " + l;
            default:
                return p.getPrimitiveTypeName().toString();
        }
    }

    private String add(String name, DataType type, DecimalType decimal, Decoder d) {
        types.put(name, new Declared(type, decimal));
        decoders.add(d);
        return null;
    }

    private String decimal(String name, DecimalLogicalTypeAnnotation d, Decoder decoder) {
        if (d.getPrecision() > 38) {
            return "DECIMAL(" + d.getPrecision() + ", " + d.getScale() + "): GreptimeDB decimals hold at most 38 digits;"
                    + " or import it as text with --types " + name + ":String";
        }
        return add(name, DataType.Decimal128, new DecimalType(d.getPrecision(), d.getScale()), decoder);
    }

    private static DataType intType(IntLogicalTypeAnnotation i) {
        switch (i.getBitWidth()) {
            case 8: return i.isSigned() ? DataType.Int8 : DataType.UInt8;
            case 16: return i.isSigned() ? DataType.Int16 : DataType.UInt16;
            case 32: return i.isSigned() ? DataType.Int32 : DataType.UInt32;
            default: return i.isSigned() ? DataType.Int64 : DataType.UInt64;
        }
    }

    private static long perSecond(TimeUnit u) {
        switch (u) {
            case MILLIS: return 1_000L;
            case MICROS: return 1_000_000L;
            default: return 1_000_000_000L;
        }
    }

    /** A count of a unit since the epoch; with a zone, a wall-clock time there (a timestamp not adjusted to UTC). */
    static Instant instant(long count, long perSecond, ZoneId zone) {
        long sec = Math.floorDiv(count, perSecond);
        long nanos = Math.floorMod(count, perSecond) * (1_000_000_000L / perSecond);
        if (zone == null) {
            return Instant.ofEpochSecond(sec, nanos);
        }
        return LocalDateTime.ofEpochSecond(sec, (int) nanos, ZoneOffset.UTC).atZone(zone).toInstant();
    }

    /** Decodes an IEEE 754 half-precision float (two bytes, little-endian). */
    static float half(byte[] b) {
        int h = (b[0] & 0xff) | (b[1] & 0xff) << 8;
        int sign = (h >>> 15) & 1;
        int exp = (h >>> 10) & 0x1f;
        int mant = h & 0x3ff;
        float v;
        if (exp == 0) {
            v = mant * 0x1p-24f;
        } else if (exp == 31) {
            v = mant == 0 ? Float.POSITIVE_INFINITY : Float.NaN;
        } else {
            v = (1 + mant / 1024f) * (float) Math.pow(2, exp - 15);
        }
        return sign == 1 ? -v : v;
    }

    @Override
    public List<String> columns() {
        return columns;
    }

    @Override
    public boolean next() throws IOException {
        while (rowInGroup >= groupRows) {
            if (!startGroup(true)) {
                return false;
            }
        }
        for (int c = 0; c < readers.length; c++) {
            ColumnReader r = readers[c];
            if (r.getCurrentDefinitionLevel() < descriptors.get(c).getMaxDefinitionLevel()) {
                values[c] = null;
            } else {
                try {
                    values[c] = decoders.get(c).read(r);
                } catch (RuntimeException e) {
                    throw new IOException("'" + inputName + "' " + where() + ", column '" + columns.get(c) + "' cannot be"
                            + " decoded (" + e + "): the file is damaged", e);
                }
            }
            r.consume();
        }
        rowInGroup++;
        row++;
        return true;
    }

    /** Moves to the next row group, reading its pages when {@code read}; false after the last one. */
    private boolean startGroup(boolean read) throws IOException {
        if (group >= groups.size()) {
            if (bytesCounted < fileSize) {
                bytesRead.addAndGet(fileSize - bytesCounted);
                bytesCounted = fileSize;
            }
            return false;
        }
        BlockMetaData meta = groups.get(group);
        group++;
        groupRows = meta.getRowCount();
        rowInGroup = 0;
        long bytes = Math.min(meta.getCompressedSize(), fileSize - bytesCounted);
        bytesRead.addAndGet(bytes);
        bytesCounted += bytes;
        readers = null;
        releasePages();
        if (!read) {
            reader.skipNextRowGroup();
            return true;
        }
        try {
            pages = reader.readNextRowGroup();
        } catch (IOException | RuntimeException e) {
            throw new IOException("'" + inputName + "' row group " + group + " cannot be read: " + e.getMessage()
                    + " (the file is damaged or truncated)", e);
        }
        if (pages == null) {
            throw new IOException("'" + inputName + "' ends before row group " + group + " of " + groups.size()
                    + ": the file is truncated");
        }
        ColumnReadStoreImpl store = new ColumnReadStoreImpl(pages, new Ignore(requested), requested, createdBy);
        readers = new ColumnReader[descriptors.size()];
        for (int c = 0; c < readers.length; c++) {
            readers[c] = store.getColumnReader(descriptors.get(c));
        }
        return true;
    }

    /**
     * Skips whole row groups without reading their pages, then single rows.
     *
     * @param n the rows to skip
     * @return the rows skipped (fewer at the end of the file)
     * @throws IOException when the file cannot be read
     */
    @Override
    public long skip(long n) throws IOException {
        long done = 0;
        while (done < n) {
            if (rowInGroup >= groupRows) {
                if (group >= groups.size()) {
                    return done;
                }
                long rows = groups.get(group).getRowCount();
                boolean whole = n - done >= rows;
                startGroup(!whole);
                if (whole) {
                    rowInGroup = rows;
                    row += rows;
                    done += rows;
                }
                continue;
            }
            if (!next()) {
                return done;
            }
            done++;
        }
        return done;
    }

    @Override
    public Object value(int column) {
        return values[column];
    }

    @Override
    public void readValuesAtOnce() {
        atOnce = true;
    }

    @Override
    public long line() {
        return row;
    }

    @Override
    public String where() {
        return "row group " + group + ", row " + rowInGroup + " (row " + row + " of the file)";
    }

    @Override
    public String raw() {
        return raw(columns, values);
    }

    @Override
    public java.util.function.Supplier<String> rawLater() {
        Object[] kept = values.clone();
        for (int c = 0; c < kept.length; c++) {
            if (kept[c] instanceof Utf8Text u) {
                kept[c] = u.toString(); // the value object is re-pointed at the next row's
            }
        }
        return () -> raw(columns, kept);
    }

    /** The row as a JSON object, binary values in base64. */
    private static String raw(List<String> columns, Object[] values) {
        JsonStringEncoder enc = JsonStringEncoder.getInstance();
        StringBuilder sb = new StringBuilder("{");
        for (int c = 0; c < columns.size(); c++) {
            if (c > 0) {
                sb.append(", ");
            }
            sb.append('"').append(enc.quoteAsString(columns.get(c))).append("\": ");
            Object v = values[c];
            if (v == null || v instanceof Boolean || v instanceof Long || v instanceof BigInteger
                    || v instanceof BigDecimal || v instanceof JsonText) {
                sb.append(v);
            } else if (v instanceof Double d) {
                sb.append(d.isNaN() || d.isInfinite() ? "\"" + d + "\"" : d.toString());
            } else if (v instanceof byte[] b) {
                sb.append('"').append(Base64.getEncoder().encodeToString(b)).append('"');
            } else {
                sb.append('"').append(enc.quoteAsString(v.toString())).append('"');
            }
        }
        return sb.append('}').toString();
    }

    /** Releases the buffers of the row group read last. */
    private void releasePages() {
        if (pages != null) {
            pages.close();
            pages = null;
        }
    }

    @Override
    public void close() throws IOException {
        releasePages();
        reader.close();
    }

    /** The record converter the column readers require; values are read from the readers directly. */
    private static final class Ignore extends GroupConverter {
        private final Converter[] children;

        Ignore(GroupType type) {
            children = new Converter[type.getFieldCount()];
            for (int i = 0; i < children.length; i++) {
                Type t = type.getType(i);
                children[i] = t.isPrimitive() ? new PrimitiveConverter() { } : new Ignore(t.asGroupType());
            }
        }

        @Override
        public Converter getConverter(int fieldIndex) {
            return children[fieldIndex];
        }

        @Override
        public void start() {
        }

        @Override
        public void end() {
        }
    }
}
