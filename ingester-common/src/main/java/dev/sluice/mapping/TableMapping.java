package dev.sluice.mapping;

import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.VectorType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import java.lang.annotation.Annotation;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How a class annotated with {@link Table}, {@link Tag}, {@link Field} and {@link Timestamp} becomes rows: its
 * schema, derived once, and one accessor per column, resolved once. Obtain with {@link #of(Class)} (cached per
 * class). {@code GreptimeDB.writeObjects} uses it; so can a connector or a program of your own:
 *
 * <pre>{@code
 * TableMapping m = TableMapping.of(Reading.class);
 * Object[] row = new Object[m.schema().columnCount()];
 * m.values(reading, row);
 * table.addRow(row);
 * }</pre>
 *
 * <p>Record components, or the fields of a class and its superclasses, carry the annotations. On the module path
 * the class's package must be open to {@code dev.sluice.common}.
 */
public final class TableMapping {
    private static final ClassValue<TableMapping> CACHE = new ClassValue<>() {
        @Override
        protected TableMapping computeValue(Class<?> type) {
            return new TableMapping(type);
        }
    };

    private final TableSchema schema;
    private final MethodHandle[] accessors;

    /**
     * Returns the mapping of a class.
     *
     * @param type an annotated record or class
     * @return its mapping
     * @throws IllegalArgumentException naming the class and component when the annotations are wrong
     */
    public static TableMapping of(Class<?> type) {
        return CACHE.get(type);
    }

