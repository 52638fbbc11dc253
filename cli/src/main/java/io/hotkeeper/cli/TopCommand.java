package io.hotkeeper.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperBuilder;
import io.hotkeeper.engine.HotkeeperInfo;
import io.hotkeeper.engine.Partitioning;
import io.hotkeeper.engine.SaltMode;
import io.hotkeeper.engine.snapshot.HotkeeperSnapshot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.InputStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/** {@code hotkeeper top}: the heavy hitters of files or standard input, one key per line. See docs/cli.md. */
@Command(name = "top", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
        description = {"Reports the heavy hitters of one key per line (bytes, any encoding; CRLF tolerated; "
                + "empty lines skipped).",
                "Reads the FILEs (memory-mapped) or standard input (no FILE, or -)."},
        footer = {"", "Output: --format tsv prints exactly one line per heavy hitter, "
                + "rank<TAB>key<TAB>estimate<TAB>truncated (0 or 1); keys are escaped (\\\\ \\t \\n \\r, \\xHH for "
                + "other control bytes and invalid UTF-8; 'hotkeeper unescape' reverses it).",
                "Exit codes: 0 done, 1 internal error, 2 bad option, or an input unreadable or truncated while "
                        + "read, 130/143 interrupted by SIGINT/SIGTERM (the result so far is printed). "
                        + "Details: docs/cli.md."})
