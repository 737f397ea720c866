package dev.sluice.testkit.internal;

import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.SemanticType;
import dev.sluice.write.StatusCode;
import dev.sluice.data.TableSchema;
import dev.sluice.data.VectorType;
import dev.sluice.internal.wire.ColumnDataTypeExtension;
import dev.sluice.internal.wire.ColumnDef;
import dev.sluice.internal.wire.ColumnSchema;
import dev.sluice.internal.wire.CreateTableExpr;
import dev.sluice.internal.wire.Row;
import dev.sluice.internal.wire.Rows;
import dev.sluice.internal.wire.Value;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Databases and tables with GreptimeDB's write semantics: schemaless create and add-column, strict types,
 * last-write-wins unless append mode, deletes by key. Every public method is atomic per table request.
 */
public final class Storage {
    private static final Pattern TABLE_NAME = Pattern.compile("^[a-zA-Z_:-][a-zA-Z0-9_:\\-.@#]*$");
    private static final Set<String> RESERVED = Set.of("__sequence", "__op_type", "__primary_key");

    private final Map<String, Map<String, StoredTable>> databases = new TreeMap<>();
    private final boolean retainRows;
    /** User tables get ids from 1024 up, as on the server (MIN_USER_TABLE_ID); one region (0) each. */
    private long nextTableId = 1024;

    /**
     * Creates storage holding the default database {@code public}.
     *
     * @param retainRows false to validate and count rows without keeping them (for long benchmarks)
     */
    public Storage(boolean retainRows) {
        this.retainRows = retainRows;
        databases.put("public", new LinkedHashMap<>());
    }

    /**
     * Creates a database if it does not exist.
     *
     * @param name the database name
     */
    public synchronized void createDatabase(String name) {
        databases.computeIfAbsent(name, k -> new LinkedHashMap<>());
    }

    private Map<String, StoredTable> database(String db) {
        Map<String, StoredTable> tables = databases.get(db);
        if (tables == null) {
            throw new ServerError(StatusCode.InvalidArguments, "Failed to find schema, schema info: " + db);
        }
        return tables;
    }

    /**
     * The server's vector check before anything is written ({@code validate_rows} / {@code validate_vector_col} in
     * {@code src/operator/src/req_convert/common.rs}, GreptimeTeam/greptimedb): each value of a VECTOR(dim) column
     * must be {@code binary_value} of exactly dim * 4 bytes. Like the server's loop, the check walks the schema in
     * order and stops at the first column that is not a vector, so vector columns after it are not checked there.
     */
    private static void checkVectorValues(Rows rows) {
        for (int c = 0; c < rows.getSchemaCount(); c++) {
            ColumnSchema cs = rows.getSchema(c);
            if (cs.getDatatypeValue() != ServerTypes.wireNumber(DataType.Vector)) {
                return;
            }
            long dim = cs.hasDatatypeExtension() && cs.getDatatypeExtension().hasVectorType()
                    ? Integer.toUnsignedLong(cs.getDatatypeExtension().getVectorType().getDim()) : 0;
            for (Row row : rows.getRowsList()) {
                if (c >= row.getValuesCount()) {
                    continue; // a row too short is refused later with the width check
                }
                Value v = row.getValues(c);
                if (v.getValueDataCase() == Value.ValueDataCase.VALUEDATA_NOT_SET) {
                    continue;
                }
                if (v.getValueDataCase() != Value.ValueDataCase.BINARY_VALUE) {
                    throw new ServerError(StatusCode.InvalidArguments,
                            "Invalid InsertRequest, reason: Expecting binary data for vector column.");
                }
                long expected = dim * Float.BYTES;
                if (v.getBinaryValue().size() != expected) {
                    throw new ServerError(StatusCode.InvalidArguments, "Invalid InsertRequest, reason: Expecting "
                            + expected + " bytes of data for vector column, but got " + v.getBinaryValue().size() + ".");
                }
            }
        }
    }

