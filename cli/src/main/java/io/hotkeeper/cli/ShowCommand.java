package io.hotkeeper.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hotkeeper.engine.snapshot.HotkeeperSnapshot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code hotkeeper show FILE}: a snapshot's header and top-k. See docs/cli.md. */
@Command(name = "show", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Prints a snapshot's header and its heavy hitters.",
        footer = {"", "--format table prints the header then the table; tsv prints only the rows (as 'top'); json "
                + "prints one object {header, top}.",
                "Exit codes: 0 done, 1 internal error, 2 bad option or a bad snapshot file (one line)."})
final class ShowCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", arity = "1", description = "A snapshot file.")
    String file;

    @Option(names = "--k", paramLabel = "K", description = "Heavy hitters to report, 1..100000 (default: the snapshot's k).")
    Integer k;

    @Option(names = "--format", paramLabel = "FORMAT", description = "table, tsv or json (default: ${DEFAULT-VALUE}).")
    Report.Format format = Report.Format.table;

    @Override
    public Integer call() throws Exception {
        if (k != null && (k < 1 || k > 100_000)) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--k': " + k
                    + ": must be in 1..100000");
        }
        HotkeeperSnapshot s = SnapshotFiles.read(file);
        int n = k == null ? s.k() : k;
        PrintWriter out = spec.commandLine().getOut();
        switch (format) {
            case json -> {
                ObjectNode root = Report.JSON.createObjectNode();
                ObjectNode header = root.putObject("header");
                header.put("version", s.formatVersion());
                header.put("tableBytes", s.tableBytes());
                header.put("hasTable", s.hasTable());
                header.put("k", s.k());
                header.put("maxKeyBytes", s.maxKeyBytes());
                header.put("decayBase", s.decayBase());
                header.put("seeded", s.seeded());
                header.put("seedFingerprint", String.format("%016x", s.seedFingerprint()));
                header.put("totalWeight", s.totalWeight());
                header.put("tableWeight", s.tableWeight());
                header.put("trackedKeys", s.keys().size());
                root.set("top", Report.JSON.valueToTree(Report.rows(SnapshotFiles.top(s, n))));
                out.print(Report.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root));
                out.print('\n');
            }
            case tsv -> SnapshotFiles.print(out, SnapshotFiles.top(s, n), format);
            case table -> {
                out.printf(Locale.ROOT, "snapshot        %s (format version %d)%n", file, s.formatVersion());
                out.printf(Locale.ROOT, "table           %s%s%n", s.tableBytes() + " bytes, " + s.bucketCount()
                        + " buckets", s.hasTable() ? "" : " (not included: merged by keys)");
                out.printf(Locale.ROOT, "k               %d%n", s.k());
                out.printf(Locale.ROOT, "max key bytes   %d%n", s.maxKeyBytes());
                out.printf(Locale.ROOT, "decay base      %s%n", s.decayBase());
                out.printf(Locale.ROOT, "hash            %s, fingerprint %016x%n",
                        s.seeded() ? "seeded" : "self-seeded", s.seedFingerprint());
                out.printf(Locale.ROOT, "total weight    %,d%n", s.totalWeight());
                out.printf(Locale.ROOT, "table weight    %,d%n", s.tableWeight());
                out.printf(Locale.ROOT, "tracked keys    %,d%n", s.keys().size());
                out.println();
                SnapshotFiles.print(out, SnapshotFiles.top(s, n), format);
            }
        }
        return 0;
    }
}
