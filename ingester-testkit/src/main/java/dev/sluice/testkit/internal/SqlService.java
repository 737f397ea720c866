package dev.sluice.testkit.internal;

import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.write.StatusCode;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.wire.ColumnDataTypeExtension;
import dev.sluice.internal.wire.ColumnDef;
import dev.sluice.internal.wire.CreateTableExpr;
import dev.sluice.internal.wire.DecimalTypeExtension;
import dev.sluice.internal.wire.VectorTypeExtension;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The SQL the testkit answers over HTTP. GreptimeDB's own statements are parsed here ({@code CREATE TABLE ...
 * TIME INDEX ... PRIMARY KEY ... ENGINE=... WITH(...)}, {@code CREATE DATABASE}, {@code DROP TABLE},
 * {@code TRUNCATE}, {@code SHOW TABLES|DATABASES}, {@code DESC TABLE}) and run on the testkit's storage, the same
 * paths as gRPC DDL. Queries ({@code SELECT}) run on an embedded H2 database holding a copy of the tables the
 * query names, so projections, WHERE, ORDER BY, LIMIT, aggregates and GROUP BY behave as a SQL engine's do.
 * Timestamps are H2 TIMESTAMPs (UTC) while the query runs and come back as epoch numbers in the column's unit,
 * as GreptimeDB's JSON output gives them.
 */
public final class SqlService {
    private static final Pattern WORD = Pattern.compile("[A-Za-z_][\\w:@#-]*");
    /** The server's one catalog: {@code greptime.db.table} names a table as {@code db.table} does. */
    private static final String CATALOG = "greptime";
    /**
     * Queries run one at a time on an in-memory H2 database named after the catalog, so that three-part names
     * resolve; it lives while its connection is open.
     */
    private static final Object ENGINE = new Object();

    private final Storage storage;

    /**
     * Creates the service.
     *
     * @param storage the testkit's storage
     */
    public SqlService(Storage storage) {
        this.storage = storage;
    }

    /** What a statement answers: affected rows, or records. */
    public record Result(Integer affectedRows, List<String> names, List<String> types, List<List<Object>> rows) {
        static Result affected(int n) {
            return new Result(n, null, null, null);
        }
    }

    /**
     * Runs one statement.
     *
     * @param db the database from {@code ?db=} ({@code public} when absent)
     * @param sql the statement
     * @return the answer
     * @throws ServerError with GreptimeDB's code when the statement fails
     */
    public Result execute(String db, String sql) {
        SqlTokens t = new SqlTokens(sql);
        if (t.accept("create", "database") || t.accept("create", "schema")) {
            return createDatabase(t);
        }
        if (!storage.databases().contains(db)) {
            // The ?db= of a request must exist; an unknown one is DatabaseNotFound (4004) before any statement runs.
            throw new ServerError(StatusCode.DatabaseNotFound, "Database not found: " + db);
        }
        String[] counted = t.peekIs("select") ? wholeTableCount(db, sql) : null;
        if (counted != null) {
            // The answer H2 would give, without copying a table of millions of rows (benchmarks and imports count).
            if (!storage.tables(counted[0]).contains(counted[1])) {
                throw new ServerError(StatusCode.TableNotFound, "Table not found: greptime." + counted[0] + "." + counted[1]);
            }
            return new Result(null, List.of("count(*)"), List.of("Int64"),
                    List.of(List.of(storage.rowCount(counted[0], counted[1]))));
        }
        if (t.accept("create", "table")) {
            return createTable(db, t);
        }
        if (t.accept("insert", "into")) {
            return Result.affected(SqlInsert.run(storage, db, t));
        }
        if (t.accept("drop", "table")) {
            boolean ifExists = t.accept("if", "exists");
            String[] name = qualified(db, t.qualifiedName());
            return Result.affected(storage.dropTable(name[0], name[1], ifExists));
        }
        if (t.accept("truncate")) {
            t.accept("table");
            String[] name = qualified(db, t.qualifiedName());
            return Result.affected(storage.truncate(name[0], name[1]));
        }
        if (t.accept("show", "create", "table")) {
            String[] name = qualified(db, t.qualifiedName());
            return showCreateTable(name[0], name[1]);
        }
        if (t.accept("show", "tables")) {
            List<List<Object>> rows = new ArrayList<>();
            storage.tables(db).stream().sorted().forEach(n -> rows.add(List.of(n)));
            return new Result(null, List.of("Tables"), List.of("String"), rows);
        }
        if (t.accept("show", "databases")) {
            List<List<Object>> rows = new ArrayList<>();
            List<String> names = new ArrayList<>(storage.databases());
            names.add("information_schema");
            names.stream().sorted().forEach(n -> rows.add(List.of(n)));
            return new Result(null, List.of("Database"), List.of("String"), rows);
        }
        if (t.accept("desc") || t.accept("describe")) {
            t.accept("table");
            String[] name = qualified(db, t.qualifiedName());
            return describe(name[0], name[1]);
        }
        if (t.accept("select") || t.accept("with")) {
            return query(db, sql);
        }
        String first = t.peek() == null ? "" : t.peek().text();
        if (!STATEMENT_STARTS.contains(first.toLowerCase(Locale.ROOT))) {
            // A statement no SQL parser knows is a syntax error on the server: src/sql/src/error.rs Syntax is
            // InvalidSyntax (2000).
            throw new ServerError(StatusCode.InvalidSyntax, "Invalid SQL syntax: sql parser error: Expected: an SQL"
                    + " statement, found: " + first);
        }
        throw new ServerError(StatusCode.Unsupported, "The Sluice testkit does not run this statement over HTTP: " + sql);
    }

