package dev.sluice.importer.internal.source;

import com.github.luben.zstd.ZstdInputStream;
import dev.sluice.importer.internal.failure.UsageException;
import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Expands the command's input arguments (files, directories, globs, {@code -}) and opens them. */
public final class Inputs {
    private Inputs() {
    }

    /**
     * One input: a file or standard input.
     *
     * @param name how messages and the state file name it (the path as given or found, or {@code -})
     * @param path the file, or null for standard input
     * @param format its format
     * @param compression {@code gz}, {@code zst} or null
     * @param index its position among the inputs
     */
    public record Input(String name, Path path, Format format, String compression, int index) {
        /**
         * Returns the file's size in bytes, or -1 for standard input.
         *
         * @return the size
         */
        public long size() {
            try {
                return path == null ? -1 : Files.size(path);
            } catch (IOException e) {
                return -1;
            }
        }

        /**
         * Returns the file's modification time in milliseconds, or -1 for standard input.
         *
         * @return the time
         */
        public long modified() {
            try {
                return path == null ? -1 : Files.getLastModifiedTime(path).toMillis();
            } catch (IOException e) {
                return -1;
            }
        }
    }

    /**
     * Expands arguments in order: a directory gives its files with a known extension (sorted, recursively), a
     * glob ({@code *}, {@code ?}, {@code [..]}, <code>{a,b}</code>) the files it matches (sorted), {@code -}
     * standard input.
     *
     * @param args the arguments
     * @param forced the {@code --format}, or null to tell by extension
     * @return the inputs
     * @throws UsageException when an argument matches nothing or a format cannot be told
     */
    public static List<Input> expand(List<String> args, Format forced) {
        return expand(args, forced, new ArrayList<>(), f -> false);
    }

    /**
     * A file a directory holds that the import does not read.
     *
     * @param file the file
     * @param reason why it is not read, and how to read it
     */
    public record Skipped(String file, String reason) {
    }

    /**
     * Expands arguments as {@link #expand(List, Format)} does, and lists the files of directories given that are not
     * read: files of an extension no format has, hidden files of a data extension, links to directories (not
     * followed) and links whose target is missing. The import's own files (its state, the state's lock and temporary
     * copy, its rejects file) are never read as inputs, and left out of the list, as are hidden files of other
     * extensions.
     *
     * @param args the arguments
     * @param forced the {@code --format}, or null to tell by extension
     * @param skipped receives the files not read, with the reason
     * @param own tells the import's own files given by option ({@code --state}, {@code --rejects}) apart
     * @return the inputs
     * @throws UsageException when an argument matches nothing or a format cannot be told
     */
    public static List<Input> expand(List<String> args, Format forced, List<Skipped> skipped,
            java.util.function.Predicate<Path> own) {
        List<Input> out = new ArrayList<>();
        // A file named twice (two spellings, or also inside a directory given) is one input: read once.
        java.util.Set<Path> seen = new java.util.HashSet<>();
        for (String a : args) {
            if (a.equals("-")) {
                if (forced == null) {
                    throw new UsageException("standard input ('-') needs --format csv|tsv|jsonl|lp");
                }
                out.add(new Input("-", null, forced, null, out.size()));
                continue;
            }
            List<Path> files;
            Path p = Paths.get(a);
            if (isGlob(a)) {
                files = glob(a);
                if (files.isEmpty()) {
                    throw new UsageException("no file matches '" + a + "'");
                }
            } else if (Files.isDirectory(p)) {
                files = new ArrayList<>();
                for (Path f : walk(p, skipped)) {
                    if (importsOwn(f) || own.test(f)) {
                        continue;
                    }
                    if (f.getFileName().toString().startsWith(".")) {
                        if (formatOf(f) != null) {
                            skipped.add(new Skipped(f.toString(), "its name starts with a dot (a hidden file): name it"
                                    + " as an input to read it"));
                        }
                    } else if (forced != null || formatOf(f) != null) {
                        files.add(f);
                    } else if (!importsOwn(f)) {
                        skipped.add(new Skipped(f.toString(), "its extension is none of .csv .tsv .tab .jsonl .ndjson"
                                + " .json .lp .line .influx .parquet (optionally .gz or .zst): name it as an input with"
                                + " --format, or rename it"));
                    }
                }
                if (files.isEmpty()) {
                    throw new UsageException("directory '" + a + "' holds no .csv, .tsv, .jsonl, .lp or .parquet"
                            + " file (the text formats optionally .gz or .zst)");
                }
            } else if (Files.isRegularFile(p)) {
                files = List.of(p);
            } else {
                throw new UsageException("no such file or directory: " + a);
            }
            for (Path f : files) {
                if (!seen.add(identity(f))) {
                    continue;
                }
                Format fmt = forced != null ? forced : formatOf(f);
                if (fmt == null) {
                    throw new UsageException("cannot tell the format of '" + f + "' from its extension: use --format");
                }
                out.add(new Input(f.toString(), f, fmt, compressionOf(f), out.size()));
            }
        }
        return out;
    }

