package io.hotkeeper.engine.core;

import io.hotkeeper.engine.snapshot.HotkeeperSnapshot;
import io.hotkeeper.engine.snapshot.SnapshotKey;

import java.util.List;

/**
 * The way from the engine to a snapshot's slot words, which are the table's encoding and no part of the API
 * (docs/format.md): {@code Hotkeeper.snapshot()} builds a snapshot from table copies, and {@code Hotkeeper.merge}
 * replays one word by word. It lives in a package the module does not export, so on the module path no
 * application reaches it, and {@link HotkeeperSnapshot} has no public method that takes or returns a word
 * ({@code ApiSurfaceTest}).
 *
 * <p>{@link HotkeeperSnapshot} installs the one accessor from its static initialiser (the JDK's "shared secrets"
 * pattern, as {@link Internals}); {@link #access()} initialises that class first, so the accessor is always
 * there. Thread-safety: any thread. Progress: wait-free after the class's initialisation.
 */
public final class SnapshotTables {
    /** What {@link HotkeeperSnapshot} lends the engine; every method as the snapshot's package-private one. */
    public interface Access {
        /** {@code HotkeeperSnapshot.of}: a snapshot of {@code tables} (slot words, one array per table). */
        HotkeeperSnapshot of(long bucketCount, int candidates, int k, int maxKeyBytes, double decayBase,
                             long seedFingerprint, boolean seeded, long totalWeight, List<long[]> tables,
                             List<SnapshotKey> keys);

        /** {@code HotkeeperSnapshot.slotWord}: slot word {@code index} of the snapshot's table. */
        long slotWord(HotkeeperSnapshot snapshot, int index);
    }

    /** Set once, by HotkeeperSnapshot's class initialisation; volatile for safe publication. */
    private static volatile Access access;

    private SnapshotTables() {
    }

    /**
     * Installs the accessor; called once by {@link HotkeeperSnapshot}'s static initialiser.
     *
     * @throws IllegalStateException if an accessor is installed already
     */
    public static void install(Access accessor) {
        if (access != null) {
            throw new IllegalStateException("the snapshot accessor is installed already");
        }
        access = accessor;
    }

    /** The accessor, initialising {@link HotkeeperSnapshot} first if nothing has yet. */
    public static Access access() {
        Access a = access;
        if (a == null) {
            try {
                java.lang.invoke.MethodHandles.lookup().ensureInitialized(HotkeeperSnapshot.class);
            } catch (IllegalAccessException e) {
                throw new AssertionError(e); // HotkeeperSnapshot is public in a package this module holds
            }
            a = access;
        }
        return a;
    }
}