    /** Words a statement the server's parser knows may start with (anything else is a syntax error). */
    private static final java.util.Set<String> STATEMENT_STARTS = java.util.Set.of("select", "with", "insert",
            "replace", "update", "delete", "create", "drop", "alter", "truncate", "show", "desc", "describe", "explain",
            "use", "set", "copy", "tql", "admin", "begin", "commit", "rollback", "start", "kill", "declare", "fetch",
            "close", "values", "analyze", "grant", "revoke", "prepare", "execute", "deallocate", "comment", "flush");

    private Result createDatabase(SqlTokens t) {
        boolean ifNotExists = t.accept("if", "not", "exists");
        String name = t.identifier();
        if (storage.databases().contains(name)) {
            if (ifNotExists) {
                return Result.affected(1);
            }
            throw new ServerError(StatusCode.DatabaseAlreadyExists, "Schema " + name + " already exists");
        }
        storage.createDatabase(name);
        return Result.affected(1);
    }

    /**
     * Reads {@code SELECT count(*) FROM [[greptime.]db.]table}, nothing more, with the name written any way the server reads it:
     * unquoted (folded to lower case), or in double quotes or backticks (kept as written), as GreptimeDB's SQL
     * reference says of identifiers (docs.greptime.com, reference/sql/compatibility).
     *
     * @return {database, table}, or null when the statement is anything else
     */
    private static String[] wholeTableCount(String db, String sql) {
        SqlTokens t = new SqlTokens(sql);
        if (!t.accept("select", "count", "(", "*", ")", "from")) {
            return null;
        }
        SqlTokens.Token first = t.peek();
        if (first == null || !first.word()) {
            return null;
        }
        String[] name;
        try {
            name = t.qualifiedName();
            if (name[0] != null && t.accept(".")) {
                // catalog.database.table: the server's one catalog is greptime
                String table = t.identifier();
                if (!name[0].equals(CATALOG)) {
                    return null;
                }
                name = new String[] {name[1], table};
            }
        } catch (ServerError notAName) {
            return null; // the query engine names the syntax error
        }
        return t.done() ? qualified(db, name) : null;
    }

    private static String[] qualified(String db, String[] name) {
        return new String[] {name[0] == null ? db : name[0], name[1]};
    }

    // ---- CREATE TABLE ----

    /**
     * {@code CREATE TABLE}, as GreptimeDB's SQL parser reads it (src/sql/src/parsers/create_parser.rs in
     * GreptimeTeam/greptimedb: parse_create_table, parse_columns, parse_column_def, parse_optional_column_option,
     * parse_column_extensions, parse_partitions, parse_table_engine, validate_time_index) and turns it into a
     * table (src/operator/src/expr_helper.rs: find_primary_keys, find_time_index):
     * <ul>
     *   <li>{@code [IF NOT EXISTS] [db.]name (...)}, a trailing comma in the list allowed;</li>
     *   <li>table constraints {@code TIME INDEX (c)} and {@code PRIMARY KEY (c, ...)};</li>
     *   <li>column options in any order, each optionally after {@code CONSTRAINT name}: {@code NOT NULL},
     *       {@code NULL}, {@code DEFAULT expr} ({@code CURRENT_TIMESTAMP}, {@code now()}, literals),
     *       {@code PRIMARY KEY}, {@code UNIQUE}, {@code TIME INDEX}, {@code COMMENT 'text'},
     *       {@code CHARACTER SET name};</li>
     *   <li>column indexes: {@code SKIPPING INDEX [WITH (...)]}, {@code FULLTEXT INDEX [WITH (...)]} (string
     *       columns only), {@code INVERTED INDEX} (no options);</li>
     *   <li>then, in this order, {@code PARTITION ON COLUMNS (c, ...) (rule, ...)}, {@code ENGINE = name},
     *       {@code WITH (key = value, ...)}.</li>
     * </ul>
     * Defaults, {@code NOT NULL} on fields, comments, indexes and partitions are accepted and checked as the parser
     * checks them but not modelled: the testkit stores one region per table, never fills a default and fills a
     * field column a write leaves out with NULL whatever its constraint.
     */
    private Result createTable(String db, SqlTokens t) {
        boolean ifNotExists = t.accept("if", "not", "exists");
        String[] name = qualified(db, t.qualifiedName());
        CreateTableExpr.Builder expr = CreateTableExpr.newBuilder().setSchemaName(name[0]).setTableName(name[1])
                .setCreateIfNotExists(ifNotExists);
        List<String> inlineKeys = new ArrayList<>();
        List<String> constraintKeys = new ArrayList<>();
        List<String> timeIndexes = new ArrayList<>();
        Map<String, DataType> types = new LinkedHashMap<>();
        t.expect("(");
        if (!t.accept(")")) {
            while (true) {
                if (t.accept("primary")) {
                    if (!t.accept("key")) {
                        throw t.expected("KEY");
                    }
                    constraintKeys.addAll(columnList(t));
                } else if (t.accept("time")) {
                    if (!t.accept("index")) {
                        throw t.expected("INDEX");
                    }
                    List<String> columns = columnList(t);
                    if (columns.size() != 1) {
                        throw new ServerError(StatusCode.InvalidSyntax,
                                "Invalid time index: it should contain only one column in time index");
                    }
                    timeIndexes.add(columns.get(0));
                } else if (t.peek() != null && t.peek().word()) {
                    expr.addColumnDefs(column(t, inlineKeys, timeIndexes, types));
                } else {
                    throw t.expected("column name or constraint definition");
                }
                boolean comma = t.accept(",");
                if (t.accept(")")) {
                    break;
                }
                if (!comma) {
                    throw t.expected("',' or ')' after column definition");
                }
            }
        }
        String timeIndex = timeIndex(timeIndexes, types);
        if (t.accept("partition")) {
            if (!t.accept("on", "columns")) {
                throw t.expected("ON, COLUMNS");
            }
            for (String c : columnList(t)) {
                if (!types.containsKey(c)) {
                    throw new ServerError(StatusCode.InvalidSyntax, "Invalid SQL, error: Partition column \"" + c
                            + "\" not defined");
                }
            }
            t.skipParenthesised(); // the partition rules: expressions over those columns
        }
        if (t.accept("engine")) {
            t.expect("=");
            expr.setEngine(t.identifier());
        }
        Map<String, String> options = new LinkedHashMap<>();
        if (t.accept("with")) {
            options.putAll(options(t));
        }
        if (!t.done()) {
            throw t.expected("end of statement");
        }
        // find_primary_keys: one inline PRIMARY KEY at most, and never beside a PRIMARY KEY (...) constraint.
        if (inlineKeys.size() > 1) {
            throw new ServerError(StatusCode.InvalidArguments, "Illegal primary keys definition: not allowed to inline"
                    + " multiple primary keys in columns options");
        }
        if (!inlineKeys.isEmpty() && !constraintKeys.isEmpty()) {
            throw new ServerError(StatusCode.InvalidArguments, "Illegal primary keys definition: found definitions of"
                    + " primary keys in multiple places");
        }
        List<String> primaryKeys = new ArrayList<>(inlineKeys);
        primaryKeys.addAll(constraintKeys);
        for (int i = 0; i < expr.getColumnDefsCount(); i++) {
            ColumnDef.Builder def = expr.getColumnDefsBuilder(i);
            boolean isTimeIndex = def.getName().equals(timeIndex);
            int semantic = isTimeIndex ? 2 : primaryKeys.contains(def.getName()) ? 0 : 1;
            def.setSemanticTypeValue(semantic);
            if (isTimeIndex) {
                def.setIsNullable(false); // a time index is NOT NULL whether or not the statement says so
            }
        }
        expr.setTimeIndex(timeIndex).addAllPrimaryKeys(primaryKeys).putAllTableOptions(options);
        return Result.affected(storage.createTable(db, expr.build()));
    }