    private TableMapping(Class<?> type) {
        dev.sluice.mapping.Table table = type.getAnnotation(dev.sluice.mapping.Table.class);
        if (table == null) {
            throw new IllegalArgumentException(type.getName() + " is not annotated @dev.sluice.mapping.Table");
        }
        String name = table.value().isEmpty() ? snake(type.getSimpleName()) : table.value();
        TableSchema.Builder b = TableSchema.newBuilder(name);
        List<MethodHandle> handles = new ArrayList<>();
        MethodHandles.Lookup lookup;
        // On the module path a named module reads only what it requires; the user's module is not among them.
        // Reading it is this module's own decision (no-op on the class path); what the user must grant is access,
        // by opening the package to dev.sluice.common.
        TableMapping.class.getModule().addReads(type.getModule());
        try {
            lookup = MethodHandles.privateLookupIn(type, MethodHandles.lookup());
        } catch (IllegalAccessException e) {
            throw new IllegalArgumentException("cannot read the members of " + type.getName() + ": " + e.getMessage(), e);
        }
        if (type.isRecord()) {
            for (RecordComponent rc : type.getRecordComponents()) {
                if (!column(type, rc.getName(), rc.getType(), rc, b)) {
                    continue;
                }
                try {
                    handles.add(lookup.unreflect(rc.getAccessor()));
                } catch (IllegalAccessException e) {
                    throw new IllegalArgumentException("cannot read " + type.getName() + "." + rc.getName(), e);
                }
            }
        } else {
            for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                MethodHandles.Lookup in;
                try {
                    in = c == type ? lookup : MethodHandles.privateLookupIn(c, MethodHandles.lookup());
                } catch (IllegalAccessException e) {
                    throw new IllegalArgumentException("cannot read the members of " + c.getName() + ": "
                            + e.getMessage(), e);
                }
                for (java.lang.reflect.Field f : c.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers()) || !column(type, f.getName(), f.getType(), f, b)) {
                        continue;
                    }
                    try {
                        handles.add(in.unreflectGetter(f));
                    } catch (IllegalAccessException e) {
                        throw new IllegalArgumentException("cannot read " + c.getName() + "." + f.getName(), e);
                    }
                }
            }
        }
        if (handles.isEmpty()) {
            throw new IllegalArgumentException(type.getName() + " has no component annotated @Tag, @Field or @Timestamp");
        }
        try {
            this.schema = b.build();
        } catch (InvalidDataException e) {
            throw new IllegalArgumentException(type.getName() + ": " + e.getMessage(), e);
        }
        this.accessors = new MethodHandle[handles.size()];
        for (int i = 0; i < accessors.length; i++) {
            accessors[i] = handles.get(i).asType(MethodType.methodType(Object.class, Object.class));
        }
    }

    /** Adds the member's column; tells whether the member is mapped at all. */
    private static boolean column(Class<?> owner, String member, Class<?> javaType, AnnotatedElement el,
                                       TableSchema.Builder b) {
        Tag tag = el.getAnnotation(Tag.class);
        Field field = el.getAnnotation(Field.class);
        Timestamp ts = el.getAnnotation(Timestamp.class);
        int count = (tag != null ? 1 : 0) + (field != null ? 1 : 0) + (ts != null ? 1 : 0);
        if (count == 0) {
            return false;
        }
        String where = owner.getName() + "." + member;
        if (count > 1) {
            throw new IllegalArgumentException(where + " has more than one of @Tag, @Field, @Timestamp");
        }
        Annotation a = tag != null ? tag : field != null ? field : ts;
        SemanticType semantic = tag != null ? SemanticType.Tag : field != null ? SemanticType.Field : SemanticType.Timestamp;
        String name = tag != null ? tag.name() : field != null ? field.name() : ts.name();
        DataType[] override = tag != null ? tag.type() : field != null ? field.type() : ts.type();
        int precision = tag != null ? tag.precision() : field != null ? field.precision() : ts.precision();
        int scale = tag != null ? tag.scale() : field != null ? field.scale() : ts.scale();
        if (override.length > 1) {
            throw new IllegalArgumentException(where + ": @" + a.annotationType().getSimpleName() + " names more than one type");
        }
        DataType type = override.length == 1 ? override[0] : infer(javaType);
        if (type == null) {
            throw new IllegalArgumentException(where + ": no column type is inferred for " + javaType.getName()
                    + "; name one with type = DataType.X");
        }
        if (semantic == SemanticType.Timestamp && !type.isTimestamp()) {
            throw new IllegalArgumentException(where + ": @Timestamp needs a timestamp type (Instant, Date, or a long"
                    + " with type = DataType.TimestampMillisecond...), not " + type);
        }
        String column = name.isEmpty() ? member : name;
        int dim = field != null ? field.dim() : -1;
        if ((type == DataType.Vector) != (dim >= 0)) {
            throw new IllegalArgumentException(where + (type == DataType.Vector
                    ? ": a Vector column needs its dimension: @Field(dim = N)" : ": dim only applies to Vector, not " + type));
        }
        if (type == DataType.Decimal128) {
            b.addColumn(column, semantic, type, new DecimalType(precision < 0 ? 38 : precision, scale < 0 ? 10 : scale));
        } else if (type == DataType.Vector) {
            b.addColumn(column, semantic, type, new VectorType(dim));
        } else {
            b.addColumn(column, semantic, type);
        }
        return true;
    }

    private static DataType infer(Class<?> t) {
        if (t == String.class) {
            return DataType.String;
        } else if (t == long.class || t == Long.class) {
            return DataType.Int64;
        } else if (t == int.class || t == Integer.class) {
            return DataType.Int32;
        } else if (t == short.class || t == Short.class) {
            return DataType.Int16;
        } else if (t == byte.class || t == Byte.class) {
            return DataType.Int8;
        } else if (t == double.class || t == Double.class) {
            return DataType.Float64;
        } else if (t == float.class || t == Float.class) {
            return DataType.Float32;
        } else if (t == boolean.class || t == Boolean.class) {
            return DataType.Bool;
        } else if (t == byte[].class || ByteBuffer.class.isAssignableFrom(t)) {
            return DataType.Binary;
        } else if (t == float[].class) {
            return DataType.Vector;
        } else if (t == BigDecimal.class) {
            return DataType.Decimal128;
        } else if (t == Instant.class || t == java.util.Date.class || t == OffsetDateTime.class || t == ZonedDateTime.class) {
            return DataType.TimestampMillisecond;
        } else if (t == LocalDate.class) {
            return DataType.Date;
        } else if (t == LocalTime.class) {
            return DataType.TimeMillisecond;
        } else if (Map.class.isAssignableFrom(t) || List.class.isAssignableFrom(t)) {
            return DataType.Json;
        }
        return null;
    }

    private static String snake(String s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isUpperCase(c)) {
                if (i > 0) {
                    sb.append('_');
                }
                sb.append(Character.toLowerCase(c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /**
     * Returns the derived schema.
     *
     * @return the schema
     */
    public TableSchema schema() {
        return schema;
    }

    /**
     * Reads one object's column values into an array.
     *
     * @param object an instance of the mapped class
     * @param into an array of {@code schema().columnCount()} slots (reused by the caller)
     */
    public void values(Object object, Object[] into) {
        for (int i = 0; i < accessors.length; i++) {
            try {
                into[i] = accessors[i].invokeExact(object);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException("reading column " + schema.column(i).name() + " of " + object.getClass().getName(), t);
            }
        }
    }
}
