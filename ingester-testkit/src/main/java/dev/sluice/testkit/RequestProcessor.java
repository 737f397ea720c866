package dev.sluice.testkit;

import dev.sluice.write.StatusCode;
import dev.sluice.testkit.internal.ColumnWise;
import dev.sluice.testkit.internal.DbString;
import dev.sluice.testkit.internal.Hints;
import dev.sluice.testkit.internal.ServerError;
import dev.sluice.testkit.internal.Storage;
import dev.sluice.internal.wire.GreptimeRequest;
import dev.sluice.internal.wire.RequestHeader;
import dev.sluice.internal.wire.AddColumn;
import dev.sluice.internal.wire.AlterTableExpr;
import dev.sluice.internal.wire.ColumnDef;
import dev.sluice.internal.wire.DeleteRequest;
import dev.sluice.internal.wire.DropTableExpr;
import dev.sluice.internal.wire.TruncateTableExpr;
import dev.sluice.internal.wire.InsertRequest;
import dev.sluice.internal.wire.RowDeleteRequest;
import dev.sluice.internal.wire.RowInsertRequest;
import io.grpc.Metadata;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Runs one GreptimeRequest against storage the way the server does: auth, database, hints, then the write. */
final class RequestProcessor {
    private final Storage storage;
    private final Map<String, String> users;
    private final Faults faults;
    private final RequestLog log;

    RequestProcessor(Storage storage, Map<String, String> users, Faults faults, RequestLog log) {
        this.storage = storage;
        this.users = users;
        this.faults = faults;
        this.log = log;
    }

    /**
     * The outcome of a request: rows affected, or the error to answer with. {@code hold} means never answered
     * ({@link Faults#neverRespond}); {@code heldAt} is where the hold gate stopped it (null when it did not), and
     * {@code store} stores a request held before storing, giving its outcome.
     */
    record Outcome(int affectedRows, ServerError error, boolean hold, Faults.HoldPoint heldAt,
                   java.util.function.Supplier<Outcome> store) {
        Outcome(int affectedRows, ServerError error) {
            this(affectedRows, error, false, null, null);
        }
    }

    /** Processes a request the hold gate may stop. */
    Outcome process(String method, GreptimeRequest request, Metadata md) {
        return process(method, request, md, true);
    }

    /**
     * Processes a request; with {@code mayHold} false the hold gate is not asked (a stream's messages queued behind
     * a held one).
     */
    Outcome process(String method, GreptimeRequest request, Metadata md, boolean mayHold) {
        RequestHeader header = request.getHeader();
        Map<String, String> hints = Map.of();
        String db = "";
        String kind = kind(request);
        List<String> tables = new ArrayList<>();
        int rows = 0;
        if (request.hasRowInserts()) {
            for (RowInsertRequest r : request.getRowInserts().getInsertsList()) {
                tables.add(r.getTableName());
                rows += r.getRows().getRowsCount();
            }
        } else if (request.hasRowDeletes()) {
            for (RowDeleteRequest r : request.getRowDeletes().getDeletesList()) {
                tables.add(r.getTableName());
                rows += r.getRows().getRowsCount();
            }
        } else if (request.hasInserts()) {
            for (InsertRequest r : request.getInserts().getInsertsList()) {
                tables.add(r.getTableName());
                rows += r.getRowCount();
            }
        } else if (request.hasDeletes()) {
            for (DeleteRequest r : request.getDeletes().getDeletesList()) {
                tables.add(r.getTableName());
                rows += r.getRowCount();
            }
        } else if (request.hasDdl() && request.getDdl().hasCreateTable()) {
            tables.add(request.getDdl().getCreateTable().getTableName());
        } else if (request.hasDdl() && request.getDdl().hasAlterTable()) {
            tables.add(request.getDdl().getAlterTable().getTableName());
        } else if (request.hasDdl() && request.getDdl().hasDropTable()) {
            tables.add(request.getDdl().getDropTable().getTableName());
        } else if (request.hasDdl() && request.getDdl().hasTruncateTable()) {
            tables.add(request.getDdl().getTruncateTable().getTableName());
        }
        String user = header.getAuthorization().hasBasic() ? header.getAuthorization().getBasic().getUsername() : null;
        int affected = 0;
        ServerError error = null;
        boolean hold = false;
        Faults.HoldPoint heldAt = null;
        java.util.function.Supplier<Outcome> store = null;
        try {
            hints = Hints.parse(md);
            if (request.getRequestCase() == GreptimeRequest.RequestCase.REQUEST_NOT_SET) {
                // Checked before auth: src/servers/src/grpc/greptime_handler.rs (InvalidQuery, InvalidArguments).
                throw new ServerError(StatusCode.InvalidArguments, "Invalid query: Expecting non-empty GreptimeRequest.");
            }
            checkAuth(header);
            db = database(header);
            Faults.Injected fault = faults.next();
            if (fault != null) {
                throw new ServerError(fault.code(), fault.message(), fault.retryable());
            }
            refuseValue(request, faults.valueRefusal());
            if (faults.neverRespond()) {
                hold = true;
            } else {
                heldAt = mayHold ? faults.holdPoint(new RecordedRequest(method, kind, db, user, header.getTimezone(),
                        hints, ascii(md), List.copyOf(tables), rows, null)) : null;
                if (heldAt == Faults.HoldPoint.BEFORE_STORE) {
                    String database = db;
                    Map<String, String> requestHints = hints;
                    store = () -> {
                        try {
                            return new Outcome(execute(request, database, requestHints), null);
                        } catch (ServerError e) {
                            return new Outcome(0, e);
                        }
                    };
                } else {
                    affected = execute(request, db, hints);
                }
            }
        } catch (ServerError e) {
            error = e;
        }
        log.add(new RecordedRequest(method, kind, db, user, header.getTimezone(), hints, ascii(md), List.copyOf(tables),
                rows, hold || store != null ? null : error == null ? StatusCode.Success : error.code()));
        return new Outcome(affected, error, hold, heldAt, store);
    }