    /** The option keys a column's SKIPPING INDEX takes (src/sql/src/parsers/utils.rs). */
    private static final java.util.Set<String> SKIPPING_OPTIONS = java.util.Set.of("granularity", "type",
            "false_positive_rate");
    /** The option keys a column's FULLTEXT INDEX takes (src/sql/src/parsers/utils.rs). */
    private static final java.util.Set<String> FULLTEXT_OPTIONS = java.util.Set.of("analyzer", "case_sensitive",
            "backend", "granularity", "false_positive_rate");

    private static void checkIndexOptions(String column, String index, Map<String, String> options,
                                          java.util.Set<String> allowed) {
        for (String key : options.keySet()) {
            if (!allowed.contains(key.toLowerCase(Locale.ROOT))) {
                throw invalidColumnOption(column, "invalid " + index + " option: " + key);
            }
        }
    }

    /** validate_time_index: exactly one time index (named once or more), a declared timestamp column. */
    private static String timeIndex(List<String> timeIndexes, Map<String, DataType> types) {
        List<String> distinct = timeIndexes.stream().distinct().toList();
        if (distinct.isEmpty()) {
            // InvalidSyntax 2000 (GreptimeDB's sqlness expectations, tests/cases/standalone/common/create/create.result:
            // "2000(InvalidSyntax), Missing time index constraint").
            throw new ServerError(StatusCode.InvalidSyntax, "Missing time index constraint");
        }
        if (distinct.size() > 1) {
            throw new ServerError(StatusCode.InvalidSyntax, "Invalid time index: expected only one time index"
                    + " constraint but actual " + distinct.size());
        }
        String column = distinct.get(0);
        DataType type = types.get(column);
        if (type == null) {
            throw new ServerError(StatusCode.InvalidSyntax, "Invalid time index: time index column " + column
                    + " not found in columns");
        }
        if (!type.isTimestamp()) {
            throw invalidColumnOption(column, "time index column data type should be timestamp");
        }
        return column;
    }

    private static ServerError invalidColumnOption(String column, String message) {
        return new ServerError(StatusCode.InvalidArguments, "Invalid column option, column name: " + column
                + ", error: " + message);
    }

    /** A parenthesised list of column names, as a constraint or PARTITION ON COLUMNS takes it. */
    private static List<String> columnList(SqlTokens t) {
        t.expect("(");
        List<String> names = new ArrayList<>();
        do {
            names.add(t.identifier());
        } while (t.accept(","));
        t.expect(")");
        return names;
    }

    /** {@code WITH (key = value, ...)}: keys as words (dotted) or strings, values as strings, numbers or words. */
    private static Map<String, String> options(SqlTokens t) {
        Map<String, String> options = new LinkedHashMap<>();
        t.expect("(");
        if (t.accept(")")) {
            return options;
        }
        do {
            StringBuilder key = new StringBuilder(t.next().text());
            while (t.accept(".")) {
                key.append('.').append(t.next().text());
            }
            t.expect("=");
            StringBuilder value = new StringBuilder();
            if (t.accept("-")) {
                value.append('-');
            }
            value.append(t.next().text());
            while (t.peekIs(".") && !value.isEmpty() && Character.isDigit(value.charAt(value.length() - 1))) {
                t.next();
                value.append('.').append(t.next().text()); // 0.01 arrives as 0 . 01
            }
            options.put(key.toString(), value.toString());
        } while (t.accept(","));
        t.expect(")");
        return options;
    }

