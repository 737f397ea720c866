package dev.sluice.importer.internal.source;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * Reads the points of a line protocol input, one record per point: lines that hold no point (blank, comments) are
 * passed over, and a line that does not parse is a {@link BadRecord} naming its line and character. A point goes to
 * the table its measurement names, so the source has no columns of its own:
 * {@link #point()} is its record. A record's position is its last line (a quoted string field can hold line breaks),
 * so the resume state of a line protocol input counts lines.
 */
public final class LineProtocolSource implements RecordSource {
    private final LineProtocol.Reader reader;
    /** A line read by {@link #skip(long)} beyond the position skipped to, handed out by the next {@link #next()}. */
    private boolean pending;
    private LineProtocol.Point point;
    /** Lines read by {@link #next()} that held no point (blank, only whitespace, or a comment). */
    private long withoutPoint;

    /**
     * Reads an input.
     *
     * @param in the input, closed with the source
     */
    public LineProtocolSource(InputStream in) {
        this.reader = new LineProtocol.Reader(in);
    }

    /**
     * Returns the current point.
     *
     * @return the point the last {@link #next()} read
     */
    public LineProtocol.Point point() {
        return point;
    }

    @Override
    public List<String> columns() {
        return List.of();
    }

    @Override
    public boolean next() throws IOException {
        point = null;
        while (true) {
            if (pending) {
                pending = false;
            } else if (!readLine()) {
                return false;
            }
            if (!reader.holdsNoPoint()) {
                break;
            }
            withoutPoint++;
        }
        try {
            point = reader.point();
        } catch (LineProtocol.ParseException e) {
            throw BadRecord.described(reader.firstLine(), "line " + reader.firstLine() + ", " + e.getMessage(),
                    reader.text());
        }
        return true;
    }

    private boolean readLine() throws IOException {
        try {
            return reader.next();
        } catch (IOException e) {
            throw new IOException("after line " + reader.lastLine() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Object value(int column) {
        return null;
    }

    @Override
    public long line() {
        return reader.firstLine();
    }

    @Override
    public long position(long counted) {
        return reader.lastLine();
    }

    /**
     * Passes over the lines up to a line, unparsed.
     *
     * @param position the last line to pass over
     * @return the position reached: that line, or the input's last line when it ends before
     * @throws IOException when the input cannot be read any further
     */
    @Override
    public long skip(long position) throws IOException {
        long reached = 0;
        while (readLine()) {
            if (reader.lastLine() > position) {
                pending = true;
                return position;
            }
            reached = reader.lastLine();
        }
        return reached;
    }

    @Override
    public long linesWithoutRecord() {
        return withoutPoint;
    }

    @Override
    public String raw() {
        return reader.text();
    }

    @Override
    public void close() throws IOException {
        reader.close();
    }
}
