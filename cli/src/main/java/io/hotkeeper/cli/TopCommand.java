package io.hotkeeper.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperInfo;
import io.hotkeeper.engine.salt.SaltMode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.InputStream;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/** {@code hotkeeper top}: the heavy hitters of files or standard input, one key per line. See docs/cli.md. */
@Command(name = "top", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Reports the heavy hitters of one key per line (bytes, any encoding; CRLF tolerated; "
                + "empty lines skipped).",
                "Reads the FILEs (memory-mapped) or standard input (no FILE, or -)."},
        footer = {"", "Output: --format tsv prints exactly one line per heavy hitter, rank<TAB>key<TAB>estimate; "
                + "keys are escaped (\\\\ \\t \\n \\r, \\xHH for other control bytes and invalid UTF-8).",
                "Exit codes: 0 done, 1 internal error, 2 bad option, or an input unreadable or truncated while "
                        + "read. Details: docs/cli.md."})
final class TopCommand implements Callable<Integer> {
    /** Table bytes when --memory is not given. */
    static final String DEFAULT_MEMORY = "1MiB";
    /** Stored key prefix when --max-key-bytes is not given. */
    static final int DEFAULT_MAX_KEY_BYTES = 256;
    /** Input above which a progress bar is drawn (when stderr is a terminal). */
    static final long PROGRESS_THRESHOLD = 64L << 20;