    /** One column definition: name, type, then options and indexes in any order (parse_column_def). */
    private static ColumnDef column(SqlTokens t, List<String> inlineKeys, List<String> timeIndexes,
                                    Map<String, DataType> types) {
        String column = t.identifier();
        ColumnDef.Builder def = ColumnDef.newBuilder().setName(column).setIsNullable(true);
        DataType type = type(t, def);
        boolean timeIndex = false;
        boolean explicitNull = false;
        boolean skipping = false;
        boolean fulltext = false;
        boolean inverted = false;
        while (true) {
            if (t.accept("constraint")) {
                t.identifier();
                if (t.done() || t.peekIs(",") || t.peekIs(")")) {
                    throw t.expected("constraint details after CONSTRAINT <name>");
                }
            }
            if (t.accept("character", "set")) {
                t.identifier();
            } else if (t.accept("not", "null")) {
                def.setIsNullable(false);
            } else if (t.accept("comment")) {
                if (t.peek() == null || !t.peek().string()) {
                    throw t.expected("string");
                }
                def.setComment(t.next().text());
            } else if (t.accept("null")) {
                explicitNull = true;
            } else if (t.accept("default")) {
                t.skipExpression();
            } else if (t.accept("primary", "key")) {
                inlineKeys.add(column);
            } else if (t.accept("unique")) {
                // accepted by the parser; not a key in GreptimeDB's table model
            } else if (t.accept("time", "index")) {
                if (timeIndex) {
                    throw invalidColumnOption(column, "duplicated time index");
                }
                timeIndex = true;
            } else if (t.accept("skipping")) {
                if (!t.accept("index")) {
                    throw invalidColumnOption(column, "expect INDEX after SKIPPING keyword");
                }
                if (skipping) {
                    throw invalidColumnOption(column, "duplicated SKIPPING index option");
                }
                skipping = true;
                if (t.accept("with")) {
                    checkIndexOptions(column, "SKIPPING INDEX", options(t), SKIPPING_OPTIONS);
                }
            } else if (t.accept("fulltext")) {
                if (!t.accept("index")) {
                    throw invalidColumnOption(column, "expect INDEX after FULLTEXT keyword");
                }
                if (fulltext) {
                    throw invalidColumnOption(column, "duplicated FULLTEXT INDEX option");
                }
                if (type != DataType.String) {
                    throw invalidColumnOption(column, "FULLTEXT index only supports string type");
                }
                fulltext = true;
                if (t.accept("with")) {
                    checkIndexOptions(column, "FULLTEXT INDEX", options(t), FULLTEXT_OPTIONS);
                }
            } else if (t.accept("inverted")) {
                if (!t.accept("index")) {
                    throw invalidColumnOption(column, "expect INDEX after INVERTED keyword");
                }
                if (inverted) {
                    throw invalidColumnOption(column, "duplicated INVERTED index option");
                }
                if (t.peekIs("with")) {
                    throw invalidColumnOption(column, "INVERTED index doesn't support options");
                }
                inverted = true;
            } else {
                break;
            }
        }
        if (timeIndex) {
            // parse_column: a time index cannot be NULL and must be a timestamp; it becomes NOT NULL.
            if (explicitNull) {
                throw invalidColumnOption(column, "time index column can't be null");
            }
            if (!type.isTimestamp()) {
                throw invalidColumnOption(column, "time index column data type should be timestamp");
            }
            timeIndexes.add(column);
            def.setIsNullable(false);
        }
        types.put(column, type);
        return def.build();
    }

