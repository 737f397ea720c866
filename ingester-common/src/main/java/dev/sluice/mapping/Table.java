package dev.sluice.mapping;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Maps a record or class to a GreptimeDB table, for {@code GreptimeDB.writeObjects}. Its components (or fields)
 * annotated {@link Tag}, {@link Field} and {@link Timestamp} become columns, in declaration order; others are
 * ignored. Inferred column types: {@code String} String; {@code long} Int64; {@code int} Int32; {@code short}
 * Int16; {@code byte} Int8; {@code double} Float64; {@code float} Float32; {@code boolean} Bool; {@code byte[]}
 * and {@code ByteBuffer} Binary; {@code BigDecimal} Decimal128; {@code Instant}, {@code java.util.Date},
 * {@code OffsetDateTime}, {@code ZonedDateTime} TimestampMillisecond; {@code LocalDate} Date; {@code LocalTime}
 * TimeMillisecond; {@code Map} and {@code List} Json (boxed types map like their primitives). Anything else needs
 * an explicit {@code type}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Table {
    /**
     * The table name.
     *
     * @return the name; empty (default) for the class's simple name in snake_case
     */
    String value() default "";
}