    /**
     * Inserts one table's rows.
     *
     * @param db the database
     * @param table the table name
     * @param rows the rows with their schema
     * @param hints the request's hints
     * @return rows written
     */
    public synchronized int insert(String db, String table, Rows rows, Map<String, String> hints) {
        Map<String, StoredTable> tables = database(db);
        checkTableName(table);
        checkVectorValues(rows);
        List<ColumnSchema> schema = rows.getSchemaList();
        List<TableSchema.Column> requestColumns = requestColumns(table, schema);
        StoredTable stored = tables.get(table);
        boolean autoCreate = Hints.autoCreate(hints);
        List<TableSchema.Column> toAdd = new ArrayList<>();
        Map<String, String> createOptions = null;
        if (stored == null) {
            if (!autoCreate) {
                // src/operator/src/insert.rs: a missing table with creation disabled is an invalid insert request.
                throw new ServerError(StatusCode.InvalidArguments, "Invalid InsertRequest, reason: Table `" + table
                        + "` does not exist, and `auto_create_table` hint is disabled");
            }
            checkNewTableColumns(table, requestColumns);
            createOptions = Hints.tableOptions(hints);
        } else {
            boolean hasTimeIndex = false;
            List<String> unknown = new ArrayList<>();
            for (TableSchema.Column rc : requestColumns) {
                int i = stored.indexOf(rc.name());
                if (i < 0) {
                    if (rc.semanticType() == SemanticType.Timestamp) {
                        throw new ServerError(StatusCode.InvalidArguments, "Table " + table + " already has time index "
                                + stored.timeIndex().name() + ", cannot add timestamp column " + rc.name());
                    }
                    if (!autoCreate) {
                        unknown.add(rc.name());
                        continue;
                    }
                    checkCreatable(table, rc);
                    toAdd.add(rc);
                    continue;
                }
                checkAgainstTable(stored, stored.columns.get(i), rc);
                hasTimeIndex |= stored.columns.get(i).semanticType() == SemanticType.Timestamp;
            }
            if (!unknown.isEmpty()) {
                // The region refuses columns it does not have (src/mito2/src/request.rs), listed as a Rust Vec<String>.
                StringBuilder list = new StringBuilder("[");
                for (String u : unknown) {
                    list.append(list.length() > 1 ? ", " : "").append('"').append(u).append('"');
                }
                throw new ServerError(StatusCode.InvalidArguments, stored.regionPrefix() + "unknown columns: " + list + "]");
            }
            if (!hasTimeIndex) {
                throw new ServerError(StatusCode.InvalidArguments, "Missing time index column "
                        + stored.timeIndex().name() + " in write to table " + table);
            }
        }
        String prefix = stored != null ? stored.regionPrefix() : StoredTable.regionPrefix(nextTableId);
        List<Object[]> decoded;
        try {
            decoded = decodeRows(table, prefix, requestColumns, rows.getRowsList());
        } catch (NullTimeIndex e) {
            if (stored == null) {
                // The frontend creates a missing table from the request's schema before the region reads a value
                // (src/operator/src/insert.rs: create_or_alter_tables_on_demand, then the region write), so a NULL
                // time index is refused with the table already there (verified on GreptimeDB 1.2).
                tables.put(table, new StoredTable(nextTableId++, table, requestColumns, createOptions, retainRows));
            }
            throw e.error;
        }
        String refusal = timeRefusal(requestColumns, decoded);
        if (refusal != null) {
            // The region's memtable refuses the write after the frontend created the table (as above).
            if (stored == null) {
                tables.put(table, new StoredTable(nextTableId++, table, requestColumns, createOptions, retainRows));
            }
            throw new ServerError(StatusCode.InvalidArguments, prefix + refusal);
        }
        if (stored == null) {
            stored = new StoredTable(nextTableId++, table, requestColumns, createOptions, retainRows);
            tables.put(table, stored);
        } else {
            stored.addColumns(toAdd);
        }
        int[] target = new int[requestColumns.size()];
        for (int i = 0; i < target.length; i++) {
            target[i] = stored.indexOf(requestColumns.get(i).name());
        }
        for (Object[] values : decoded) {
            Object[] row = new Object[stored.columns.size()];
            for (int i = 0; i < target.length; i++) {
                row[target[i]] = values[i];
            }
            stored.put(row);
        }
        return decoded.size();
    }