    /** GreptimeDB's SQL type names (src/sql/src/statements.rs, sql_data_type_to_concrete_data_type). */
    private static DataType type(SqlTokens t, ColumnDef.Builder def) {
        String name = t.identifier();
        List<Integer> args = new ArrayList<>();
        if (t.accept("(")) {
            do {
                args.add(Integer.parseInt(t.next().text()));
            } while (t.accept(","));
            t.expect(")");
        }
        boolean unsigned = t.accept("unsigned");
        DataType type;
        switch (name) {
            case "string": case "text": case "varchar": case "char": case "tinytext": case "mediumtext": case "longtext":
                type = DataType.String; break;
            case "binary": case "varbinary": case "blob": case "tinyblob": case "mediumblob": case "longblob": case "bytea":
                type = DataType.Binary; break;
            case "tinyint": case "int8": type = unsigned ? DataType.UInt8 : DataType.Int8; break;
            case "smallint": case "int16": type = unsigned ? DataType.UInt16 : DataType.Int16; break;
            case "int": case "integer": case "int32": type = unsigned ? DataType.UInt32 : DataType.Int32; break;
            case "bigint": case "int64": type = unsigned ? DataType.UInt64 : DataType.Int64; break;
            case "uint8": type = DataType.UInt8; break;
            case "uint16": type = DataType.UInt16; break;
            case "uint32": type = DataType.UInt32; break;
            case "uint64": type = DataType.UInt64; break;
            case "float": case "float32": case "real": type = DataType.Float32; break;
            case "double": case "float64": type = DataType.Float64; break;
            case "boolean": case "bool": type = DataType.Bool; break;
            case "date": type = DataType.Date; break;
            case "json": type = DataType.Json; break;
            case "timestamp_s": case "timestamp_sec": case "timestampsecond": type = DataType.TimestampSecond; break;
            case "timestamp_ms": case "timestampmillisecond": type = DataType.TimestampMillisecond; break;
            case "timestamp_us": case "timestampmicrosecond": case "datetime": type = DataType.TimestampMicrosecond; break;
            case "timestamp_ns": case "timestampnanosecond": type = DataType.TimestampNanosecond; break;
            case "timestamp": {
                int p = args.isEmpty() ? 3 : args.get(0);
                type = p == 0 ? DataType.TimestampSecond : p == 3 ? DataType.TimestampMillisecond
                        : p == 6 ? DataType.TimestampMicrosecond : p == 9 ? DataType.TimestampNanosecond : null;
                if (type == null) {
                    throw new ServerError(StatusCode.InvalidArguments, "Unsupported timestamp precision " + p
                            + " of column " + def.getName());
                }
                break;
            }
            case "vector":
                // VECTOR(dim), as GreptimeDB's SQL declares it (src/datatypes/src/types/vector_type.rs).
                if (args.size() != 1 || args.get(0) < 0) {
                    throw new ServerError(StatusCode.InvalidArguments, "Vector type of column " + def.getName()
                            + " needs one non-negative dimension");
                }
                type = DataType.Vector;
                def.setDatatypeExtension(ColumnDataTypeExtension.newBuilder().setVectorType(
                        VectorTypeExtension.newBuilder().setDim(args.get(0))));
                break;
            case "decimal": case "numeric":
                type = DataType.Decimal128;
                def.setDatatypeExtension(ColumnDataTypeExtension.newBuilder().setDecimalType(DecimalTypeExtension.newBuilder()
                        .setPrecision(args.isEmpty() ? 38 : args.get(0)).setScale(args.size() < 2 ? 10 : args.get(1))));
                break;
            default:
                throw new ServerError(StatusCode.InvalidArguments, "Unsupported data type " + name + " of column "
                        + def.getName() + " in the Sluice testkit");
        }
        def.setDataTypeValue(ServerTypes.wireNumber(type));
        return type;
    }

    // ---- SHOW CREATE TABLE ----

    /** The statement that would create the table again, laid out as the server prints it (quoted names, options). */
    private Result showCreateTable(String db, String table) {
        if (!storage.tables(db).contains(table)) {
            throw new ServerError(StatusCode.TableNotFound, "Table not found: greptime." + db + "." + table);
        }
        StringBuilder b = new StringBuilder("CREATE TABLE IF NOT EXISTS ").append(quote(table)).append(" (\n");
        List<String> keys = new ArrayList<>();
        String timeIndex = null;
        for (TableSchema.Column c : storage.columns(db, table)) {
            boolean ts = c.semanticType() == SemanticType.Timestamp;
            b.append("  ").append(quote(c.name())).append(' ').append(sqlTypeName(c)).append(ts ? " NOT NULL" : " NULL")
                    .append(",\n");
            if (ts) {
                timeIndex = c.name();
            } else if (c.semanticType() == SemanticType.Tag) {
                keys.add(quote(c.name()));
            }
        }
        b.append("  TIME INDEX (").append(quote(timeIndex)).append(')');
        if (!keys.isEmpty()) {
            b.append(",\n  PRIMARY KEY (").append(String.join(", ", keys)).append(')');
        }
        b.append("\n)\n\nENGINE=mito\n");
        Map<String, String> options = storage.options(db, table);
        if (!options.isEmpty()) {
            b.append("WITH(\n");
            int i = 0;
            for (Map.Entry<String, String> e : options.entrySet()) {
                b.append("  ").append(e.getKey().contains(".") ? "'" + e.getKey() + "'" : e.getKey()).append(" = '")
                        .append(e.getValue().replace("'", "''")).append('\'').append(++i < options.size() ? ",\n" : "\n");
            }
            b.append(')');
        }
        return new Result(null, List.of("Table", "Create Table"), List.of("String", "String"),
                List.of(List.of(table, b.toString())));
    }

    /** A column type in GreptimeDB's SQL spelling. */
    private static String sqlTypeName(TableSchema.Column c) {
        switch (c.dataType()) {
            case Bool: return "BOOLEAN";
            case Int8: return "TINYINT";
            case Int16: return "SMALLINT";
            case Int32: return "INT";
            case Int64: return "BIGINT";
            case UInt8: return "TINYINT UNSIGNED";
            case UInt16: return "SMALLINT UNSIGNED";
            case UInt32: return "INT UNSIGNED";
            case UInt64: return "BIGINT UNSIGNED";
            case Float32: return "FLOAT";
            case Float64: return "DOUBLE";
            case Binary: return "VARBINARY";
            case String: return "STRING";
            case Date: return "DATE";
            case Json: return "JSON";
            case TimestampSecond: return "TIMESTAMP(0)";
            case TimestampMillisecond: return "TIMESTAMP(3)";
            case TimestampMicrosecond: return "TIMESTAMP(6)";
            case TimestampNanosecond: return "TIMESTAMP(9)";
            case TimeSecond: return "TIME(0)";
            case TimeMillisecond: return "TIME(3)";
            case TimeMicrosecond: return "TIME(6)";
            case TimeNanosecond: return "TIME(9)";
            case Decimal128: return "DECIMAL(" + c.decimalType().precision() + ", " + c.decimalType().scale() + ")";
            case Vector: return "VECTOR(" + c.vectorType().dim() + ")";
            default: return c.dataType().toString().toUpperCase(Locale.ROOT);
        }
    }

    // ---- DESC ----

