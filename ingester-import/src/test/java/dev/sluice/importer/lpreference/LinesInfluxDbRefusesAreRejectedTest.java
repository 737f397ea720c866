package dev.sluice.importer.lpreference;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Each line InfluxDB's parser refuses becomes a rejected row naming its line; its neighbours are stored. */
class LinesInfluxDbRefusesAreRejectedTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aRepeatedTagKeyIsRejected() throws Exception {
        LpProbe.refusedBetweenGoodLines(testkit.server(), dir, "duptag", "duptag,k=b,c=3,k=z v=2 2".getBytes(UTF_8));
    }

    @Test
    void invalidUtf8InATagValueIsRejected() throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write("badutf,k=b".getBytes(UTF_8));
        b.write(0xff);
        b.write(" v=2 2".getBytes(UTF_8));
        LpProbe.refusedBetweenGoodLines(testkit.server(), dir, "badutf", b.toByteArray());
    }

    @Test
    void invalidUtf8InAStringFieldIsRejected() throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write("badutfs,k=b v=2,s=\"x".getBytes(UTF_8));
        b.write(0xc3);
        b.write("\" 2".getBytes(UTF_8));
        LpProbe.refusedBetweenGoodLines(testkit.server(), dir, "badutfs", b.toByteArray());
    }

    @Test
    void aControlCharacterInAFieldKeyIsRejected() throws Exception {
        LpProbe.refusedBetweenGoodLines(testkit.server(), dir, "ctlkey", "ctlkey,k=b v\u0001x=2 2".getBytes(UTF_8));
    }

    @Test
    void anInt64BeyondItsRangeIsRejected() throws Exception {
        LpProbe.refusedBetweenGoodLines(testkit.server(), dir, "bigint", "bigint,k=b i=9223372036854775808i 2".getBytes(UTF_8));
    }

    @Test
    void aNegativeUnsignedIsRejected() throws Exception {
        LpProbe.refusedBetweenGoodLines(testkit.server(), dir, "negu", "negu,k=b u=-1u 2".getBytes(UTF_8));
    }

    @Test
    void anUnsignedBeyondUint64IsRejected() throws Exception {
        LpProbe.refusedBetweenGoodLines(testkit.server(), dir, "bigu", "bigu,k=b u=18446744073709551616u 2".getBytes(UTF_8));
    }

    @Test
    void aBooleanSpelledInMixedCaseIsRejected() throws Exception {
        LpProbe.refusedBetweenGoodLines(testkit.server(), dir, "mixbool", "mixbool,k=b ok=tRUE 2".getBytes(UTF_8));
    }

    @Test
    void aLineWithTagsButNoFieldsIsRejected() throws Exception {
        LpProbe.refusedBetweenGoodLines(testkit.server(), dir, "nofield", "nofield,k=b 2".getBytes(UTF_8));
    }

    @Test
    void anUnquotedStringFieldValueIsRejected() throws Exception {
        LpProbe.refusedBetweenGoodLines(testkit.server(), dir, "unq", "unq,k=b v=hello 2".getBytes(UTF_8));
    }

    @Test
    void aTimestampThatIsNotAnIntegerIsRejected() throws Exception {
        LpProbe.refusedBetweenGoodLines(testkit.server(), dir, "badts", "badts,k=b v=2 12.5".getBytes(UTF_8));
    }

    @Test
    void anUnclosedQuoteIsRejectedWithoutSwallowingLaterLines() throws Exception {
        // The quote stays open to the end of the file: InfluxDB refuses that one line and nothing before it.
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "openq",
                "openq,k=a v=1 1\nopenq,k=c v=3 3\nopenq,k=b s=\"never closed 2\n".getBytes(UTF_8));
        List<Map<String, Object>> rows = LpProbe.rowsByTime(testkit.server(), "openq");
        assertEquals(List.of("a", "c"), rows.stream().map(m -> m.get("k")).toList(), r.toString());
        assertEquals(1, r.rejects().size(), r.toString());
        assertTrue(r.rejects().get(0).contains("\"line\":3"), r.toString());
    }
}
