package dev.sluice.errorkind;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.write.Err;
import dev.sluice.write.StatusCode.Grpc;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The column a refusal names is read whatever the column is called: metrics tables often have columns named
 * {@code value}, {@code count}, {@code type}, {@code name} or {@code data}, and a quoted name may hold a blank.
 * The refusal of such a column names it (so a dead-letter entry, a rejects line or a job failure points at it).
 */
class AColumnNamedLikeAnEnglishWordIsStillTheRefusedColumnTest {
    private static Optional<String> column(String message) {
        return new Err(1004, Grpc.INVALID_ARGUMENT, message, false, List.of("t"), null).column();
    }

    @Test
    void commonMetricColumnNamesAreRead() {
        List<String> wrong = new ArrayList<>();
        for (String name : List.of("value", "count", "type", "name", "data", "index", "order")) {
            String message = "Invalid request to region 4398046511104(1024, 0), reason: column " + name
                    + " expect type Float64(Float64Type), given: STRING(12)";
            Optional<String> read = column(message);
            if (!read.equals(Optional.of(name))) {
                wrong.add(name + " read as " + read);
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void aQuotedNameWithABlankIsReadWhole() {
        assertEquals(Optional.of("cpu usage"), column("column `cpu usage` not found"));
    }
}
