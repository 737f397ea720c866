package dev.sluice.importer.internal.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The line protocol grammar, element by element. */
class LineProtocolTest {
    static LineProtocol.Point p(String line) throws LineProtocol.ParseException {
        return LineProtocol.parse(line);
    }

    static String error(String line) {
        return assertThrows(LineProtocol.ParseException.class, () -> LineProtocol.parse(line)).getMessage();
    }

    @Test
    void aFullLineHasMeasurementTagsFieldsAndTimestamp() throws Exception {
        LineProtocol.Point pt = p("weather,site=north,unit=c temp=21.5,ok=true,note=\"fine\",n=3i 1700000000000000000");
        assertEquals("weather", pt.measurement());
        assertEquals(List.of("site", "unit"), pt.tagKeys());
        assertEquals(List.of("north", "c"), pt.tagValues());
        assertEquals(List.of("temp", "ok", "note", "n"), pt.fieldKeys());
        assertEquals(List.of(21.5, true, "fine", 3L), pt.fieldValues());
        assertEquals(1_700_000_000_000_000_000L, pt.timestamp());
    }

    @Test
    void tagsAndTimestampAreOptional() throws Exception {
        LineProtocol.Point pt = p("m v=1");
        assertEquals("m", pt.measurement());
        assertTrue(pt.tagKeys().isEmpty());
        assertEquals(List.of(1.0), pt.fieldValues());
        assertNull(pt.timestamp());
        assertEquals(-5L, p("m v=1 -5").timestamp());
    }

    @Test
    void aMeasurementEscapesCommasAndSpacesAndKeepsEqualsSigns() throws Exception {
        assertEquals("my,meas ure", p("my\\,meas\\ ure,t=1 f=1").measurement());
        assertEquals("a=b", p("a=b f=1").measurement());
        assertEquals("a\\=b", p("a\\=b f=1").measurement());
    }

    @Test
    void tagKeysAndValuesEscapeCommasEqualsSignsAndSpaces() throws Exception {
        LineProtocol.Point pt = p("m,tag\\ key\\,1=val\\,ue\\=x\\ y f=1");
        assertEquals(List.of("tag key,1"), pt.tagKeys());
        assertEquals(List.of("val,ue=x y"), pt.tagValues());
    }

    @Test
    void aBackslashBeforeAnyOtherCharacterIsLiteralAndTwoAreOne() throws Exception {
        LineProtocol.Point pt = p("m\\x,t=a\\b\\\\c f\\n=1");
        assertEquals("m\\x", pt.measurement());
        assertEquals(List.of("a\\b\\c"), pt.tagValues());
        assertEquals(List.of("f\\n"), pt.fieldKeys());
    }

    @Test
    void fieldKeysEscapeCommasEqualsSignsAndSpaces() throws Exception {
        assertEquals(List.of("field=key x,y"), p("m field\\=key\\ x\\,y=1").fieldKeys());
    }

    @Test
    void stringFieldsEscapeQuotesAndBackslashesAndHoldSeparatorsAsIs() throws Exception {
        assertEquals(List.of("a \"q\" \\ b \\n"), p("m s=\"a \\\"q\\\" \\\\ b \\n\"").fieldValues());
        assertEquals(List.of("a, b=c d", 1.0), p("m s=\"a, b=c d\",x=1 10").fieldValues());
        assertEquals(List.of(""), p("m s=\"\"").fieldValues());
        assertEquals(List.of("ünï ✓"), p("m s=\"ünï ✓\"").fieldValues());
    }

    @Test
    void numbersAreFloatsUnlessMarkedSignedOrUnsigned() throws Exception {
        assertEquals(List.of(-12L, new BigInteger("12"), 1.0, -1500.0, 0.5, 2.0),
                p("m i=-12i,u=12u,f=1,g=-1.5e3,h=.5,k=2.").fieldValues());
        assertEquals(List.of(Long.MAX_VALUE, Long.MIN_VALUE, new BigInteger("18446744073709551615")),
                p("m a=9223372036854775807i,b=-9223372036854775808i,c=18446744073709551615u").fieldValues());
    }