    private Result describe(String db, String table) {
        if (!storage.tables(db).contains(table)) {
            throw new ServerError(StatusCode.TableNotFound, "Table not found: greptime." + db + "." + table);
        }
        List<List<Object>> rows = new ArrayList<>();
        for (TableSchema.Column c : storage.columns(db, table)) {
            String key = c.semanticType() == SemanticType.Tag ? "PRI" : c.semanticType() == SemanticType.Timestamp ? "TIME INDEX" : "";
            String semantic = c.semanticType() == SemanticType.Tag ? "TAG" : c.semanticType() == SemanticType.Timestamp
                    ? "TIMESTAMP" : "FIELD";
            rows.add(List.of(c.name(), typeName(c), key, c.semanticType() == SemanticType.Timestamp ? "NO" : "YES", "",
                    semantic));
        }
        return new Result(null, List.of("Column", "Type", "Key", "Null", "Default", "Semantic Type"),
                List.of("String", "String", "String", "String", "String", "String"), rows);
    }

    /** How GreptimeDB names a column type in its SQL answers ({@code ConcreteDataType::name}). */
    static String typeName(TableSchema.Column c) {
        switch (c.dataType()) {
            case Bool: return "Boolean";
            case Decimal128: return "Decimal(" + c.decimalType().precision() + ", " + c.decimalType().scale() + ")";
            case Vector: return "Vector(" + c.vectorType().dim() + ")";
            default: return c.dataType().toString();
        }
    }

    // ---- SELECT through H2 ----

    private Result query(String db, String sql) {
        synchronized (ENGINE) {
            return queryAlone(db, sql);
        }
    }

    private Result queryAlone(String db, String sql) {
        try (Connection h2 = DriverManager.getConnection("jdbc:h2:mem:" + CATALOG + ";DATABASE_TO_LOWER=TRUE;MODE=Regular")) {
            Map<String, TableSchema.Column> byName = new LinkedHashMap<>();
            mirror(h2, db, sql, byName);
            try (Statement st = h2.createStatement()) {
                st.execute("SET SCHEMA " + quote(db));
                try (ResultSet rs = st.executeQuery(doubleQuoted(sql))) {
                    ResultSetMetaData md = rs.getMetaData();
                    int n = md.getColumnCount();
                    List<String> names = new ArrayList<>();
                    List<String> types = new ArrayList<>();
                    List<TableSchema.Column> sources = new ArrayList<>();
                    // H2 widens aggregates of numbers to NUMERIC/DECFLOAT; GreptimeDB keeps Int64 and Float64.
                    boolean[] toLong = new boolean[n + 1];
                    boolean[] toDouble = new boolean[n + 1];
                    for (int i = 1; i <= n; i++) {
                        String label = md.getColumnLabel(i);
                        if (label.equals("COUNT(*)")) {
                            label = "count(*)"; // H2 names it in capitals; the server, as the shortcut above, does not
                        }
                        TableSchema.Column source = byName.get(label);
                        names.add(label);
                        sources.add(source);
                        String h2Type = md.getColumnTypeName(i);
                        if (source == null && "DECFLOAT".equalsIgnoreCase(h2Type)) {
                            toDouble[i] = true;
                            types.add("Float64");
                        } else if (source == null && "NUMERIC".equalsIgnoreCase(h2Type) && md.getScale(i) == 0) {
                            toLong[i] = true;
                            types.add("Int64");
                        } else {
                            types.add(source != null ? typeName(source) : jdbcTypeName(md.getColumnType(i)));
                        }
                    }
                    List<List<Object>> rows = new ArrayList<>();
                    while (rs.next()) {
                        List<Object> row = new ArrayList<>(n);
                        for (int i = 1; i <= n; i++) {
                            Object v = read(rs, i, md.getColumnType(i));
                            if (v instanceof BigDecimal && toDouble[i]) {
                                v = ((BigDecimal) v).doubleValue();
                            } else if (v instanceof BigDecimal && toLong[i] && ((BigDecimal) v).toBigInteger().bitLength() < 64) {
                                v = ((BigDecimal) v).longValueExact();
                            }
                            row.add(output(v, sources.get(i - 1)));
                        }
                        rows.add(row);
                    }
                    return new Result(null, names, types, rows);
                }
            }
        } catch (SQLException e) {
            throw translate(db, e);
        }
    }

