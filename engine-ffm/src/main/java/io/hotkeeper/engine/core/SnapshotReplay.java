package io.hotkeeper.engine.core;

import io.hotkeeper.engine.snapshot.HotkeeperSnapshot;
import io.hotkeeper.engine.snapshot.SnapshotKey;
import io.hotkeeper.engine.table.TableGeometry;
import io.hotkeeper.engine.table.TableLayout;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * The order in which a merge by table replays a snapshot's slot words into a live table of the same geometry
 * ({@code Hotkeeper.merge}): which key each word belongs to, and when it may go in, so that every word lands where
 * its key's next observation looks for it (docs/design.md, "The rule merges keep"). The instance does the
 * observing ({@link Sink}); this class holds only the bucket geometry of the replay.
 *
 * <p>Thread-safety: a static method, called by the merging thread; the table may be observed by others meanwhile.
 * Progress: blocking only as the sink's observations are (lock-free); ends after each word is replayed once.
 */
public final class SnapshotReplay {
    /** Where a merge sends one word's units: an observation of the key at {@code location}. */
    @FunctionalInterface
    public interface Sink {
        /**
         * Replays {@code count} units of the key whose first bucket and fingerprint are {@code location}, through
         * {@code key} when the snapshot tracks it there (else null: an untracked observation of that location).
         */
        void replay(long location, SnapshotKey key, long count);
    }

    private SnapshotReplay() {
    }

    /**
     * Replays every slot word of {@code snapshot} (which has a table of {@code geometry}) into {@code sink}, first
     * the words in their key's first bucket, then those in the second, each once its first bucket is full here
     * ({@code firstBucketFull}, asked of a first bucket's index). Returns the units replayed.
     */
    public static long byTable(HotkeeperSnapshot snapshot, TableGeometry geometry, LongPredicate firstBucketFull,
                               Sink sink) {
        long merged = 0;
        // Every slot word is replayed as the key that claimed it: its first bucket (the word's SECOND bit
        // says whether that is the bucket it sits in or the other of its pair) and its fingerprint, so two
        // keys of one fingerprint whose first buckets are each other's second stay two keys here. A word
        // goes through its tracked key when the snapshot has one at that location (so the key is promoted
        // here), untracked otherwise; both through observe, so it lands where the key's next observation
        // looks for it.
        java.util.Map<Long, SnapshotKey> located = new java.util.HashMap<>();
        for (SnapshotKey key : snapshot.keys()) {
            if (key.located()) {
                located.putIfAbsent(geometry.locationAt(geometry.bucket(key.location()),
                        geometry.fingerprint(key.location())), key);
            }
        }
        // Words in their key's second bucket are replayed last, once every first-bucket word is in: merged
        // into an empty sketch, each word lands in the bucket it held in the snapshot.
        record Deferred(long first, long bucket, long location, long count) {
        }
        List<Deferred> seconds = new ArrayList<>();
        SnapshotTables.Access words = SnapshotTables.access();
        for (int i = 0; i < snapshot.slotCount(); i++) {
            long word = words.slotWord(snapshot, i);
            if (word == 0) {
                continue;
            }
            long count = TableLayout.count(word);
            long bucket = i / TableLayout.SLOTS_PER_BUCKET;
            long first = TableLayout.firstBucket(geometry, bucket, word);
            long location = geometry.locationAt(first, TableLayout.fingerprint(word));
            if (first != bucket) {
                seconds.add(new Deferred(first, bucket, location, count));
            } else {
                sink.replay(location, located.get(location), count);
            }
            merged += count;
        }
        // A second-bucket word waits for its key's first bucket to fill here (observe then takes it to the
        // second). A first bucket is full iff its last slot is occupied (occupied slots are a prefix); this
        // thread filled it itself, so the acquire load is only for other observers' claims. When every
        // waiting word's first bucket has room, the words that sat in those first buckets are waiting too.
        // Following "a waiting word that sat in my first bucket" from one of them ends at a word whose first
        // bucket no waiting word sat in (its room is no one's: that word goes there), or runs around a cycle
        // of words that each sat in the next one's first bucket: all of them go to their first buckets at
        // once, each into the slot its successor left, so none is pushed into a full pair later.
        java.util.Map<Long, java.util.ArrayDeque<Deferred>> sitting = new java.util.HashMap<>();
        for (Deferred d : seconds) {
            sitting.computeIfAbsent(d.bucket(), b -> new java.util.ArrayDeque<>()).add(d);
        }
        java.util.Set<Deferred> done = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        while (done.size() < seconds.size()) {
            boolean progress = false;
            for (Deferred d : seconds) {
                if (!done.contains(d) && firstBucketFull.test(d.first())) {
                    sink.replay(d.location(), located.get(d.location()), d.count());
                    done.add(d);
                    progress = true;
                }
            }
            if (progress) {
                continue;
            }
            Deferred release = null;
            for (Deferred d : seconds) {
                if (!done.contains(d)) {
                    release = d;
                    break;
                }
            }
            List<Deferred> chain = new ArrayList<>();
            int cycle = -1;
            while (cycle < 0) {
                chain.add(release);
                java.util.ArrayDeque<Deferred> sat = sitting.get(release.first());
                while (sat != null && !sat.isEmpty() && done.contains(sat.peekFirst())) {
                    sat.pollFirst();
                }
                if (sat == null || sat.isEmpty()) {
                    cycle = chain.size() - 1; // a chain's end: that one word
                } else {
                    release = sat.peekFirst();
                    cycle = chain.indexOf(release); // around a cycle: all of it, from where it closes
                }
            }
            for (Deferred d : chain.subList(cycle, chain.size())) {
                sink.replay(d.location(), located.get(d.location()), d.count());
                done.add(d);
            }
        }
        return merged;
    }
}
