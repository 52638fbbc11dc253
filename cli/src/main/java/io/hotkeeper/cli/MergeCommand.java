package io.hotkeeper.cli;

import io.hotkeeper.engine.snapshot.HotkeeperSnapshot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code hotkeeper merge FILE...}: the merged top-k of snapshot files. See docs/cli.md. */
@Command(name = "merge", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Merges snapshots written by 'hotkeeper top --save' and prints the merged heavy hitters.",
                "Snapshots of one seed and table size merge slot by slot; others merge by their tracked keys "
                        + "(docs/format.md)."},
        footer = {"", "Exit codes: 0 done, 1 internal error, 2 bad option or a bad snapshot file (one line)."})
final class MergeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", arity = "1..*", description = "Snapshot files.")
    List<String> files = new ArrayList<>();

    @Option(names = "--k", paramLabel = "K", description = "Heavy hitters to report, 1..100000 (default: ${DEFAULT-VALUE}).")
    int k = 100;

    @Option(names = "--format", paramLabel = "FORMAT", description = "table, tsv or json (default: ${DEFAULT-VALUE}).")
    Report.Format format = Report.Format.table;

    @Option(names = "--save", paramLabel = "FILE", description = "Also write the merged snapshot to FILE.")
    String save;

    @Override
    public Integer call() throws Exception {
        if (k < 1 || k > 100_000) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--k': " + k
                    + ": must be in 1..100000");
        }
        List<HotkeeperSnapshot> snapshots = new ArrayList<>(files.size());
        for (String file : files) {
            snapshots.add(SnapshotFiles.read(file));
        }
        HotkeeperSnapshot merged = HotkeeperSnapshot.mergeAll(snapshots).snapshot();
        if (save != null) {
            SnapshotFiles.save(merged, save);
        }
        SnapshotFiles.print(spec.commandLine().getOut(), SnapshotFiles.top(merged, k), format);
        return 0;
    }
}
