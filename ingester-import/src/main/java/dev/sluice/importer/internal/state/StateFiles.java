package dev.sluice.importer.internal.state;

import dev.sluice.importer.internal.failure.UsageException;
import dev.sluice.importer.internal.source.Inputs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * The resume state's file: where it is, its lock (held from the first reading to the end of the run), and its
 * reading, refused when it belongs to another import or its inputs changed.
 */
public final class StateFiles implements AutoCloseable {
    /**
     * What the state's file is chosen and read by.
     *
     * @param state {@code --state}, or null for a file beside the first input
     * @param rejects {@code --rejects}, or null
     * @param database the database imported into
     * @param restart whether {@code --restart} starts the state afresh
     */
    public record Options(Path state, Path rejects, String database, boolean restart) {
    }

    private final Options o;
    /** The lock of the state file, held from the state's first reading to the end of the run. */
    private java.nio.channels.FileLock stateLock;

    /**
     * Creates the state's file handling; nothing is read or locked yet.
     *
     * @param options what the file is chosen and read by
     */
    public StateFiles(Options options) {
        this.o = options;
    }

    /**
     * The state file's own path: links followed (the state is replaced by renaming a new file over it, which would
     * replace a link rather than the file it names) and the directory's real path, so that one file reached by two
     * spellings has one lock.
     *
     * @param file the path as given
     * @return the path to read, write and lock
     */
    public static Path realStatePath(Path file) {
        Path p = file.toAbsolutePath().normalize();
        try {
            for (int hops = 0; hops < 40 && Files.isSymbolicLink(p); hops++) {
                p = p.resolveSibling(Files.readSymbolicLink(p)).normalize();
            }
            Path parent = p.getParent();
            if (parent != null && Files.isDirectory(parent)) {
                return parent.toRealPath().resolve(p.getFileName());
            }
        } catch (IOException e) {
            // the path as given: creating the lock beside it reports what is wrong with it
        }
        return p;
    }

    /**
     * Holds {@code <state file>.lock} for the rest of the run, so that a second import with the same state file (the
     * same inputs, or the same {@code --state}) is refused while this one runs, instead of both writing the rows and
     * the state. The lock is the operating system's (released when the process ends, even when killed); the file
     * stays.
     */
    private void lock(Path stateFile) {
        if (stateLock != null) {
            return;
        }
        Path lockFile = stateFile.resolveSibling(stateFile.getFileName() + ".lock");
        java.nio.channels.FileChannel ch;
        try {
            ch = java.nio.channels.FileChannel.open(lockFile, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UsageException("cannot create " + lockFile + " beside the state file: " + e.getMessage()
                    + " (pass --state with a file in a writable directory)");
        }
        java.nio.channels.FileLock l;
        try {
            l = ch.tryLock();
        } catch (java.nio.channels.OverlappingFileLockException | IOException e) {
            l = null;
        }
        if (l == null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // the lock was not taken
            }
            throw new UsageException("another import is running with the state file " + stateFile + " (it holds "
                    + lockFile + "): wait for it to end, or give this import its own --state; nothing was sent");
        }
        stateLock = l;
    }

    private Path stateFile(List<Inputs.Input> inputs) {
        Path file = o.state();
        if (file == null) {
            Inputs.Input first = inputs.get(0);
            file = first.path() == null ? Paths.get("stdin.import-state.json")
                    : first.path().toAbsolutePath().resolveSibling(first.path().getFileName() + ".import-state.json");
        }
        return realStatePath(file);
    }

    /**
     * Tells the import's own files given by option apart from its inputs: the {@code --state} file, its lock and
     * temporary copy, and the {@code --rejects} file.
     *
     * @param file a file found in a directory given as input
     * @return true when it is one of them
     */
    public boolean isOwn(Path file) {
        Path f = realStatePath(file);
        if (o.rejects() != null && f.equals(realStatePath(o.rejects()))) {
            return true;
        }
        if (o.state() == null) {
            return false;
        }
        Path state = realStatePath(o.state());
        return f.equals(state) || f.equals(state.resolveSibling(state.getFileName() + ".lock"))
                || f.equals(state.resolveSibling(state.getFileName() + ".tmp"));
    }

    /**
     * Refuses a {@code --rejects} file that is an input or the state file.
     *
     * @param inputs the inputs
     */
    public void checkRejectsFile(List<Inputs.Input> inputs) {
        if (o.rejects() == null) {
            return;
        }
        Path rejects = realStatePath(o.rejects());
        for (Inputs.Input in : inputs) {
            if (in.path() != null && rejects.equals(realStatePath(in.path()))) {
                throw new UsageException("--rejects " + o.rejects() + " is also an input: give the rejected rows a file of"
                        + " their own; nothing was sent");
            }
        }
        if (rejects.equals(stateFile(inputs))) {
            throw new UsageException("--rejects " + o.rejects() + " is the state file: give the rejected rows a file of"
                    + " their own; nothing was sent");
        }
    }

    /**
     * Reads the state for an import (a new one when there is none, or with {@code --restart}), taking the state
     * file's lock first.
     *
     * @param inputs the inputs
     * @param table the table (or how line protocol names its tables)
     * @return the state
     * @throws UsageException when the state file is an input, is locked by another import, belongs to another import,
     *     or records inputs that changed
     */
    public State load(List<Inputs.Input> inputs, String table) {
        Path file = stateFile(inputs);
        for (Inputs.Input in : inputs) {
            if (in.path() != null && file.equals(realStatePath(in.path()))) {
                throw new UsageException("the state file " + file + " is also an input: give --state a file of its own;"
                        + " nothing was sent");
            }
        }
        lock(file);
        State s;
        try {
            // Read even with --restart: a file that is no state file is refused rather than written over.
            s = State.load(file);
        } catch (IOException e) {
            throw new UsageException(e.getMessage());
        }
        if (o.restart()) {
            s = null;
        }
        if (s != null && !table.equals(s.table)) {
            throw new UsageException("state file " + file + " belongs to an import into '" + s.table + "', not '" + table
                    + "': pass --state with another file, or --restart");
        }
        if (s != null && s.database != null && !o.database().equals(s.database)) {
            throw new UsageException("state file " + file + " belongs to an import into database '" + s.database
                    + "', not '" + o.database() + "': pass --state with another file, or --restart");
        }
        if (s == null) {
            s = new State(file);
            s.table = table;
            s.database = o.database();
            s.importTimeNanos = System.currentTimeMillis() * 1_000_000L;
        }
        for (Inputs.Input in : inputs) {
            State.Entry e = s.entry(in.name());
            if (e == null) {
                s.entries.add(new State.Entry(in.name(), in.size(), in.modified()));
            } else if (in.path() == null && e.done) {
                throw new UsageException("state file " + file + " records standard input as imported to the end, and"
                        + " a stream cannot be told apart from the one it recorded: rerun with --restart to import this"
                        + " stream, or pass --state with another file");
            } else if (in.path() != null && (e.size != in.size() || e.modified != in.modified())) {
                throw new UsageException("'" + in.name() + "' changed since " + file + " recorded it (size " + e.size
                        + " -> " + in.size() + "): rerun with --restart to import everything again, or restore the file"
                        + (s.appendMode ? ". The table keeps every row (append mode): --restart would store the rows"
                        + " already written twice; import the rows not yet written from a new file instead" : ""));
            }
        }
        return s;
    }

    /** Releases the state file's lock, if it was taken. */
    @Override
    public void close() {
        if (stateLock != null) {
            try {
                stateLock.channel().close();
            } catch (IOException ignored) {
                // the lock goes with the process anyway
            }
        }
    }
}
