package dev.sluice.testkit.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * A query's backtick-quoted names reach the SQL engine in double quotes (the server keeps both as written; the engine
 * would fold a backtick-quoted name's case), and nothing else of the statement changes: strings, double-quoted
 * names and comments holding backticks are left alone.
 */
class BacktickNamesReachTheEngineDoubleQuotedTest {
    @Test
    void backtickNamesBecomeDoubleQuotedOnes() {
        assertEquals("SELECT \"Host\" FROM \"public\".\"CpuLoad\"",
                SqlService.doubleQuoted("SELECT `Host` FROM `public`.`CpuLoad`"));
        assertEquals("SELECT * FROM \"a`b\"", SqlService.doubleQuoted("SELECT * FROM `a``b`"));
        assertEquals("SELECT * FROM \"say \"\"hi\"\"\"", SqlService.doubleQuoted("SELECT * FROM `say \"hi\"`"));
    }

    @Test
    void stringsQuotedNamesAndCommentsKeepTheirBackticks() {
        for (String sql : new String[] {"SELECT 'a `b` c' FROM t", "SELECT 'it''s `x`' FROM t",
            "SELECT \"a`b\" FROM t", "SELECT 1 -- `x`\nFROM t", "SELECT /* `x` */ 1 FROM t", "SELECT 1 FROM t"}) {
            assertEquals(sql, SqlService.doubleQuoted(sql), sql);
        }
        assertEquals("SELECT 'x`' FROM \"t\" -- `c`", SqlService.doubleQuoted("SELECT 'x`' FROM `t` -- `c`"));
    }

    @Test
    void anUnterminatedBacktickIsLeftForTheEngineToReport() {
        assertEquals("SELECT * FROM `t", SqlService.doubleQuoted("SELECT * FROM `t"));
    }
}
