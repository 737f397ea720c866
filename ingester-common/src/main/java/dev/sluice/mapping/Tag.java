package dev.sluice.mapping;

import dev.sluice.data.DataType;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Maps a record component or field to a tag (primary key) column. The column type is inferred from the Java type (see
 * {@link Table}) unless {@link #type()} names one.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.RECORD_COMPONENT, ElementType.FIELD})
public @interface Tag {
    /**
     * The column name.
     *
     * @return the name; empty (default) for the component's own name
     */
    String name() default "";

    /**
     * The column type, overriding inference.
     *
     * @return at most one type; empty (default) to infer it
     */
    DataType[] type() default {};

    /**
     * Decimal precision, for {@link DataType#Decimal128} columns.
     *
     * @return 1..38, or -1 (default) for 38
     */
    int precision() default -1;

    /**
     * Decimal scale, for {@link DataType#Decimal128} columns.
     *
     * @return 0..precision, or -1 (default) for 10
     */
    int scale() default -1;
}