    /** Why the region refuses these decoded rows for their time index ({@link TimeBuckets}), or null. */
    private static String timeRefusal(List<TableSchema.Column> columns, List<Object[]> decoded) {
        int ts = -1;
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).semanticType() == SemanticType.Timestamp) {
                ts = i;
            }
        }
        if (ts < 0 || !columns.get(ts).dataType().isTimestamp()) {
            return null;
        }
        long[] times = new long[decoded.size()];
        for (int r = 0; r < times.length; r++) {
            times[r] = (Long) decoded.get(r)[ts];
        }
        return TimeBuckets.rowWriteRefusal(columns.get(ts).dataType(), times);
    }

    /**
     * Tells whether a table's rows in a write hold a time the region cannot hold ({@link TimeBuckets}): a request
     * writing to several tables checks every table this way before storing any, so that such a request fails whole.
     *
     * @param table the table name
     * @param rows the rows with their schema
     * @return true when {@link #insert} would refuse these rows for their time index; false also when they do not
     *     decode ({@link #insert} names that error when their turn comes)
     */
    public synchronized boolean holdsTimeOutsideTheRegion(String table, Rows rows) {
        try {
            List<TableSchema.Column> columns = requestColumns(table, rows.getSchemaList());
            return timeRefusal(columns, decodeRows(table, "", columns, rows.getRowsList())) != null;
        } catch (RuntimeException undecodable) {
            return false;
        }
    }

    /**
     * The region error prefix of an existing table.
     *
     * @param db the database
     * @param table the table
     * @return {@code Invalid request to region ..., reason: }
     */
    public synchronized String regionPrefix(String db, String table) {
        StoredTable stored = database(db).get(table);
        if (stored == null) {
            throw new ServerError(StatusCode.TableNotFound, "Table not found: greptime." + db + "." + table);
        }
        return stored.regionPrefix();
    }

    /**
     * The region's schema check for one requested column against the table's (src/mito2/src/request.rs,
     * {@code check_schema}): same type (timestamp unit, decimal precision/scale and vector dimension included, as
     * {@code is_column_type_value_eq} in src/api/src/helper.rs compares whole {@code ConcreteDataType}s), same
     * semantic type.
     */
    private static void checkAgainstTable(StoredTable stored, TableSchema.Column tc, TableSchema.Column rc) {
        if (tc.dataType() != rc.dataType() || !java.util.Objects.equals(tc.decimalType(), rc.decimalType())
                || !java.util.Objects.equals(tc.vectorType(), rc.vectorType())) {
            throw new ServerError(StatusCode.InvalidArguments, stored.regionPrefix() + "column " + rc.name()
                    + " expect type " + ServerTypes.serverTypeName(tc) + ", given: "
                    + ServerTypes.wireName(ServerTypes.wireNumber(rc.dataType())));
        }
        if (tc.semanticType() != rc.semanticType()) {
            throw new ServerError(StatusCode.InvalidArguments, stored.regionPrefix() + "column " + rc.name()
                    + " has semantic type " + tc.semanticType() + ", given: " + ServerTypes.wireName(rc.semanticType()));
        }
    }

    /**
     * Deletes rows by tags and time index.
     *
     * @param db the database
     * @param table the table name
     * @param rows rows holding every tag and the time index
     * @return the number of delete rows sent, present or not (as the server answers, verified on 1.2)
     */
    public synchronized int delete(String db, String table, Rows rows) {
        Map<String, StoredTable> tables = database(db);
        StoredTable stored = tables.get(table);
        if (stored == null) {
            throw new ServerError(StatusCode.TableNotFound, "Table not found: greptime." + db + "." + table);
        }
        List<TableSchema.Column> requestColumns = requestColumns(table, rows.getSchemaList());
        for (TableSchema.Column rc : requestColumns) {
            int i = stored.indexOf(rc.name());
            if (i < 0) {
                throw new ServerError(StatusCode.TableColumnNotFound, "Column " + rc.name() + " not found in table " + table);
            }
            checkAgainstTable(stored, stored.columns.get(i), rc);
        }
        for (TableSchema.Column tc : stored.columns) {
            if (tc.semanticType() != SemanticType.Field && requestColumns.stream().noneMatch(c -> c.name().equals(tc.name()))) {
                // src/mito2/src/request.rs check_missing_column: a delete needs every tag and the time index.
                throw new ServerError(StatusCode.InvalidArguments, stored.regionPrefix()
                        + "delete requests need column " + tc.name());
            }
        }
        List<Object[]> decoded;
        try {
            decoded = decodeRows(table, stored.regionPrefix(), requestColumns, rows.getRowsList());
        } catch (NullTimeIndex e) {
            throw e.error;
        }
        for (Object[] values : decoded) {
            Object[] row = new Object[stored.columns.size()];
            for (int i = 0; i < values.length; i++) {
                row[stored.indexOf(requestColumns.get(i).name())] = values[i];
            }
            stored.delete(row);
        }
        return decoded.size();
    }

    /**
     * Creates a table from a DDL expression.
     *
     * @param db the database (the expression's schema name when set wins)
     * @param expr the expression
     * @return 0, as the server answers
     */
    public synchronized int createTable(String db, CreateTableExpr expr) {
        String dbName = expr.getSchemaName().isEmpty() ? db : expr.getSchemaName();
        Map<String, StoredTable> tables = database(dbName);
        String table = expr.getTableName();
        checkTableName(table);
        if (tables.containsKey(table)) {
            if (expr.getCreateIfNotExists()) {
                return 0;
            }
            throw new ServerError(StatusCode.TableAlreadyExists, "Table already exists: `greptime." + dbName + "." + table + "`");
        }
        List<TableSchema.Column> columns = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (ColumnDef def : expr.getColumnDefsList()) {
            if (!names.add(def.getName())) {
                throw new ServerError(StatusCode.InvalidArguments, "Duplicated column name: " + def.getName());
            }
            SemanticType semantic = def.getName().equals(expr.getTimeIndex()) ? SemanticType.Timestamp
                    : expr.getPrimaryKeysList().contains(def.getName()) ? SemanticType.Tag : SemanticType.Field;
            DataType type = dataType(table, def.getName(), def.getDataTypeValue());
            TableSchema.Column c = column(def.getName(), semantic, type,
                    def.hasDatatypeExtension() ? def.getDatatypeExtension() : null);
            checkCreatable(table, c);
            columns.add(c);
        }
        if (!names.contains(expr.getTimeIndex())) {
            throw new ServerError(StatusCode.InvalidArguments, "Time index column " + expr.getTimeIndex() + " not found");
        }
        for (String pk : expr.getPrimaryKeysList()) {
            if (!names.contains(pk)) {
                throw new ServerError(StatusCode.InvalidArguments, "Primary key column " + pk + " not found");
            }
        }
        checkNewTableColumns(table, columns);
        // Tags in primary-key order, as the server lays them out.
        List<TableSchema.Column> ordered = new ArrayList<>();
        for (String pk : expr.getPrimaryKeysList()) {
            columns.stream().filter(c -> c.name().equals(pk)).findFirst().ifPresent(ordered::add);
        }
        columns.stream().filter(c -> !ordered.contains(c)).forEach(ordered::add);
        tables.put(table, new StoredTable(nextTableId++, table, ordered, Hints.tableOptions(expr.getTableOptionsMap()), retainRows));
        return 0;
    }

    /**
     * Returns a table's columns for a bulk stream, creating the table from the stream's columns when allowed.
     *
     * @param db the database
     * @param table the table
     * @param columnsForCreate columns read from Arrow field metadata, or null when the stream cannot create it
     * @return the table's columns
     */
    public synchronized List<TableSchema.Column> bulkTarget(String db, String table, List<TableSchema.Column> columnsForCreate) {
        Map<String, StoredTable> tables = databases.get(db);
        if (tables == null) {
            // DoPut looks the table up by its full name: a missing database is a missing table (verified on 1.2).
            throw new ServerError(StatusCode.TableNotFound, "Table not found: greptime." + db + "." + table);
        }
        StoredTable stored = tables.get(table);
        if (stored == null) {
            if (columnsForCreate == null) {
                throw new ServerError(StatusCode.TableNotFound, "Table not found: greptime." + db + "." + table);
            }
            checkTableName(table);
            checkNewTableColumns(table, columnsForCreate);
            stored = new StoredTable(nextTableId++, table, columnsForCreate, Map.of(), retainRows);
            tables.put(table, stored);
        }
        return List.copyOf(stored.columns);
    }

    /**
     * Tells whether rows are kept (else only checked and counted).
     *
     * @return true when rows are kept
     */
    public boolean retainsRows() {
        return retainRows;
    }

    /**
     * Counts checked bulk rows without keeping them (when rows are not retained).
     *
     * @param db the database
     * @param table the table
     * @param rows rows written
     * @return rows
     */
    public synchronized int bulkCount(String db, String table, int rows) {
        StoredTable stored = database(db).get(table);
        if (stored == null) {
            throw new ServerError(StatusCode.TableNotFound, "Table not found: greptime." + db + "." + table);
        }
        stored.count(rows);
        return rows;
    }

    /**
     * Stores decoded bulk rows; columns must be the table's own (already type-checked by the caller).
     *
     * @param db the database
     * @param table the table
     * @param columns the batch's columns, each a column of the table
     * @param rows values aligned with {@code columns}
     * @return rows written
     */
    public synchronized int bulkInsert(String db, String table, List<TableSchema.Column> columns, List<Object[]> rows) {
        StoredTable stored = database(db).get(table);
        if (stored == null) {
            throw new ServerError(StatusCode.TableNotFound, "Table not found: greptime." + db + "." + table);
        }
        int[] target = new int[columns.size()];
        for (int i = 0; i < target.length; i++) {
            target[i] = stored.indexOf(columns.get(i).name());
        }
        for (Object[] values : rows) {
            Object[] row = new Object[stored.columns.size()];
            for (int i = 0; i < target.length; i++) {
                row[target[i]] = values[i];
            }
            stored.put(row);
        }
        return rows.size();
    }

    private static void checkTableName(String table) {
        if (!TABLE_NAME.matcher(table).matches()) {
            throw new ServerError(StatusCode.InvalidArguments, "Invalid table name: " + table);
        }
    }

    private static void checkNewTableColumns(String table, List<TableSchema.Column> columns) {
        TableSchema.Column ts = null;
        for (TableSchema.Column c : columns) {
            checkCreatable(table, c);
            if (c.semanticType() == SemanticType.Timestamp) {
                ts = c;
            }
        }
        if (ts == null) {
            throw new ServerError(StatusCode.InvalidArguments, "Missing time index column in request to create table " + table);
        }
        if (!ts.dataType().isTimestamp()) {
            throw new ServerError(StatusCode.InvalidArguments, "Time index column " + ts.name()
                    + " must be a timestamp type, given " + ServerTypes.wireName(ServerTypes.wireNumber(ts.dataType())));
        }
    }

    private static void checkCreatable(String table, TableSchema.Column c) {
        if (RESERVED.contains(c.name())) {
            throw new ServerError(StatusCode.InvalidArguments, "Column name " + c.name() + " is reserved, table " + table);
        }
    }

    private static List<TableSchema.Column> requestColumns(String table, List<ColumnSchema> schema) {
        List<TableSchema.Column> out = new ArrayList<>(schema.size());
        Set<String> names = new HashSet<>();
        int timestamps = 0;
        String firstTimestamp = null;
        for (ColumnSchema cs : schema) {
            if (!names.add(cs.getColumnName())) {
                throw new ServerError(StatusCode.InvalidArguments, "Duplicated column name in insert request: "
                        + cs.getColumnName() + ", table " + table);
            }
            if (RESERVED.contains(cs.getColumnName())) {
                throw new ServerError(StatusCode.InvalidArguments, "Column name " + cs.getColumnName() + " is reserved");
            }
            SemanticType semantic;
            switch (cs.getSemanticTypeValue()) {
                case 0: semantic = SemanticType.Tag; break;
                case 1: semantic = SemanticType.Field; break;
                case 2: semantic = SemanticType.Timestamp; timestamps++; break;
                default: throw new ServerError(StatusCode.InvalidArguments, "Unknown semantic type " + cs.getSemanticTypeValue());
            }
            if (timestamps > 1) {
                // src/operator/src/req_convert (row schema check): names the first time index and the second.
                throw new ServerError(StatusCode.InvalidArguments, "Duplicated timestamp column in gRPC requests, exists "
                        + firstTimestamp + ", duplicated: " + cs.getColumnName());
            }
            if (semantic == SemanticType.Timestamp) {
                firstTimestamp = cs.getColumnName();
            }
            DataType type = dataType(table, cs.getColumnName(), cs.getDatatypeValue());
            out.add(column(cs.getColumnName(), semantic, type,
                    cs.hasDatatypeExtension() ? cs.getDatatypeExtension() : null));
        }
        return out;
    }

    private static DataType dataType(String table, String column, int wire) {
        try {
            return ServerTypes.dataType(wire);
        } catch (IllegalArgumentException e) {
            throw new ServerError(StatusCode.InvalidArguments, "Column " + column + " of table " + table
                    + " has data type " + wire + ", which cannot be created by a write");
        }
    }

    /** A column with the precision/scale or dimension its type extension carries, as the server reads them. */
    private static TableSchema.Column column(String name, SemanticType semantic, DataType type,
            ColumnDataTypeExtension ext) {
        return new TableSchema.Column(name, semantic, type, decimal(type, ext), vector(type, ext));
    }

    /**
     * A VECTOR column's dimension: the extension's {@code dim}, or 0 without one (src/api/src/helper.rs maps a
     * Vector without {@code vector_type} to {@code vector_default_datatype()}, which is {@code VECTOR(0)}).
     */
    private static VectorType vector(DataType type, ColumnDataTypeExtension ext) {
        if (type != DataType.Vector) {
            return null;
        }
        long dim = ext == null || !ext.hasVectorType() ? 0 : Integer.toUnsignedLong(ext.getVectorType().getDim());
        if (dim > Integer.MAX_VALUE) {
            throw new ServerError(StatusCode.InvalidArguments, "Vector dimension " + dim + " is too large");
        }
        return new VectorType((int) dim);
    }

    private static DecimalType decimal(DataType type, ColumnDataTypeExtension ext) {
        if (type != DataType.Decimal128) {
            return null;
        }
        if (ext == null || !ext.hasDecimalType()) {
            return DecimalType.DEFAULT;
        }
        try {
            return new DecimalType(ext.getDecimalType().getPrecision(), ext.getDecimalType().getScale());
        } catch (IllegalArgumentException e) {
            throw new ServerError(StatusCode.InvalidArguments, e.getMessage());
        }
    }

    /** A row's time index is NULL: the answer to give once the table the write creates is in place. */
    private static final class NullTimeIndex extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient ServerError error;

        NullTimeIndex(ServerError error) {
            super(error.getMessage(), null, false, false);
            this.error = error;
        }
    }

    private static List<Object[]> decodeRows(String table, String regionPrefix, List<TableSchema.Column> columns,
                                             List<Row> rows) {
        List<Object[]> out = new ArrayList<>(rows.size());
        int width = columns.size();
        for (int r = 0; r < rows.size(); r++) {
            Row row = rows.get(r);
            if (row.getValuesCount() != width) {
                throw new ServerError(StatusCode.InvalidArguments, "Column count mismatch in table " + table
                        + ", row " + r + ": expect " + width + " values, given " + row.getValuesCount());
            }
            Object[] values = new Object[width];
            for (int c = 0; c < width; c++) {
                values[c] = decode(table, regionPrefix, columns.get(c), row.getValues(c));
            }
            out.add(values);
        }
        return out;
    }

    private static Object decode(String table, String regionPrefix, TableSchema.Column column, Value v) {
        Value.ValueDataCase kase = v.getValueDataCase();
        if (kase == Value.ValueDataCase.VALUEDATA_NOT_SET) {
            if (column.semanticType() == SemanticType.Timestamp) {
                throw new NullTimeIndex(new ServerError(StatusCode.InvalidArguments, "Time index column "
                        + column.name() + " of table " + table + " cannot be null"));
            }
            return null;
        }
        if (column.dataType() == DataType.Json && kase != Value.ValueDataCase.STRING_VALUE) {
            // The frontend converts a JSON column's value only from a string (encode_string_to_jsonb_binary) and
            // fails on any other case, json_value and binary_value included, with UnexpectedSnafu (1002, INTERNAL;
            // as GreptimeDB 1.2 answers): never accept a value that would then be dropped.
            throw new ServerError(StatusCode.Unexpected, "Unexpected, violated: Expected to value data to be a string.");
        }
        if (kase != ServerTypes.valueCase(column.dataType())) {
            // src/mito2/src/request.rs validate_proto_value: both types printed as prost's Debug of ColumnDataType.
            throw new ServerError(StatusCode.InvalidArguments, regionPrefix + "value has type "
                    + ServerTypes.valueCaseTypeName(kase) + ", but column " + column.name() + " has type "
                    + ServerTypes.protoDebugName(ServerTypes.wireNumber(column.dataType())) + "(" + ServerTypes.wireNumber(column.dataType()) + ")");
        }
        switch (column.dataType()) {
            case Bool: return v.getBoolValue();
            // Small integers travel in 32-bit fields; the server narrows them with a Rust `as` cast, which wraps
            // (i8_value 1002 is stored as -22): src/api/src/helper.rs (pb value to Value).
            case Int8: return (long) (byte) v.getI8Value();
            case Int16: return (long) (short) v.getI16Value();
            case Int32: return (long) v.getI32Value();
            case Int64: return v.getI64Value();
            case UInt8: return (long) (v.getU8Value() & 0xFF);
            case UInt16: return (long) (v.getU16Value() & 0xFFFF);
            case UInt32: return Integer.toUnsignedLong(v.getU32Value());
            case UInt64: return new BigInteger(Long.toUnsignedString(v.getU64Value()));
            case Float32: return v.getF32Value();
            case Float64: return v.getF64Value();
            // Stored as sent: the server checks a vector column's dimension in the schema, never a value's byte
            // count on this path (src/mito2/src/request.rs check_schema and validate_proto_value), so a value of
            // the wrong length is kept as is; rows() then gives its raw bytes instead of floats.
            case Binary: case Vector: return v.getBinaryValue().toByteArray();
            case String: return v.getStringValue();
            case Json:
                if (!ServerTypes.isJson(v.getStringValue())) {
                    throw new ServerError(StatusCode.InvalidArguments, "Invalid json text: " + v.getStringValue());
                }
                return v.getStringValue();
            case Date: return LocalDate.ofEpochDay(v.getDateValue());
            case TimestampSecond: return v.getTimestampSecondValue();
            case TimestampMillisecond: return v.getTimestampMillisecondValue();
            case TimestampMicrosecond: return v.getTimestampMicrosecondValue();
            case TimestampNanosecond: return v.getTimestampNanosecondValue();
            case TimeSecond: return v.getTimeSecondValue();
            case TimeMillisecond: return v.getTimeMillisecondValue();
            case TimeMicrosecond: return v.getTimeMicrosecondValue();
            case TimeNanosecond: return v.getTimeNanosecondValue();
            case Decimal128:
                BigInteger unscaled = ServerTypes.unscaled(v.getDecimal128Value().getHi(), v.getDecimal128Value().getLo());
                return new BigDecimal(unscaled, column.decimalType().scale());
            default: throw new IllegalStateException(column.dataType().toString());
        }
    }

    // ---- read-back ----

    /**
     * Lists databases.
     *
     * @return database names
     */
    public synchronized List<String> databases() {
        return List.copyOf(databases.keySet());
    }

    /**
     * Lists tables of a database.
     *
     * @param db the database
     * @return table names in creation order, empty when the database does not exist
     */
    public synchronized List<String> tables(String db) {
        Map<String, StoredTable> t = databases.get(db);
        return t == null ? List.of() : List.copyOf(t.keySet());
    }

    private StoredTable table(String db, String table) {
        Map<String, StoredTable> t = databases.get(db);
        StoredTable s = t == null ? null : t.get(table);
        if (s == null) {
            throw new IllegalArgumentException("no table " + db + "." + table + " in the testkit");
        }
        return s;
    }

    /**
     * Returns a table's current columns.
     *
     * @param db database
     * @param table table
     * @return columns in table order
     */
    public synchronized List<TableSchema.Column> columns(String db, String table) {
        return List.copyOf(table(db, table).columns);
    }

    /**
     * Returns a table's options (from creation hints or DDL).
     *
     * @param db database
     * @param table table
     * @return options
     */
    public synchronized Map<String, String> options(String db, String table) {
        return table(db, table).options;
    }

    /**
     * Returns the stored rows.
     *
     * @param db database
     * @param table table
     * @return rows as column name to value maps
     */
    public synchronized List<Map<String, Object>> rows(String db, String table) {
        return Collections.unmodifiableList(table(db, table).rows());
    }

    /**
     * Returns some columns of the stored rows.
     *
     * @param db database
     * @param table table
     * @param names the columns
     * @return one list of values per name, each in the order of {@link #rows}
     */
    public synchronized List<List<Object>> columns(String db, String table, List<String> names) {
        return Collections.unmodifiableList(table(db, table).columns(names));
    }

    /**
     * Returns the stored row count.
     *
     * @param db database
     * @param table table
     * @return rows stored (0 when the table does not exist)
     */
    public synchronized long rowCount(String db, String table) {
        Map<String, StoredTable> t = databases.get(db);
        StoredTable s = t == null ? null : t.get(table);
        return s == null ? 0 : s.rowCount();
    }

    /**
     * Drops a table.
     *
     * @param db the database
     * @param table the table
     * @return whether it existed
     */
    public synchronized boolean dropTable(String db, String table) {
        Map<String, StoredTable> t = databases.get(db);
        return t != null && t.remove(table) != null;
    }

    private StoredTable existing(String db, String table) {
        StoredTable stored = database(db).get(table);
        if (stored == null) {
            throw new ServerError(StatusCode.TableNotFound, "Table not found: greptime." + db + "." + table);
        }
        return stored;
    }

    /**
     * Drops a table (DDL): a missing one is 4001 unless {@code if exists}.
     *
     * @param db the database
     * @param table the table
     * @param ifExists whether a missing table is fine
     * @return 0, as the server answers
     */
    public synchronized int dropTable(String db, String table, boolean ifExists) {
        if (!ifExists) {
            existing(db, table);
        }
        dropTable(db, table);
        return 0;
    }

    /**
     * Removes every row of a table, keeping it (DDL {@code TRUNCATE}).
     *
     * @param db the database
     * @param table the table
     * @return 0, as the server answers
     */
    public synchronized int truncate(String db, String table) {
        existing(db, table).truncate();
        return 0;
    }

    /**
     * Adds columns to a table (DDL {@code ALTER TABLE ... ADD COLUMN}): new tags extend the primary key, fields
     * are nullable; a time index cannot be added; an existing name is 4003 unless {@code add_if_not_exists}.
     *
     * @param db the database
     * @param table the table
     * @param defs the columns, each with its add-if-not-exists flag
     * @return 0, as the server answers
     */
    public synchronized int addColumns(String db, String table, List<Map.Entry<ColumnDef, Boolean>> defs) {
        StoredTable stored = existing(db, table);
        List<TableSchema.Column> added = new ArrayList<>();
        for (Map.Entry<ColumnDef, Boolean> e : defs) {
            ColumnDef def = e.getKey();
            if (stored.indexOf(def.getName()) >= 0 || added.stream().anyMatch(c -> c.name().equals(def.getName()))) {
                if (e.getValue()) {
                    continue;
                }
                throw new ServerError(StatusCode.TableColumnExists, "Column " + def.getName()
                        + " already exists in table " + table);
            }
            SemanticType semantic = def.getSemanticTypeValue() == 0 ? SemanticType.Tag
                    : def.getSemanticTypeValue() == 2 ? SemanticType.Timestamp : SemanticType.Field;
            if (semantic == SemanticType.Timestamp) {
                throw new ServerError(StatusCode.InvalidArguments, "Table " + table + " already has time index "
                        + stored.timeIndex().name() + ", cannot add timestamp column " + def.getName());
            }
            DataType type = dataType(table, def.getName(), def.getDataTypeValue());
            TableSchema.Column c = column(def.getName(), semantic, type,
                    def.hasDatatypeExtension() ? def.getDatatypeExtension() : null);
            checkCreatable(table, c);
            added.add(c);
        }
        stored.addColumns(added);
        return 0;
    }

    /** Drops every table of every database and recreates the default database. */
    public synchronized void clear() {
        databases.clear();
        databases.put("public", new LinkedHashMap<>());
    }
}
