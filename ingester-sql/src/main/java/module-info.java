/**
 * GreptimeDB's HTTP SQL API ({@code POST /v1/sql}) for tools built on Sluice: run a statement, read a table's columns
 * as the server holds them, count rows. The import command and the Flink connector check existing tables with it.
 */
module dev.sluice.sql {
    requires transitive dev.sluice.common;
    requires com.fasterxml.jackson.core;

    exports dev.sluice.sql;
}