final class TopCommand implements Callable<Integer> {
    /** Total sketch memory when --memory is not given (a 1.75 MiB table at the default k and key length). */
    static final String DEFAULT_MEMORY = "4MiB";
    /** Stored key prefix when --max-key-bytes is not given. */
    static final int DEFAULT_MAX_KEY_BYTES = 256;
    /** Input above which a progress bar is drawn (when stderr is a terminal). */
    static final long PROGRESS_THRESHOLD = 64L << 20;
    /** Time slices of a --window: the window covers between (1 - 1/slices) and 1 times its span. */
    static final int WINDOW_SLICES = 10;
    /** The hash seed when --seed is not given: the same input gives the same output on every run. */
    static final long DEFAULT_SEED = 0x486f746b656570L;

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", arity = "0..*",
            description = "Input files; - or none reads standard input.")
    List<String> files = new ArrayList<>();

    @Option(names = {"-k", "--k"}, paramLabel = "K",
            description = "Heavy hitters to report, 1..100000 (default: ${DEFAULT-VALUE}).")
    int k = 100;

    @Option(names = "--memory", paramLabel = "SIZE", defaultValue = DEFAULT_MEMORY, converter = Converters.Size.class,
            description = "Total native memory of the sketch (table, links, key shards, combiners): bytes or 64k, "
                    + "64KiB, 1MiB, 16MB (binary units), 16KiB..4GiB; too small for -k keys exits 2 naming the "
                    + "minimum (default: ${DEFAULT-VALUE}).")
    long memory;

    @Option(names = "--threads", paramLabel = "N", description = "Ingest threads, 1..1024 (default: ${DEFAULT-VALUE}).")
    int threads = 1;

    @Option(names = "--field", paramLabel = "N",
            description = "Use field N (1-based) of each line as the key; lines with fewer fields are skipped.")
    Integer field;

    @Option(names = {"--delimiter", "-d"}, paramLabel = "C", defaultValue = "\\t",
            converter = Converters.Delimiter.class,
            description = "Field delimiter for --field and --weight-field: ' ' or space splits on runs of blanks "
                    + "like awk; single-space, tab (\\t), comma, semicolon, pipe or any one ASCII character split "
                    + "on each one like cut (default: tab).")
    Splitter delimiter;

    @Option(names = "--weight-field", paramLabel = "N",
            description = "Add the number in field N (1-based) of each line instead of 1: bytes, latency, a "
                    + "count. A non-negative integer up to 2^38-1 (a larger one, or a total past 2^63-1, stops "
                    + "the run: exit 2); lines where it is missing, malformed or 0 are skipped and counted on "
                    + "stderr. Needs --field.")
    Integer weightField;

    @Option(names = "--every", paramLabel = "DURATION", converter = Converters.Period.class,
            description = "Print the top-k so far every DURATION while reading (500ms, 1s, 2m): redrawn on a "
                    + "terminal, appended blocks headed by a timestamp line otherwise.")
    Duration every;

    @Option(names = "--live",
            description = "Redraw the top-k in place on the terminal like top(1), every 250ms (or --every): rank, "
                    + "estimate, share of the total, a bar, keys entering (+) and leaving marked. Ctrl-C leaves "
                    + "it and prints the result. Without a terminal on stdout: --every blocks (1s) instead.")
    boolean live;

    @Option(names = "--window", paramLabel = "DURATION", converter = Converters.Period.class,
            description = "Count only the last DURATION (10s, 5m, 1h): a sliding window of " + WINDOW_SLICES
                    + " slices, so the result covers between 0.9 and 1 x DURATION of input time; with --every, what "
                    + "is hot now. The memory is shared by the slices.")
    Duration window;

    @Option(names = {"-f", "--follow"},
            description = "Read the one FILE like tail -F: to its end, then what is appended, across rotation "
                    + "(rename and create, or copytruncate), until interrupted (Ctrl-C prints the result).")
    boolean follow;

    @Option(names = "--salt", paramLabel = "MODE", converter = Converters.Salt.class,
            completionCandidates = Converters.SaltModes.class,
            description = "Eviction salt: shared, sharded, per-worker or per-table (default: shared with one "
                    + "table, per-table with a table per thread).")
    SaltMode salt;

    @Option(names = "--shared-table",
            description = "With --threads > 1, let every thread write one shared table instead of a table per "
                    + "thread (the default; the tables split --memory).")
    boolean sharedTable;

    @Option(names = "--numa", paramLabel = "POLICY", defaultValue = "default", converter = Converters.Numa.class,
            description = "NUMA placement of the table: default (first touch), local, interleave, node:N "
                    + "(default: ${DEFAULT-VALUE}). Falls back to default without libnuma or with one node.")
    io.hotkeeper.engine.Placement numa;

    @Option(names = "--seed", paramLabel = "N",
            description = "Hash seed; the same seed, input and --threads 1 give the same output (default: a fixed "
                    + "seed). Another seed changes which keys collide.")
    long seed = DEFAULT_SEED;

    @Option(names = "--max-key-bytes", paramLabel = "N",
            description = "Longest key stored whole, 1..4096; longer keys are counted in full but reported "
                    + "truncated (default: ${DEFAULT-VALUE}).")
    int maxKeyBytes = DEFAULT_MAX_KEY_BYTES;

    @Option(names = "--min-count", paramLabel = "N",
            description = "Count at which a key starts being tracked (the sketch's promotion floor); keys seen "
                    + "fewer times are never reported (default: ${DEFAULT-VALUE}).")
    long minCount = Hotkeeper.DEFAULT_PROMOTION_FLOOR;

    @Option(names = "--decay-base", paramLabel = "B",
            description = "The lottery's base, 1.01..1024: a counted key loses one to a newcomer with probability "
                    + "B^-count. Lower lets keys whose run has ended give way sooner; higher keeps medium counts "
                    + "(default: the engine's, 1.02; the HeavyKeeper paper's is 1.08).")
    Double decayBase;

    @Option(names = "--key-bytes", paramLabel = "N",
            description = "Size the key shards for keys of about N bytes, 1..1048576, instead of the heaviest keys "
                    + "in the first file's head; runs with the same --key-bytes, --memory and --seed get tables of "
                    + "one size, which merge slot by slot (default: sampled).")
    Integer keyBytes;

    /**
     * The lengths the key shards are sized for: {@code --key-bytes}, or those of the heaviest keys of the first
     * file's head (empty: standard input, not sampled), see {@link KeySample}.
     */
    private int[] keyLengths = new int[0];

    @Option(names = "--max-line-bytes", paramLabel = "SIZE", defaultValue = "1MiB", converter = Converters.Size.class,
            description = "Longer lines are skipped and counted on stderr (tooLong), 1..1GiB (default: "
                    + "${DEFAULT-VALUE}).")
    long maxLineBytes;

    @Option(names = "--format", paramLabel = "FORMAT",
            description = "table, tsv or json (default: ${DEFAULT-VALUE}).")
    Report.Format format = Report.Format.table;

    @Option(names = "--stats", description = "Print one JSON object of run statistics to stderr.")
    boolean stats;

    @Option(names = "--verbose", description = "Say on stderr when each input starts being read, and let the "
            + "engine's diagnostics (NUMA fallback) through.")
    boolean verbose;

    @Option(names = "--save", paramLabel = "FILE",
            description = "Also write the sketch's snapshot to FILE (see 'hotkeeper merge', 'hotkeeper show').")
    String save;

    private final Supplier<InputStream> stdin;
    private final Terminals terminals;
    private final Interrupts interrupts;
    /** {@link System#nanoTime()} when the tool started (before the options were parsed). */
    private final long started;

    TopCommand(Supplier<InputStream> stdin, Terminals terminals, Interrupts interrupts, long started) {
        this.stdin = stdin;
        this.terminals = terminals;
        this.interrupts = interrupts;
        this.started = started;
    }

    @Override
    public Integer call() throws Exception {
        long called = System.nanoTime();
        check(k >= 1 && k <= 100_000, "--k", k, "must be in 1..100000");
        check(keyBytes == null || keyBytes >= 1 && keyBytes <= 1 << 20, "--key-bytes", keyBytes,
                "must be in 1..1048576");
        check(threads >= 1 && threads <= 1024, "--threads", threads, "must be in 1..1024");
        check(field == null || field >= 1, "--field", field, "must be >= 1");
        check(weightField == null || weightField >= 1, "--weight-field", weightField, "must be >= 1");
        check(weightField == null || field != null, "--weight-field", weightField,
                "needs --field (the key's field)");
        check(maxLineBytes >= 1 && maxLineBytes <= (1L << 30), "--max-line-bytes", maxLineBytes,
                "must be in 1..1GiB");
        check(memory >= (16L << 10) && memory <= (4L << 30), "--memory", Converters.Size.format(memory),
                "must be 16KiB..4GiB");
        if (follow && (files.size() != 1 || files.getFirst().equals("-"))) {
            throw new ParameterException(spec.commandLine(), "--follow needs exactly one FILE (standard input is "
                    + "followed without it)");
        }
        Diagnostics.engineLogging(verbose);
        builder(workerTables()); // the options' own checks, before any input is opened
        // The lengths of the heaviest keys in the first file's head size the key shards (docs/cli.md, "Keys longer
        // than the plan assumes"); standard input is not sampled.
        keyLengths = keyBytes != null ? new int[] {keyBytes} : files.isEmpty() || files.getFirst().equals("-")
                ? new int[0] : KeySample.topKeyLengths(files.getFirst(), k, field == null ? 0 : field, delimiter,
                weightField == null ? 0 : weightField, maxLineBytes);
        HotkeeperBuilder builder = builder(workerTables());
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        long setup = System.nanoTime();
        try (Ingest ingest = Ingest.open(files, stdin, follow); Hotkeeper hk = build(builder)) {
            long ready = System.nanoTime();
            if (verbose) {
                ingest.onInput(name -> {
                    err.println("hotkeeper: reading " + name);
                    err.flush();
                });
            }
            int fieldNumber = field == null ? 0 : field;
            int weightNumber = weightField == null ? 0 : weightField;
            long maxKey = hk.info().maxKeyBytes();
            LiveView view = live && terminals.stdout() ? LiveView.open() : null;
            Duration period = every;
            boolean redraw = terminals.stdout();
            if (live && view == null) {
                // Not a terminal, or one that JLine cannot draw on in place (TERM=dumb, no cursor addressing): the
                // --every blocks, appended.
                period = every != null ? every : Duration.ofSeconds(1);
                redraw = false;
                err.println("hotkeeper: --live: standard output is not a terminal" + (terminals.stdout()
                        ? " that can be redrawn in place (TERM=" + System.getenv().getOrDefault("TERM", "") + ")"
                        : "") + "; printing the top-k every " + Converters.Period.format(period)
                        + " instead (as --every does)");
                err.flush();
            }
            Progress progress = new Progress(err, ingest.mappedBytes(),
                    terminals.stderr() && period == null && view == null
                            && ingest.mappedBytes() > PROGRESS_THRESHOLD);
            Printer printer = new Printer(out, err, new Report(format), hk, k, period != null && view == null,
                    redraw);
            Periodic periodic;
            Runnable frame = null;
            // The stream's exact total for --live and --save: what the scanners have observed, each adding its
            // share after every slice (a window's total is the window's own, which its sketch derives).
            AtomicLong seen = (view != null || save != null) && window == null ? new AtomicLong() : null;
            if (view != null) {
                String title = title();
                LongSupplier total = seen != null ? seen::get : hk::totalWeight;
                frame = () -> {
                    try {
                        view.refresh(title, () -> Report.top(hk, k), total);
                    } catch (RuntimeException e) {
                        view.close(); // later frames draw nothing; the run goes on and prints its result
                        err.println("hotkeeper: --live: cannot draw the top-k so far (" + Ingest.reason(e) + ")");
                        err.flush();
                    }
                };
                periodic = new Periodic(every != null ? every : LiveView.PERIOD, frame);
            } else {
                periodic = period == null ? null : new Periodic(period, printer::periodic);
            }
            interrupts.onSignal(signal -> {
                if (view != null) {
                    view.close(); // the screen and cursor as they were, then the result as without --live
                }
                printer.interrupted(signal, () -> reportSkipped(err, ingest.soFar(), ingest));
            });
            if (frame != null) {
                frame.run(); // the first frame at once, the next ones every period
            }
            long start = System.nanoTime();
            progress.start();
            if (periodic != null) {
                periodic.start();
            }
            Tally tally;
            AtomicLong runWeight = new AtomicLong(); // the weights of all workers, kept <= Long.MAX_VALUE
            try {
                tally = ingest.run(hk, threads, () -> new LineScanner(hk, fieldNumber, delimiter, weightNumber,
                        maxLineBytes, maxKey, runWeight, seen), progress);
            } finally {
                progress.finish();
                if (periodic != null) {
                    periodic.stop();
                }
                if (view != null) {
                    view.close();
                }
            }
            long ingested = System.nanoTime();
            double seconds = (ingested - start) / 1e9;
            if (!interrupts.finishing()) {
                while (true) {
                    LockSupport.park(); // a signal's handler writes the partial result and exits the JVM
                }
            }
            int reported = printer.whole();
            long printed = System.nanoTime();
            reportSkipped(err, tally, ingest);
            if (reported > 0 && Report.top(hk, 1).getFirst().estimate() >= Weight.MAX) {
                err.println("hotkeeper: " + Weight.MAX + " is the largest count the sketch holds: an estimate of "
                        + "it is saturated, the key's true count may be higher");
            }
            if (save != null) {
                // The sketch, without recordStats (whose stripes would take 9 KiB or more of the budget from the
                // table and shards), derives its total from its slots, a lower bound: the scanners' count replaces it.
                HotkeeperSnapshot snapshot = hk.snapshot();
                SnapshotFiles.save(seen == null ? snapshot : snapshot.withTotalWeight(seen.get()), save);
            }
            if (stats) {
                ObjectNode stats = stats(hk.info(), tally, seconds, ingest, reported);
                ObjectNode phases = stats.putObject("phases");
                phases.put("jvm", jvmSeconds());
                phases.put("options", (called - started) / 1e9);
                phases.put("setup", (ready - setup) / 1e9);
                phases.put("map", ingest.mapNanos() / 1e9);
                phases.put("ingest", (ingested - start - ingest.mapNanos()) / 1e9);
                phases.put("output", (printed - ingested) / 1e9);
                // The first table's region ("table", or "table[0, ...]" when a window or NUMA nodes split it).
                var table = hk.placement().regions().stream().filter(r -> r.name().startsWith("table"))
                        .findFirst().orElseThrow();
                ObjectNode placement = stats.putObject("placement");
                placement.put("requested", table.requested().toString());
                placement.put("effective", table.effective().toString());
                placement.put("nodes", table.nodes().toString());
                placement.put("note", table.note());
                err.println(Report.JSON.writeValueAsString(stats));
            }
            err.flush();
        }
        return interrupts.exitCode(0);
    }

    /** The live view's title: the input, k, and the window when there is one. */
    private String title() {
        String input = files.isEmpty() || files.getFirst().equals("-") ? "standard input"
                : files.size() == 1 ? files.getFirst() : files.size() + " files";
        return "hotkeeper top  " + input + "  k=" + k + (window == null ? ""
                : "  window " + Converters.Period.format(window));
    }

    /**
     * The smallest share of {@code --memory} a worker table gets: below it the threads share one table. Measured
     * at 2 threads, k = 100 (docs/cli.md, "Smaller pages and worker tables"): at 32 and 48 KiB one shared table
     * was as accurate or more on every text stream (the run-ordered one 0.81 -> 0.88 at 48 KiB, the flat-topped
     * one's ARE 0.23 -> 0.0001), at 64 KiB worker tables kept the run-ordered stream at 0.97 against 0.89.
     */
    static final long MIN_WORKER_TABLE_BYTES = 32 << 10;

    /**
     * Tables the sketch gets: one per ingest thread (rounded down to a power of two, at most
     * {@link Hotkeeper#MAX_WORKER_TABLES}, and halved while a table's share of {@code --memory} is below
     * {@link #MIN_WORKER_TABLE_BYTES}) so that threads do not write each other's table lines; one with
     * {@code --shared-table}, one thread, or a {@code --window} (whose slices are tables).
     */
    int workerTables() {
        if (threads <= 1 || sharedTable || window != null) {
            return 1;
        }
        int tables = Integer.highestOneBit(Math.min(threads, Hotkeeper.MAX_WORKER_TABLES));
        while (tables > 1 && memory / tables < MIN_WORKER_TABLE_BYTES) {
            tables >>= 1;
        }
        return tables;
    }

    /**
     * Seconds from the JVM's start (its own clock, {@code RuntimeMXBean.getUptime}, in milliseconds; the exec and
     * the launcher's few milliseconds before it are not counted) to the tool's start: JVM start-up and loading the
     * tool's classes. (The kernel's process start time, {@code ProcessHandle.Info.startInstant}, was tried: on a VM
     * whose wall clock drifted from its boot time it was off by seconds.)
     */
    private double jvmSeconds() {
        long uptimeNanos = java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() * 1_000_000L;
        return Math.max(0, uptimeNanos - (System.nanoTime() - started)) / 1e9;
    }

    /**
     * Says on stderr which lines were skipped, kind by kind, with their count and the option that governs them
     * (docs/cli.md, "Skipped lines"): one line for each kind, or, when no line was kept, one line that says so.
     * Empty lines are skipped without a word unless every line was skipped with {@code --field}.
     */
    private void reportSkipped(PrintWriter err, Tally t, Ingest ingest) {
        boolean fields = t.missingField + t.badWeights + t.zeroWeights + (field != null ? t.empty : 0) > 0;
        if (t.keys == 0 && (t.tooLong > 0 || fields)) {
            // No line was kept: one line, rather than an empty result printed silently.
            List<String> options = new ArrayList<>();
            if (t.tooLong > 0) {
                options.add("--max-line-bytes");
            }
            if (fields) {
                options.add("--field");
                if (weightField != null) {
                    options.add("--weight-field");
                }
                options.add("--delimiter");
            }
            String check = options.size() == 1 ? options.getFirst()
                    : String.join(", ", options.subList(0, options.size() - 1)) + " and " + options.getLast();
            err.println("hotkeeper: every line was skipped (" + skipReasons(t) + "; check " + check + ")");
            return;
        }
        if (t.tooLong > 0) {
            err.println("hotkeeper: skipped " + lines(t.tooLong) + " longer than --max-line-bytes ("
                    + Converters.Size.format(maxLineBytes) + ")");
        }
        if (t.missingField > 0) {
            err.println("hotkeeper: skipped " + lines(t.missingField) + " with fewer than " + field
                    + " fields (--field, --delimiter)");
        }
        if (t.badWeights > 0) {
            Tally.Position first = t.firstBadWeight;
            err.println("hotkeeper: skipped " + lines(t.badWeights) + " whose weight (--weight-field " + weightField
                    + ") is missing or not a whole number" + (first == null || first.line() < 0 ? ""
                    : "; the first: " + ingest.sourceName(first.source()) + " line " + first.line()));
        }
        if (t.zeroWeights > 0) {
            err.println("hotkeeper: skipped " + lines(t.zeroWeights) + " of weight 0 (--weight-field " + weightField
                    + ")");
        }
    }

    private static String lines(long n) {
        return String.format(Locale.ROOT, "%,d %s", n, n == 1 ? "line" : "lines");
    }

    private static String skipReasons(Tally t) {
        List<String> parts = new ArrayList<>();
        String[] names = {"empty", "missing field", "too long", "bad weight", "zero weight"};
        long[] counts = {t.empty, t.missingField, t.tooLong, t.badWeights, t.zeroWeights};
        for (int i = 0; i < names.length; i++) {
            if (counts[i] > 0) {
                parts.add(String.format(Locale.ROOT, "%,d %s", counts[i], names[i]));
            }
        }
        return String.join(", ", parts);
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
                    + value + ": " + e.getMessage().replaceFirst("^[A-Za-z]+=[^:\\s]+: ", ""));
        }
    }

    /**
     * The sketch's configuration for {@code tables} tables (one per ingest thread, or 1: one table the threads
     * share): every option given, each checked, an invalid value a {@link ParameterException} naming it.
     */
    private HotkeeperBuilder builder(int tables) {
        HotkeeperBuilder builder = Hotkeeper.builder().placement(numa).seed(seed);
        if (salt != null) {
            builder.saltMode(salt);
        }
        if (tables > 1) {
            // Each ingest thread writes its own table: no line moves between cores.
            builder.partitioning(Partitioning.perWorker(tables));
        }
        // With one ingest thread the engine plans no combiner block under the budget, so its AUTO combining
        // resolves to off by itself (no blocks, no thread check on hot results; CliIngestBenchmark.ingest
        // 190 -> 178-180 ms a pass when the CLI still had to ask for it, docs/cli.md).
        configure("--memory", memory, () -> builder.memory(memory).expectedThreads(threads));
        configure("--k", k, () -> builder.k(k));
        if (keyLengths.length > 0) {
            builder.expectedKeyLengths(keyLengths);
        }
        configure("--max-key-bytes", maxKeyBytes, () -> builder.maxKeyBytes(maxKeyBytes));
        configure("--min-count", minCount, () -> builder.minCount(minCount));
        if (decayBase != null) {
            configure("--decay-base", decayBase, () -> builder.decayBase(decayBase));
        }
        if (window != null) {
            configure("--window", window, () -> builder.partitioning(Partitioning.window(window, WINDOW_SLICES)));
        }
        return builder;
    }

    /**
     * Builds the sketch from {@code builder} (made by {@link #builder(int)} for {@link #workerTables()}); the
     * arguments checked this late are the budget against the tables, {@code -k} and {@code --max-key-bytes}, and a
     * NUMA node that does not exist. Per-worker tables whose minimum does not fit {@code --memory} fall back to one
     * table the threads share (issue #28: {@code --threads 2 --memory 32KiB} runs), said once on stderr; only a
     * budget too small for one table is refused.
     */
    private Hotkeeper build(HotkeeperBuilder builder) {
        int tables = workerTables();
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            if (tables == 1 || !e.getMessage().startsWith("memory=")) {
                throw invalid(e);
            }
            Hotkeeper shared;
            try {
                shared = builder(1).build();
            } catch (IllegalArgumentException tooSmall) {
                throw invalid(tooSmall);
            }
            java.util.regex.Matcher minimum = MINIMUM.matcher(e.getMessage());
            spec.commandLine().getErr().println("hotkeeper: --memory " + Converters.Size.format(memory)
                    + " is below the minimum of " + tables + " worker tables" + (minimum.find() ? ", "
                    + minimum.group(1) + " bytes" : "") + ": the " + threads + " threads share one table");
            return shared;
        }
    }

    /** The minimum in the builder's refusal of a budget (MemoryPlan's message). */
    private static final java.util.regex.Pattern MINIMUM =
            java.util.regex.Pattern.compile("the minimum is (\\d+) bytes");

    /** A check of the builder that spans options: the budget against -k and --max-key-bytes, and NUMA nodes. */
    private ParameterException invalid(IllegalArgumentException e) {
        String option = e.getMessage().startsWith("memory=") ? "--memory" : "--numa";
        return new ParameterException(spec.commandLine(), "Invalid value for option '" + option + "': "
                + e.getMessage());
    }

    private ObjectNode stats(HotkeeperInfo info, Tally t, double seconds, Ingest ingest, int reported) {
        ObjectNode s = Report.JSON.createObjectNode();
        s.put("inputs", ingest.sourceCount());
        s.put("bytes", t.bytes);
        s.put("lines", t.keys + t.skipped());
        s.put("keys", t.keys);
        ObjectNode skipped = s.putObject("skipped");
        skipped.put("total", t.skipped());
        skipped.put("empty", t.empty);
        skipped.put("missingField", t.missingField);
        skipped.put("tooLong", t.tooLong);
        skipped.put("badWeight", t.badWeights);
        skipped.put("zeroWeight", t.zeroWeights);
        s.put("truncatedKeys", t.truncatedKeys);
        if (t.firstBadWeight != null) {
            s.putObject("firstBadWeight").put("input", ingest.sourceName(t.firstBadWeight.source()))
                    .put("line", t.firstBadWeight.line());
        }
        s.put("reported", reported);
        s.put("elapsedSeconds", seconds);
        s.put("keysPerSecond", seconds > 0 ? t.keys / seconds : 0);
        s.put("mebibytesPerSecond", seconds > 0 ? t.bytes / seconds / (1 << 20) : 0);
        s.put("threads", threads);
        s.put("k", info.k());
        s.put("memoryBudget", info.memoryBudget());
        s.put("nativeBytes", info.nativeBytes());
        s.put("tableBytes", info.tableBytes());
        s.put("buckets", info.buckets());
        s.put("tables", info.tables());
        s.put("shardBytes", info.shardBytes());
        // Where the budget went (issue #28): every native byte by part, and the share that holds counters.
        ObjectNode parts = s.putObject("nativeBytesByPart");
        info.nativeBytesByPart().forEach(parts::put);
        s.put("counterShare", (double) info.nativeBytesByPart().get("table") / info.nativeBytes());
        s.put("shards", info.shards());
        // Shards a table may have (as many as the writers where its budget allows): shards counts those created.
        s.put("shardLimit", info.shardLimit());
        s.put("shardCapacity", info.shardCapacity());
        s.put("maxKeyBytes", info.maxKeyBytes());
        // The head of the first file the shards were sized for: its heaviest keys and their mean length.
        s.putObject("keyLengthSample").put("keys", keyLengths.length)
                .put("meanBytes", java.util.Arrays.stream(keyLengths).average().orElse(0));
        s.put("minCount", minCount);
        // The floor at the end of the run: minCount, raised while a full shard turned keys away.
        s.put("promotionFloor", info.promotionFloor());
        s.put("decayBase", info.decayBase());
        s.put("saltMode", info.saltMode().name().toLowerCase(Locale.ROOT));
        s.put("saltShards", info.saltShards());
        s.put("combining", info.combining().name().toLowerCase(Locale.ROOT));
        return s;
    }
}