    /**
     * Writes backtick-quoted names in double quotes: the server reads both alike (kept as written), where H2 folds a
     * backtick-quoted name's case. Strings, double-quoted names and comments are copied as they are.
     */
    static String doubleQuoted(String sql) {
        if (sql.indexOf('`') < 0) {
            return sql;
        }
        StringBuilder out = new StringBuilder(sql.length() + 8);
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char ch = sql.charAt(i);
            if (ch == '\'' || ch == '"') {
                int j = i + 1;
                while (j < n) {
                    if (sql.charAt(j) == ch) {
                        if (j + 1 < n && sql.charAt(j + 1) == ch) {
                            j += 2; // a doubled quote stands for itself
                            continue;
                        }
                        break;
                    }
                    j++;
                }
                j = Math.min(n, j + 1);
                out.append(sql, i, j);
                i = j;
            } else if (ch == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int j = sql.indexOf('\n', i);
                j = j < 0 ? n : j;
                out.append(sql, i, j);
                i = j;
            } else if (ch == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int j = sql.indexOf("*/", i + 2);
                j = j < 0 ? n : j + 2;
                out.append(sql, i, j);
                i = j;
            } else if (ch == '`') {
                StringBuilder name = new StringBuilder();
                int j = i + 1;
                while (j < n) {
                    char c = sql.charAt(j);
                    if (c == '`') {
                        if (j + 1 < n && sql.charAt(j + 1) == '`') {
                            name.append('`');
                            j += 2;
                            continue;
                        }
                        break;
                    }
                    name.append(c);
                    j++;
                }
                if (j >= n) {
                    out.append(sql, i, n); // unterminated: left for H2 to report
                    i = n;
                } else {
                    out.append('"').append(name.toString().replace("\"", "\"\"")).append('"');
                    i = j + 1;
                }
            } else {
                out.append(ch);
                i++;
            }
        }
        return out.toString();
    }

    /** Copies every table the statement names (by word, in {@code db} or qualified) into H2. */
    private void mirror(Connection h2, String db, String sql, Map<String, TableSchema.Column> byName) throws SQLException {
        List<String> databases = storage.databases();
        try (Statement st = h2.createStatement()) {
            for (String d : databases) {
                st.execute("CREATE SCHEMA IF NOT EXISTS " + quote(d));
            }
            if (!databases.contains(db)) {
                st.execute("CREATE SCHEMA IF NOT EXISTS " + quote(db));
            }
        }
        List<String> names = new ArrayList<>();
        Matcher words = WORD.matcher(sql);
        while (words.find()) {
            names.add(words.group());
        }
        try {
            for (SqlTokens t = new SqlTokens(sql); !t.done(); ) {
                SqlTokens.Token token = t.next();
                if (token.quoted()) {
                    names.add(token.text()); // a quoted name may hold characters a word cannot: "a.b"
                }
            }
        } catch (ServerError unterminated) {
            // H2 reports the syntax error
        }
        java.util.Set<String> named = referencedTables(db, sql);
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (String w : names) {
            for (String d : databases) {
                for (String table : storage.tables(d)) {
                    if (table.equalsIgnoreCase(w) && seen.add(d + "." + table)) {
                        // Column types are taken from the tables the query names (in its database, or qualified),
                        // never from a same-named table elsewhere.
                        copy(h2, d, table, named.contains(d + "." + table) ? byName : new LinkedHashMap<>());
                    }
                }
            }
        }
    }

    /**
     * The tables a query names as {@code database.table}: each word of the statement as a table of the query's
     * database, and each {@code a.b} as table b of database a (a catalog-qualified {@code greptime.a.b} included).
     */
    private static java.util.Set<String> referencedTables(String db, String sql) {
        java.util.Set<String> named = new java.util.HashSet<>();
        List<SqlTokens.Token> tokens = new ArrayList<>();
        try {
            for (SqlTokens t = new SqlTokens(sql); !t.done(); ) {
                tokens.add(t.next());
            }
        } catch (ServerError unterminated) {
            return named; // H2 reports the syntax error
        }
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.get(i).word()) {
                boolean qualifier = i + 1 < tokens.size() && isDot(tokens.get(i + 1));
                boolean qualified = i > 0 && isDot(tokens.get(i - 1));
                if (!qualifier && !qualified) {
                    named.add(db + "." + tokens.get(i).text());
                }
                if (qualifier && i + 2 < tokens.size() && tokens.get(i + 2).word()) {
                    named.add(tokens.get(i).text() + "." + tokens.get(i + 2).text());
                }
            }
        }
        return named;
    }

    private static boolean isDot(SqlTokens.Token t) {
        return !t.word() && !t.string() && t.text().equals(".");
    }

    private void copy(Connection h2, String db, String table, Map<String, TableSchema.Column> byName) throws SQLException {
        List<TableSchema.Column> columns = storage.columns(db, table);
        StringBuilder ddl = new StringBuilder("CREATE TABLE ").append(quote(db)).append('.').append(quote(table)).append(" (");
        StringBuilder insert = new StringBuilder("INSERT INTO ").append(quote(db)).append('.').append(quote(table)).append(" VALUES (");
        for (int i = 0; i < columns.size(); i++) {
            TableSchema.Column c = columns.get(i);
            byName.putIfAbsent(c.name(), c);
            ddl.append(i == 0 ? "" : ", ").append(quote(c.name())).append(' ').append(h2Type(c));
            insert.append(i == 0 ? "?" : ", ?");
        }
        try (Statement st = h2.createStatement()) {
            st.execute(ddl.append(')').toString());
        }
        try (PreparedStatement ps = h2.prepareStatement(insert.append(')').toString())) {
            int batch = 0;
            for (Map<String, Object> row : storage.rows(db, table)) {
                for (int i = 0; i < columns.size(); i++) {
                    ps.setObject(i + 1, input(row.get(columns.get(i).name()), columns.get(i)));
                }
                ps.addBatch();
                if (++batch % 10_000 == 0) {
                    ps.executeBatch();
                }
            }
            ps.executeBatch();
        }
    }

    private static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    private static String h2Type(TableSchema.Column c) {
        switch (c.dataType()) {
            case Bool: return "BOOLEAN";
            case Float32: return "REAL";
            case Float64: return "DOUBLE PRECISION";
            case UInt64: return "NUMERIC(20, 0)";
            case String: case Json: case Vector: return "VARCHAR";
            case Binary: return "VARBINARY";
            case Date: return "DATE";
            case TimestampSecond: case TimestampMillisecond: case TimestampMicrosecond: case TimestampNanosecond:
                return "TIMESTAMP(9)";
            case Decimal128: return "NUMERIC(" + c.decimalType().precision() + ", " + c.decimalType().scale() + ")";
            default: return "BIGINT";
        }
    }

    private static Object input(Object v, TableSchema.Column c) {
        if (v == null) {
            return null;
        }
        if (c.dataType().isTimestamp()) {
            long units = (Long) v;
            long per = c.dataType().unitsPerSecond();
            long seconds = Math.floorDiv(units, per);
            long nanos = Math.floorMod(units, per) * (1_000_000_000L / per);
            return LocalDateTime.ofEpochSecond(seconds, (int) nanos, ZoneOffset.UTC);
        }
        if (v instanceof BigInteger) {
            return new BigDecimal((BigInteger) v);
        }
        if (c.dataType() == DataType.Vector) {
            if (v instanceof float[]) {
                return ServerTypes.vectorText((float[]) v);
            }
            // A value of the wrong byte count, stored as the server stores it; the server fails to print it
            // (vector_type_value_to_string in src/datatypes/src/types/vector_type.rs).
            throw new ServerError(StatusCode.InvalidArguments, "Failed to convert Vector value to string: wrong byte "
                    + "size, expected " + (long) c.vectorType().dim() * Float.BYTES + ", got " + ((byte[]) v).length);
        }
        if (c.dataType() == DataType.Json && v instanceof byte[]) {
            return new String((byte[]) v, java.nio.charset.StandardCharsets.UTF_8);
        }
        return signedZeroIn(v);
    }

    /**
     * Reads a result value; dates and timestamps as java.time values, which keep the proleptic Gregorian calendar
     * the server uses for every date (JDBC's java.sql.Date and Timestamp switch to the Julian calendar before
     * 1582-10-15).
     */
    private static Object read(ResultSet rs, int i, int jdbcType) throws SQLException {
        switch (jdbcType) {
            case Types.DATE: return rs.getObject(i, LocalDate.class);
            case Types.TIMESTAMP: return rs.getObject(i, LocalDateTime.class);
            case Types.TIMESTAMP_WITH_TIMEZONE: {
                java.time.OffsetDateTime at = rs.getObject(i, java.time.OffsetDateTime.class);
                return at == null ? null : at.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
            }
            default: return rs.getObject(i);
        }
    }

    /**
     * H2 folds -0.0 into 0.0 when it stores a float, where GreptimeDB keeps the sign. A -0.0 goes into H2 as the
     * negative float nearest to zero, which orders as the server's total order of floats does (below 0.0, above
     * every other negative), and comes back out as -0.0; a stored value of exactly that smallest negative
     * subnormal would read back as -0.0 too.
     */
    private static Object signedZeroIn(Object v) {
        if (v instanceof Double d && Double.doubleToRawLongBits(d) == Double.doubleToRawLongBits(-0.0)) {
            return -Double.MIN_VALUE;
        }
        if (v instanceof Float f && Float.floatToRawIntBits(f) == Float.floatToRawIntBits(-0.0f)) {
            return -Float.MIN_VALUE;
        }
        return v;
    }

    /** Undoes {@link #signedZeroIn}. */
    private static Object signedZeroOut(Object v) {
        if (v instanceof Double d && d == -Double.MIN_VALUE) {
            return -0.0;
        }
        if (v instanceof Float f && f == -Float.MIN_VALUE) {
            return -0.0f;
        }
        return v;
    }

    /**
     * A value as GreptimeDB's JSON output gives it: timestamps as epoch numbers in the column's unit, dates as days
     * since 1970-01-01 ({@code Value::Date} becomes a JSON number in src/datatypes/src/value.rs).
     */
    private static Object output(Object v, TableSchema.Column source) {
        if (v instanceof LocalDateTime) {
            Instant at = ((LocalDateTime) v).toInstant(ZoneOffset.UTC);
            long per = source != null && source.dataType().isTimestamp() ? source.dataType().unitsPerSecond() : 1000;
            return at.getEpochSecond() * per + at.getNano() / (1_000_000_000L / per);
        }
        if (v instanceof LocalDate) {
            return ((LocalDate) v).toEpochDay();
        }
        return signedZeroOut(v);
    }

    private static String jdbcTypeName(int type) {
        switch (type) {
            case Types.BIGINT: case Types.INTEGER: case Types.SMALLINT: case Types.TINYINT: return "Int64";
            case Types.DOUBLE: case Types.FLOAT: return "Float64";
            case Types.REAL: return "Float32";
            case Types.BOOLEAN: return "Boolean";
            case Types.DATE: return "Date";
            case Types.TIMESTAMP: return "TimestampMillisecond";
            case Types.NUMERIC: case Types.DECIMAL: return "Decimal(38, 10)";
            case Types.VARBINARY: case Types.BINARY: return "Binary";
            default: return "String";
        }
    }

    /** H2's failures in GreptimeDB's codes: a missing table 4001, syntax 2000, planning 3000, else 3001. */
    private static ServerError translate(String db, SQLException e) {
        String message = e.getMessage() == null ? e.toString() : e.getMessage().split("; SQL statement:")[0];
        switch (e.getErrorCode()) {
            case 42102: case 42103: case 42104: case 90079: {
                Matcher m = Pattern.compile("\"([^\"]+)\"").matcher(message);
                String table = m.find() ? m.group(1) : "?";
                return new ServerError(StatusCode.TableNotFound, "Table not found: greptime." + db + "." + table.toLowerCase(Locale.ROOT));
            }
            case 42000: case 42001: return new ServerError(StatusCode.InvalidSyntax, "Invalid SQL syntax: " + message);
            case 42122: case 90022: case 90008: return new ServerError(StatusCode.PlanQuery, "Failed to plan SQL: " + message);
            default: return new ServerError(StatusCode.EngineExecuteQuery, "Failed to execute query: " + message);
        }
    }
}