    /** The file itself, whatever path names it (links resolved). */
    private static Path identity(Path f) {
        try {
            return f.toRealPath();
        } catch (java.io.IOException e) {
            return f.toAbsolutePath().normalize();
        }
    }

    static boolean isGlob(String s) {
        return s.indexOf('*') >= 0 || s.indexOf('?') >= 0 || s.indexOf('[') >= 0 || s.indexOf('{') >= 0;
    }

    private static List<Path> glob(String pattern) {
        // The base is the longest leading run of path elements without glob characters.
        String norm = pattern.replace('\\', '/');
        int firstGlob = norm.length();
        for (char c : new char[] {'*', '?', '[', '{'}) {
            int i = norm.indexOf(c);
            if (i >= 0) {
                firstGlob = Math.min(firstGlob, i);
            }
        }
        int slash = norm.lastIndexOf('/', firstGlob);
        Path base = slash < 0 ? Paths.get(".") : Paths.get(slash == 0 ? "/" : norm.substring(0, slash));
        String rel = slash < 0 ? norm : norm.substring(slash + 1);
        PathMatcher m = FileSystems.getDefault().getPathMatcher("glob:" + rel);
        if (!Files.isDirectory(base)) {
            return List.of();
        }
        try (Stream<Path> s = Files.walk(base)) {
            return s.filter(Files::isRegularFile).filter(f -> m.matches(base.relativize(f)))
                    .map(f -> slash < 0 ? base.relativize(f) : f).sorted().collect(Collectors.toList());
        } catch (IOException e) {
            throw new UsageException("cannot list '" + base + "' for '" + pattern + "': " + e.getMessage());
        }
    }

    /**
     * The regular files under a directory, sorted; links to directories (not followed) and links whose target is
     * missing go to {@code skipped}.
     */
    private static List<Path> walk(Path dir, List<Skipped> skipped) {
        List<Path> links = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> s = Files.walk(dir)) {
            files = s.filter(f -> {
                if (Files.isRegularFile(f)) {
                    return true;
                }
                if (Files.isSymbolicLink(f)) {
                    links.add(f);
                }
                return false;
            }).sorted().collect(Collectors.toList());
        } catch (IOException e) {
            throw new UsageException("cannot list directory '" + dir + "': " + e.getMessage());
        }
        links.stream().sorted().forEach(l -> skipped.add(new Skipped(l.toString(), Files.isDirectory(l)
                ? "a link to a directory, not followed: give it as an input to read its files"
                : "a link whose target is missing")));
        return files;
    }

    /** The import's own files beside its inputs: a default state file, its lock and temporary copy. */
    private static boolean importsOwn(Path f) {
        String n = f.getFileName().toString();
        return n.endsWith(".import-state.json") || n.endsWith(".import-state.json.lock")
                || n.endsWith(".import-state.json.tmp");
    }

    static String compressionOf(Path f) {
        String n = f.getFileName().toString().toLowerCase(Locale.ROOT);
        return n.endsWith(".gz") ? "gz" : n.endsWith(".zst") || n.endsWith(".zstd") ? "zst" : null;
    }

    static Format formatOf(Path f) {
        String n = f.getFileName().toString();
        String c = compressionOf(f);
        if (c != null) {
            n = n.substring(0, n.lastIndexOf('.'));
        }
        return Format.ofFileName(n);
    }

    /**
     * Opens an input, decompressing {@code .gz} and {@code .zst}; {@code rawBytes} counts the bytes read from the
     * file itself (before decompression), for progress.
     *
     * @param in the input
     * @param rawBytes counter of bytes read from disk or standard input
     * @return the decompressed stream
     * @throws IOException when the file cannot be opened
     */
    public static InputStream open(Input in, AtomicLong rawBytes) throws IOException {
        InputStream raw = in.path() == null ? System.in : Files.newInputStream(in.path());
        InputStream counted = new FilterInputStream(new BufferedInputStream(raw, 1 << 16)) {
            @Override
            public int read() throws IOException {
                int b = super.read();
                if (b >= 0) {
                    rawBytes.incrementAndGet();
                }
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = super.read(b, off, len);
                if (n > 0) {
                    rawBytes.addAndGet(n);
                }
                return n;
            }
        };
        String c = in.compression();
        if (c == null && in.path() == null) {
            // Standard input: tell compression by its magic bytes.
            long before = rawBytes.get();
            counted.mark(4);
            int b0 = counted.read();
            int b1 = counted.read();
            int b2 = counted.read();
            int b3 = counted.read();
            counted.reset();
            rawBytes.set(before);
            if (b0 == 0x1f && b1 == 0x8b) {
                c = "gz";
            } else if (b0 == 0x28 && b1 == 0xb5 && b2 == 0x2f && b3 == 0xfd) {
                c = "zst";
            }
        }
        if ("gz".equals(c)) {
            return new BufferedInputStream(new java.util.zip.GZIPInputStream(counted, 1 << 16), 1 << 16);
        }
        if ("zst".equals(c)) {
            return new BufferedInputStream(new ZstdInputStream(counted), 1 << 16);
        }
        return counted;
    }
}
