package dev.sluice.flink.internal;

import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.mapping.Field;
import dev.sluice.mapping.Tag;
import dev.sluice.mapping.Timestamp;
import java.lang.reflect.AccessibleObject;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
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
import java.util.Locale;
import java.util.Map;

/**
 * Writes records and classes annotated with Sluice's mapping annotations ({@link dev.sluice.mapping.Table},
 * {@link Tag}, {@link Field}, {@link Timestamp}) as one row each. The column name is the annotation's name, or the
 * member's name in snake_case; the type is the annotation's, or follows the Java type (String, numbers, boolean,
 * byte[], BigDecimal, Instant and the other date-time classes, Map and List as JSON). Members without an
 * annotation are not written.
 *
 * @param <T> the annotated type
 */
public final class AnnotatedEncoder<T> implements RowEncoder<T> {
    private static final long serialVersionUID = 1L;
    private final Class<T> type;
    private final SchemaSpec spec;
    private final List<String> members;
    private transient TableSchema schema;
    private transient Accessor[] accessors;

    private interface Accessor {
        Object get(Object target) throws ReflectiveOperationException;
    }

    /**
     * Reads the annotations.
     *
     * @param type an annotated record or class
     * @throws IllegalArgumentException naming the class and member when the annotations are wrong
     */
    public AnnotatedEncoder(Class<T> type) {
        this.type = type;
        dev.sluice.mapping.Table t = type.getAnnotation(dev.sluice.mapping.Table.class);
        if (t == null) {
            throw new IllegalArgumentException(type.getName() + " is not annotated @dev.sluice.mapping.Table");
        }
        String table = t.value().isEmpty() ? snake(type.getSimpleName()) : t.value();
        TableSchema.Builder b = TableSchema.newBuilder(table);
        List<String> names = new ArrayList<>();
        int timestamps = 0;
        if (type.isRecord()) {
            for (RecordComponent rc : type.getRecordComponents()) {
                if (column(b, type, rc.getName(), rc.getType(), rc)) {
                    names.add(rc.getName());
                    timestamps += rc.isAnnotationPresent(Timestamp.class) ? 1 : 0;
                }
            }
        } else {
            for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                for (java.lang.reflect.Field f : c.getDeclaredFields()) {
                    if (!Modifier.isStatic(f.getModifiers()) && column(b, type, f.getName(), f.getType(), f)) {
                        names.add(f.getName());
                        timestamps += f.isAnnotationPresent(Timestamp.class) ? 1 : 0;
                    }
                }
            }
        }
        if (timestamps != 1) {
            throw new IllegalArgumentException(type.getName() + " needs exactly one @Timestamp member (the time"
                    + " index), found " + timestamps);
        }
        this.spec = SchemaSpec.of(b.build());
        this.members = names;
    }

    /** @return the table the annotations describe */
    public SchemaSpec spec() {
        return spec;
    }

    private static boolean column(TableSchema.Builder b, Class<?> owner, String member, Class<?> javaType,
                                  AnnotatedElement el) {
        Tag tag = el.getAnnotation(Tag.class);
        Field field = el.getAnnotation(Field.class);
        Timestamp ts = el.getAnnotation(Timestamp.class);
        int n = (tag != null ? 1 : 0) + (field != null ? 1 : 0) + (ts != null ? 1 : 0);
        if (n == 0) {
            return false;
        }
        if (n > 1) {
            throw new IllegalArgumentException(owner.getName() + "." + member + " has more than one of @Tag,"
                    + " @Field and @Timestamp");
        }
        String name;
        DataType[] declared;
        int precision;
        int scale;
        SemanticType semantic;
        if (tag != null) {
            name = tag.name();
            declared = tag.type();
            precision = tag.precision();
            scale = tag.scale();
            semantic = SemanticType.Tag;
        } else if (field != null) {
            name = field.name();
            declared = field.type();
            precision = field.precision();
            scale = field.scale();
            semantic = SemanticType.Field;
        } else {
            name = ts.name();
            declared = ts.type();
            precision = ts.precision();
            scale = ts.scale();
            semantic = SemanticType.Timestamp;
        }
        DataType dt = declared.length > 0 ? declared[0] : infer(javaType, semantic);
        if (dt == null) {
            throw new IllegalArgumentException(owner.getName() + "." + member + ": no column type for Java type "
                    + javaType.getName() + "; name one with type = DataType.X");
        }
        String col = name.isEmpty() ? snake(member) : name;
        if (dt == DataType.Decimal128 && precision > 0) {
            b.addColumn(col, semantic, dt, new dev.sluice.data.DecimalType(precision, Math.max(scale, 0)));
        } else {
            b.addColumn(col, semantic, dt);
        }
        return true;
    }

    private static DataType infer(Class<?> t, SemanticType semantic) {
        if (t == String.class) {
            return DataType.String;
        } else if (t == long.class || t == Long.class) {
            return semantic == SemanticType.Timestamp ? DataType.TimestampMillisecond : DataType.Int64;
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
        } else if (t == BigDecimal.class) {
            return DataType.Decimal128;
        } else if (t == Instant.class || t == java.util.Date.class || t == OffsetDateTime.class
                || t == ZonedDateTime.class) {
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
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isUpperCase(c)) {
                if (i > 0) {
                    out.append('_');
                }
                out.append(Character.toLowerCase(c));
            } else {
                out.append(c);
            }
        }
        return out.toString().toLowerCase(Locale.ROOT);
    }

    @Override
    public void open() {
        schema = spec.toSchema();
        accessors = new Accessor[members.size()];
        try {
            for (int i = 0; i < members.size(); i++) {
                String m = members.get(i);
                if (type.isRecord()) {
                    Method get = type.getDeclaredMethod(m);
                    open(get);
                    accessors[i] = get::invoke;
                } else {
                    java.lang.reflect.Field f = field(type, m);
                    open(f);
                    accessors[i] = f::get;
                }
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot read the annotated members of " + type.getName()
                    + " (make the class public, or open its package to this connector): " + e, e);
        }
    }

    private static void open(AccessibleObject o) {
        o.setAccessible(true);
    }

    private static java.lang.reflect.Field field(Class<?> type, String name) throws NoSuchFieldException {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                return c.getDeclaredField(name);
            } catch (NoSuchFieldException e) {
                // look in the superclass
            }
        }
        throw new NoSuchFieldException(type.getName() + "." + name);
    }

    @Override
    public java.util.List<TableSchema> tables() {
        return java.util.List.of(schema);
    }

    @Override
    public void encode(T element, SluiceSession session) throws Exception {
        Object[] values = new Object[accessors.length];
        for (int i = 0; i < accessors.length; i++) {
            values[i] = accessors[i].get(element);
        }
        session.insert(schema, row -> {
            for (int i = 0; i < values.length; i++) {
                if (values[i] != null) {
                    row.setValue(i, values[i]);
                }
            }
        });
    }
}
