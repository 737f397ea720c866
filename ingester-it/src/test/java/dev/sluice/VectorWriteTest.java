package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.bulk.BulkWrite;
import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.data.VectorType;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteOk;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** VECTOR(dim) columns on the regular path, end to end through the testkit; bulk writers refuse them. */
@SharesJvm
class VectorWriteTest extends DefaultTestkitTest {
    static TableSchema embeddings(String name, int dim) {
        return TableSchema.newBuilder(name).addTag("doc", DataType.String)
                .addColumn("v", SemanticType.Field, DataType.Vector, new VectorType(dim))
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    @Test
    void vectorsWrittenByAddRowAndTheAppenderReadBackAsTheSameFloats() {
        TableSchema s = embeddings("emb_rt", 4);
        Table t = Table.from(s)
                .addRow("a", new float[] {0.25f, -1f, Float.MAX_VALUE, Float.MIN_VALUE}, 1L)
                .addRow("b", List.of(1, 2.5, 3L, -0.0f), 2L)
                .addRow("c", null, 3L);
        t.appender().setString(0, "d").setValue(1, new double[] {1e-3, 2, 3, 4}).setLong(2, 4L).endRow();
        Result<WriteOk, Err> r = db.write(t).join();
        assertTrue(r.isOk(), () -> r.toString());
        assertEquals(4, r.getOk().affectedRows());

        assertEquals(new VectorType(4), server.schema("emb_rt").column(1).vectorType(), "created with its dimension");
        List<Map<String, Object>> rows = server.rows("emb_rt");
        assertArrayEquals(new float[] {0.25f, -1f, Float.MAX_VALUE, Float.MIN_VALUE}, (float[]) rows.get(0).get("v"));
        assertArrayEquals(new float[] {1f, 2.5f, 3f, -0.0f}, (float[]) rows.get(1).get("v"));
        assertNull(rows.get(2).get("v"));
        assertArrayEquals(new float[] {1e-3f, 2f, 3f, 4f}, (float[]) rows.get(3).get("v"));
    }

    @Test
    void createTableDeclaresTheDimensionAndAnotherDimensionIsRefusedByTheServer() {
        assertTrue(db.createTable(embeddings("emb_ddl", 3), Context.newBuilder().build()).join().isOk());
        assertEquals(new VectorType(3), server.schema("emb_ddl").column(1).vectorType());
        Result<WriteOk, Err> r = db.write(Table.from(embeddings("emb_ddl", 2)).addRow("a", new float[] {1f, 2f}, 1L))
                .join();
        assertTrue(!r.isOk(), "a VECTOR(2) write to a VECTOR(3) table");
        assertEquals(StatusCode.InvalidArguments.code(), r.getErr().code());
        assertTrue(r.getErr().message().contains("column v expect type Vector(VectorType { dim: 3 }), given: VECTOR(32)"),
                r.getErr().message());
        assertEquals(0, server.rowCount("emb_ddl"));
    }

    @dev.sluice.mapping.Table("emb_obj")
    record Embedding(@dev.sluice.mapping.Tag String doc, @dev.sluice.mapping.Field(dim = 2) float[] v,
                     @dev.sluice.mapping.Timestamp java.time.Instant ts) {
    }

    @dev.sluice.mapping.Table("emb_nodim")
    record NoDim(@dev.sluice.mapping.Field float[] v, @dev.sluice.mapping.Timestamp java.time.Instant ts) {
    }

    @Test
    void annotatedFloatArraysAreVectorsOfTheDeclaredDimension() {
        java.time.Instant t0 = java.time.Instant.parse("2024-01-01T00:00:00Z");
        Result<WriteOk, Err> r = db.writeObjects(List.of(new Embedding("a", new float[] {1f, 2f}, t0))).join();
        assertTrue(r.isOk(), r::toString);
        assertEquals(new VectorType(2), server.schema("emb_obj").column(1).vectorType());
        assertArrayEquals(new float[] {1f, 2f}, (float[]) server.rows("emb_obj").get(0).get("v"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> db.writeObjects(List.of(new NoDim(new float[0], t0))));
        assertTrue(e.getMessage().contains("NoDim.v: a Vector column needs its dimension"), e.getMessage());
    }

    @Test
    void bulkWritersRefuseVectorColumnsBeforeAnythingIsSent() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> db.bulkStreamWriter(
                embeddings("emb_bulk", 3), BulkWrite.Config.newBuilder().createTable(false).build(), Context.newBuilder().build()));
        assertTrue(e.getMessage().contains("column 'v': Vector columns cannot be bulk written"), e.getMessage());
        assertTrue(e.getMessage().contains("GreptimeDB.write()"), e.getMessage());
    }
}