    private static void refuseValue(GreptimeRequest request, Faults.ValueRefusal refusal) {
        if (refusal == null || !request.hasRowInserts()) {
            return;
        }
        for (RowInsertRequest r : request.getRowInserts().getInsertsList()) {
            int c = 0;
            while (c < r.getRows().getSchemaCount()
                    && !r.getRows().getSchema(c).getColumnName().equals(refusal.column())) {
                c++;
            }
            if (c == r.getRows().getSchemaCount()) {
                continue;
            }
            for (dev.sluice.internal.wire.Row row : r.getRows().getRowsList()) {
                if (row.getValuesCount() > c && row.getValues(c).getValueDataCase() == dev.sluice.internal.wire.Value.ValueDataCase.STRING_VALUE
                        && row.getValues(c).getStringValue().equals(refusal.value())) {
                    throw new ServerError(refusal.code(), refusal.message());
                }
            }
        }
    }

    private int execute(GreptimeRequest request, String db, Map<String, String> hints) {
        switch (request.getRequestCase()) {
            case ROW_INSERTS: {
                List<Map.Entry<String, dev.sluice.internal.wire.Rows>> writes = new ArrayList<>();
                for (RowInsertRequest r : request.getRowInserts().getInsertsList()) {
                    writes.add(Map.entry(r.getTableName(), r.getRows()));
                }
                refuseWholeRequest(db, writes, hints);
                int n = 0;
                for (RowInsertRequest r : request.getRowInserts().getInsertsList()) {
                    n += storage.insert(db, r.getTableName(), r.getRows(), hints);
                }
                return n;
            }
            case ROW_DELETES: {
                int n = 0;
                for (RowDeleteRequest r : request.getRowDeletes().getDeletesList()) {
                    n += storage.delete(db, r.getTableName(), r.getRows());
                }
                return n;
            }
            case INSERTS: {
                List<Map.Entry<String, dev.sluice.internal.wire.Rows>> writes = new ArrayList<>();
                for (InsertRequest r : request.getInserts().getInsertsList()) {
                    writes.add(Map.entry(r.getTableName(),
                            ColumnWise.toRows(r.getTableName(), r.getColumnsList(), r.getRowCount())));
                }
                refuseWholeRequest(db, writes, hints);
                int n = 0;
                for (InsertRequest r : request.getInserts().getInsertsList()) {
                    n += storage.insert(db, r.getTableName(),
                            ColumnWise.toRows(r.getTableName(), r.getColumnsList(), r.getRowCount()), hints);
                }
                return n;
            }
            case DELETES: {
                int n = 0;
                for (DeleteRequest r : request.getDeletes().getDeletesList()) {
                    n += storage.delete(db, r.getTableName(),
                            ColumnWise.toRows(r.getTableName(), r.getKeyColumnsList(), r.getRowCount()));
                }
                return n;
            }
            case QUERY:
                // The frontend does not serve queries through Handle: a plain UNIMPLEMENTED, no code trailer
                // (as GreptimeDB 1.2 answers).
                throw ServerError.withoutTrailers(StatusCode.Unsupported, "GreptimeDatabase::Handle for query");
            case DDL:
                if (request.getDdl().hasCreateTable()) {
                    return storage.createTable(db, request.getDdl().getCreateTable());
                }
                if (request.getDdl().hasCreateDatabase()) {
                    storage.createDatabase(request.getDdl().getCreateDatabase().getSchemaName());
                    return 1;
                }
                if (request.getDdl().hasAlterTable() && request.getDdl().getAlterTable().hasAddColumns()) {
                    AlterTableExpr alter = request.getDdl().getAlterTable();
                    List<Map.Entry<ColumnDef, Boolean>> defs = new ArrayList<>();
                    for (AddColumn add : alter.getAddColumns().getAddColumnsList()) {
                        defs.add(Map.entry(add.getColumnDef(), add.getAddIfNotExists()));
                    }
                    return storage.addColumns(ddlDb(db, alter.getSchemaName()), alter.getTableName(), defs);
                }
                if (request.getDdl().hasDropTable()) {
                    DropTableExpr drop = request.getDdl().getDropTable();
                    return storage.dropTable(ddlDb(db, drop.getSchemaName()), drop.getTableName(), drop.getDropIfExists());
                }
                if (request.getDdl().hasTruncateTable()) {
                    TruncateTableExpr truncate = request.getDdl().getTruncateTable();
                    return storage.truncate(ddlDb(db, truncate.getSchemaName()), truncate.getTableName());
                }
                throw new ServerError(StatusCode.Unsupported, "Unsupported DDL request in the Sluice testkit");
            default:
                throw new ServerError(StatusCode.Unsupported, "Unsupported request: " + request.getRequestCase()
                        + " (the Sluice testkit serves row inserts, row deletes and create DDL)");
        }
    }

