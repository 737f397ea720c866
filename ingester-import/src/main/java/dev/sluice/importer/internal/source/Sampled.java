package dev.sluice.importer.internal.source;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A source whose first records were read ahead for type inference; they are replayed before the rest, so a
 * stream (standard input) is read once.
 */
public final class Sampled implements RecordSource {
    /**
     * A record read for the sample.
     *
     * @param values its values by source column, or null for a record that cannot be parsed
     * @param line the line it starts on
     * @param where its position for messages
     * @param raw its text, rendered on demand
     * @param bad why it cannot be parsed, or null
     */
    private record Item(Object[] values, long line, String where, java.util.function.Supplier<String> raw, BadRecord bad) {
    }

    private final RecordSource in;
    private final List<Item> items = new ArrayList<>();
    private int pos = -1;
    private Item current;

    /**
     * Reads the first records of a source.
     *
     * @param in the source, read on after the sample
     * @param n how many records to sample
     * @throws IOException when the source cannot be read
     */
    public Sampled(RecordSource in, int n) throws IOException {
        this.in = in;
        while (items.size() < n) {
            try {
                if (!in.next()) {
                    break;
                }
                Object[] v = new Object[in.columns().size()];
                for (int i = 0; i < v.length; i++) {
                    v[i] = in.value(i);
                }
                items.add(new Item(v, in.line(), in.where(), in.rawLater(), null));
            } catch (BadRecord b) {
                String raw = b.raw();
                items.add(new Item(null, b.line(), "line " + b.line(), () -> raw, b));
            }
        }
    }

    /** @return the sampled records' values (bad records left out) */
    public List<Object[]> rows() {
        List<Object[]> out = new ArrayList<>();
        for (Item i : items) {
            if (i.values() != null) {
                out.add(i.values());
            }
        }
        return out;
    }

    @Override
    public List<String> columns() {
        return in.columns();
    }

    @Override
    public boolean next() throws IOException {
        if (pos + 1 < items.size()) {
            current = items.get(++pos);
            if (current.bad() != null) {
                throw current.bad();
            }
            return true;
        }
        pos = items.size();
        current = null;
        return in.next();
    }

    @Override
    public Object value(int column) {
        if (current != null) {
            return column < current.values().length ? current.values()[column] : null;
        }
        return in.value(column);
    }

    @Override
    public long line() {
        return current != null ? current.line() : in.line();
    }

    @Override
    public long position(long counted) {
        return current != null ? counted : in.position(counted);
    }

    @Override
    public String where() {
        return current != null ? current.where() : in.where();
    }

    @Override
    public long skip(long n) throws IOException {
        long done = 0;
        while (done < n && pos + 1 < items.size()) {
            pos++;
            done++;
        }
        if (done < n) {
            pos = items.size();
            current = null;
            done += in.skip(n - done);
        }
        return done;
    }

    @Override
    public void readValuesAtOnce() {
        in.readValuesAtOnce(); // the sampled records keep values of their own
    }

    @Override
    public String raw() {
        if (current != null) {
            return current.raw().get();
        }
        return in.raw();
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