    @Test
    void everyBooleanSpellingIsRead() throws Exception {
        assertEquals(List.of(true, true, true, true, true),
                p("m a=t,b=T,c=true,d=True,e=TRUE").fieldValues());
        assertEquals(List.of(false, false, false, false, false),
                p("m a=f,b=F,c=false,d=False,e=FALSE").fieldValues());
    }

    @Test
    void aFieldGivenTwiceKeepsItsLastValue() throws Exception {
        LineProtocol.Point pt = p("m a=1,b=2,a=3");
        assertEquals(List.of("a", "b"), pt.fieldKeys());
        assertEquals(List.of(3.0, 2.0), pt.fieldValues());
    }

    @Test
    void commentsAndBlankLinesHoldNoPoint() {
        assertTrue(LineProtocol.isEmpty(""));
        assertTrue(LineProtocol.isEmpty("   "));
        assertTrue(LineProtocol.isEmpty("# a comment"));
        assertTrue(LineProtocol.isEmpty("\r"));
        assertFalse(LineProtocol.isEmpty("m f=1"));
    }

    @Test
    void aWindowsLineEndingIsNotPartOfTheTimestamp() throws Exception {
        assertEquals(7L, p("m f=1 7\r").timestamp());
    }

    @Test
    void malformedLinesSayWhereAndWhy() {
        assertTrue(error("m").contains("missing fields"));
        assertTrue(error("m ").contains("missing fields"));
        assertTrue(error("m,t= f=1").contains("empty value"));
        assertTrue(error("m,t f=1").contains("has no '='"));
        assertTrue(error("m f=").contains("has no value"));
        assertTrue(error("m f=\"open").contains("no closing quote"));
        assertTrue(error("m f=12x").contains("'12x' is not a float"));
        assertTrue(error("m f=NaN").contains("is not a float"));
        assertTrue(error("m f=-1u").contains("not an unsigned integer"));
        assertTrue(error("m f=9223372036854775808i").contains("out of range"));
        assertTrue(error("m f=18446744073709551616u").contains("out of range"));
        assertTrue(error("m f=1 12a").contains("timestamp is not an integer"));
        assertTrue(error("m f=1 1 2").contains("after the timestamp"));
        assertTrue(error("m,t=a=b f=1").contains("unexpected '='"));
        assertTrue(error(" ,t=a f=1").contains("missing measurement"));
        assertEquals("character 5: field 'f': '12x' is not a float, integer (1i), unsigned (1u), string (\"...\") or boolean",
                error("m f=12x"));
    }

    static List<String> lines(String input) throws Exception {
        List<String> out = new java.util.ArrayList<>();
        try (LineProtocol.Reader r = new LineProtocol.Reader(new java.io.ByteArrayInputStream(
                input.getBytes(java.nio.charset.StandardCharsets.UTF_8)))) {
            while (r.next()) {
                out.add(r.firstLine() + "-" + r.lastLine() + ":" + r.text());
            }
        }
        return out;
    }

    @Test
    void theReaderSplitsLinesOutsideQuotedStringsAndEscapesAndNumbersThemByTheirLineFeeds() throws Exception {
        assertEquals(List.of("1-2:m s=\"a\nb\" 1", "3-3:m v=1\r", "4-5:m\\\nx v=2", "6-6:# a b=\"open",
                "7-7:m,t=\"q v=3", "8-8:m v=4"),
                lines("\uFEFFm s=\"a\nb\" 1\nm v=1\r\nm\\\nx v=2\n# a b=\"open\nm,t=\"q v=3\nm v=4"));
        assertEquals(List.of("1-1:m s=\"a\rb\" 1", "2-2:"), lines("m s=\"a\rb\" 1\n\n"));
    }
}