    /**
     * A write to several tables holding a row one table's region refuses for its values (a time outside the
     * region's range, say) fails whole, storing none of its tables' rows: that table's write runs first and fails.
     */
    private void refuseWholeRequest(String db, List<Map.Entry<String, dev.sluice.internal.wire.Rows>> writes,
                                    Map<String, String> hints) {
        if (writes.size() < 2) {
            return;
        }
        for (Map.Entry<String, dev.sluice.internal.wire.Rows> w : writes) {
            if (storage.refusesValues(w.getKey(), w.getValue())) {
                storage.insert(db, w.getKey(), w.getValue(), hints);
            }
        }
    }

    /** A DDL expression's own schema name wins over the request's database. */
    private static String ddlDb(String db, String schemaName) {
        return schemaName.isEmpty() ? db : schemaName;
    }

    private static String kind(GreptimeRequest request) {
        switch (request.getRequestCase()) {
            case ROW_INSERTS: return "insert";
            case ROW_DELETES: case DELETES: return "delete";
            case INSERTS: return "insert";
            case QUERY: return "query";
            case DDL: return "ddl";
            default: return "other";
        }
    }

    void checkAuth(RequestHeader header) {
        if (users.isEmpty()) {
            return;
        }
        if (!header.hasAuthorization() || !header.getAuthorization().hasBasic()) {
            if (header.hasAuthorization() && header.getAuthorization().hasToken()) {
                // src/servers/src/grpc/context_auth.rs auth(): a token scheme is UnsupportedAuthScheme
                // ("Token AuthScheme"), which src/servers/src/error.rs maps to InvalidAuthHeader (7004).
                throw new ServerError(StatusCode.InvalidAuthHeader, "Unsupported http auth scheme, name: Token AuthScheme");
            }
            throw new ServerError(StatusCode.AuthHeaderNotFound, "Not found http or grpc authorization header");
        }
        checkUser(header.getAuthorization().getBasic().getUsername(), header.getAuthorization().getBasic().getPassword());
    }

    void checkUser(String username, String password) {
        String expected = users.get(username);
        if (expected == null) {
            throw new ServerError(StatusCode.UserNotFound, "User not found, username: " + username);
        }
        if (!expected.equals(password)) {
            throw new ServerError(StatusCode.UserPasswordMismatch, "Username and password does not match, username: " + username);
        }
    }

    boolean authRequired() {
        return !users.isEmpty();
    }

    /** Resolves the database as the server does: dbname ("schema" or "catalog-schema") first, then catalog/schema. */
    static String database(RequestHeader header) {
        String catalog;
        String schema;
        if (!header.getDbname().isEmpty()) {
            DbString parsed = DbString.parse(header.getDbname());
            catalog = parsed.catalog();
            schema = parsed.schema();
        } else {
            catalog = header.getCatalog().isEmpty() ? "greptime" : header.getCatalog().toLowerCase(Locale.ROOT);
            schema = header.getSchema().isEmpty() ? "public" : header.getSchema().toLowerCase(Locale.ROOT);
        }
        if (!catalog.equals("greptime")) {
            throw new ServerError(StatusCode.InvalidArguments, "Failed to find schema, schema info: " + catalog + "." + schema);
        }
        return schema;
    }

    static Map<String, String> ascii(Metadata md) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String key : md.keys()) {
            if (!key.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
                String v = md.get(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER));
                if (v != null) {
                    out.put(key, v);
                }
            }
        }
        return Collections.unmodifiableMap(out);
    }
}