    enum Format { table, tsv, json }

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", arity = "0..*",
            description = "Input files; - or none reads standard input.")
    List<String> files = new ArrayList<>();

    @Option(names = "--k", paramLabel = "K", description = "Heavy hitters to report, 1..100000 (default: ${DEFAULT-VALUE}).")
    int k = 100;

    @Option(names = "--memory", paramLabel = "SIZE", defaultValue = DEFAULT_MEMORY, converter = Converters.Size.class,
            description = "Sketch table size: bytes or 64k, 64KiB, 1MiB, 16MB (binary units); 4KiB..64MiB, rounded "
                    + "down to a power of two (default: ${DEFAULT-VALUE}).")
    long memory;

    @Option(names = "--threads", paramLabel = "N", description = "Ingest threads, 1..1024 (default: ${DEFAULT-VALUE}).")
    int threads = 1;

    @Option(names = "--field", paramLabel = "N",
            description = "Use field N (1-based) of each line as the key; lines with fewer fields are skipped.")
    Integer field;

    @Option(names = {"--delimiter", "-d"}, paramLabel = "C", defaultValue = "\\t", converter = Converters.Delimiter.class,
            description = "Field delimiter for --field: one ASCII character, \\t, tab, space, comma, semicolon, "
                    + "pipe (default: tab).")
    byte delimiter;

    @Option(names = "--salt", paramLabel = "MODE", defaultValue = "shared", converter = Converters.Salt.class,
            completionCandidates = Converters.SaltModes.class,
            description = "Eviction salt: shared, sharded or per-worker (default: ${DEFAULT-VALUE}).")
    SaltMode salt;

    @Option(names = "--numa", paramLabel = "POLICY", defaultValue = "default", converter = Converters.Numa.class,
            description = "NUMA placement of the table: default (first touch), local, interleave, node:N "
                    + "(default: ${DEFAULT-VALUE}). Falls back to default without libnuma or with one node.")
    io.hotkeeper.engine.placement.Placement numa;

    @Option(names = "--seed", paramLabel = "N", description = "Fixed hash seed, for reproducible runs (default: random).")
    Long seed;

    @Option(names = "--max-key-bytes", paramLabel = "N",
            description = "Longest key stored whole, 1..4096; longer keys are counted in full but reported "
                    + "truncated (default: ${DEFAULT-VALUE}).")
    int maxKeyBytes = DEFAULT_MAX_KEY_BYTES;

    @Option(names = "--min-count", paramLabel = "N",
            description = "Count at which a key starts being tracked (the sketch's promotion floor); keys seen "
                    + "fewer times are never reported (default: ${DEFAULT-VALUE}).")
    long minCount = Hotkeeper.DEFAULT_PROMOTION_FLOOR;

    @Option(names = "--max-line-bytes", paramLabel = "SIZE", defaultValue = "1MiB", converter = Converters.Size.class,
            description = "Longer lines are skipped and counted as tooLong, 1..1GiB (default: ${DEFAULT-VALUE}).")
    long maxLineBytes;

    @Option(names = "--format", paramLabel = "FORMAT",
            description = "table, tsv or json (default: ${DEFAULT-VALUE}).")
    Format format = Format.table;

    @Option(names = "--stats", description = "Print one JSON object of run statistics to stderr.")
    boolean stats;

    @Option(names = "--save", paramLabel = "FILE",
            description = "Also write the sketch's snapshot to FILE (see 'hotkeeper merge', 'hotkeeper show').")
    String save;

    private final Supplier<InputStream> stdin;
    private final boolean terminal;

    TopCommand(Supplier<InputStream> stdin, boolean terminal) {
        this.stdin = stdin;
        this.terminal = terminal;
    }

    @Override
    public Integer call() throws Exception {
        check(k >= 1 && k <= 100_000, "--k", k, "must be in 1..100000");
        check(threads >= 1 && threads <= 1024, "--threads", threads, "must be in 1..1024");
        check(field == null || field >= 1, "--field", field, "must be >= 1");
        check(maxLineBytes >= 1 && maxLineBytes <= (1L << 30), "--max-line-bytes", maxLineBytes,
                "must be in 1..1GiB");
        check(memory >= 4096 && memory <= (64L << 20), "--memory", Converters.Size.format(memory),
                "must be 4KiB..64MiB");
        Hotkeeper.Builder builder = Hotkeeper.builder().saltMode(salt).placement(numa);
        configure("--memory", memory, () -> builder.memoryBytes(memory));
        configure("--k", k, () -> builder.k(k));
        configure("--max-key-bytes", maxKeyBytes, () -> builder.maxKeyBytes(maxKeyBytes));
        configure("--min-count", minCount, () -> builder.promotionFloor(minCount));
        if (seed != null) {
            builder.seed(seed);
        }
        if (save != null) {
            builder.recordStats(); // the snapshot's total weight is then the exact stream length
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (Ingest ingest = Ingest.open(files, stdin); Hotkeeper hk = build(builder)) {
            int fieldNumber = field == null ? 0 : field;
            long maxKey = hk.info().maxKeyBytes();
            Progress progress = new Progress(err, ingest.mappedBytes(),
                    terminal && ingest.mappedBytes() > PROGRESS_THRESHOLD);
            long start = System.nanoTime();
            progress.start();
            Tally tally;
            try {
                tally = ingest.run(hk, threads, () -> new LineScanner(hk, fieldNumber, delimiter, maxLineBytes, maxKey),
                        progress);
            } finally {
                progress.finish();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            List<HeavyHitter> top = new ArrayList<>(hk.topK(k));
            top.sort((a, b) -> a.estimate() != b.estimate() ? Long.compare(b.estimate(), a.estimate())
                    : Arrays.compareUnsigned(a.key(), b.key()));
            write(out, top);
            out.flush();
            if (save != null) {
                SnapshotFiles.save(hk, save);
            }
            if (stats) {
                ObjectNode stats = stats(hk.info(), tally, seconds, ingest, top.size());
                var table = hk.placement().region("table");
                ObjectNode placement = stats.putObject("placement");
                placement.put("requested", table.requested().toString());
                placement.put("effective", table.effective().toString());
                placement.put("nodes", table.nodes().toString());
                placement.put("note", table.note());
                err.println(Json.MAPPER.writeValueAsString(stats));
                err.flush();
            }
        }
        return 0;
    }

    private void check(boolean ok, String option, Object value, String why) {
        if (!ok) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '" + option + "': "
                    + value + ": " + why);
        }
    }

    private void configure(String option, Object value, Runnable setter) {
        try {
            setter.run();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '" + option + "': "
                    + value + ": " + e.getMessage().replaceFirst("^[A-Za-z]+=-?\\d+: ", ""));
        }
    }

    /** One reported row, as written by --format json. */
    record Row(int rank, String key, long estimate, boolean truncated) {
    }

    private void write(PrintWriter out, List<HeavyHitter> top) throws Exception {
        switch (format) {
            case tsv -> {
                for (int i = 0; i < top.size(); i++) {
                    HeavyHitter h = top.get(i);
                    out.print(i + 1);
                    out.print('\t');
                    out.print(KeyEscaper.escape(h.key()));
                    out.print('\t');
                    out.print(h.estimate());
                    out.print('\n');
                }
            }
            case json -> {
                List<Row> rows = new ArrayList<>(top.size());
                for (int i = 0; i < top.size(); i++) {
                    HeavyHitter h = top.get(i);
                    rows.add(new Row(i + 1, KeyEscaper.escape(h.key()), h.estimate(), h.truncated()));
                }
                out.print(Json.MAPPER.writer(Json.PRETTY).writeValueAsString(rows));
                out.print('\n');
            }
            case table -> {
                long widest = top.isEmpty() ? 0 : top.getFirst().estimate();
                int estWidth = Math.max("estimate".length(), String.format(Locale.ROOT, "%,d", widest).length());
                int rankWidth = Math.max("rank".length(), Integer.toString(top.size()).length());
                String header = String.format(Locale.ROOT, "%" + rankWidth + "s  %" + estWidth + "s  %s%n",
                        "rank", "estimate", "key");
                out.print(header);
                for (int i = 0; i < top.size(); i++) {
                    HeavyHitter h = top.get(i);
                    out.printf(Locale.ROOT, "%" + rankWidth + "d  %," + estWidth + "d  %s%s%n", i + 1, h.estimate(),
                            KeyEscaper.escape(h.key()), h.truncated() ? "  (truncated)" : "");
                }
                if (top.isEmpty()) {
                    out.println("(no heavy hitters)");
                }
            }
        }
    }

    /** Builds the sketch; the only argument checked this late is a NUMA node that does not exist. */
    private Hotkeeper build(Hotkeeper.Builder builder) {
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--numa': " + e.getMessage());
        }
    }

    private ObjectNode stats(HotkeeperInfo info, Tally t, double seconds, Ingest ingest, int reported) {
        ObjectNode s = Json.MAPPER.createObjectNode();
        s.put("inputs", ingest.sourceCount());
        s.put("bytes", t.bytes);
        s.put("lines", t.keys + t.skipped());
        s.put("keys", t.keys);
        ObjectNode skipped = s.putObject("skipped");
        skipped.put("total", t.skipped());
        skipped.put("empty", t.empty);
        skipped.put("missingField", t.missingField);
        skipped.put("tooLong", t.tooLong);
        s.put("truncatedKeys", t.truncatedKeys);
        s.put("reported", reported);
        s.put("elapsedSeconds", seconds);
        s.put("keysPerSecond", seconds > 0 ? t.keys / seconds : 0);
        s.put("mebibytesPerSecond", seconds > 0 ? t.bytes / seconds / (1 << 20) : 0);
        s.put("threads", threads);
        s.put("k", info.k());
        s.put("tableBytes", info.tableBytes());
        s.put("shardBytes", info.shardBytes());
        s.put("maxKeyBytes", info.maxKeyBytes());
        s.put("minCount", info.promotionFloor());
        s.put("saltMode", info.saltMode().name().toLowerCase(Locale.ROOT));
        s.put("saltShards", info.saltShards());
        return s;
    }

    /** The one Jackson mapper of the tool. */
    static final class Json {
        static final ObjectMapper MAPPER = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);
        static final com.fasterxml.jackson.core.util.DefaultPrettyPrinter PRETTY =
                new com.fasterxml.jackson.core.util.DefaultPrettyPrinter();

        private Json() {
        }
    }
}
