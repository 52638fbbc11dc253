package io.hotkeeper.engine.core;

import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.shard.KeyShard;
import io.hotkeeper.engine.shard.KeyShards;
import io.hotkeeper.engine.stats.Weights;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.SlotLinks;
import io.hotkeeper.engine.table.TableLayout;
import io.hotkeeper.engine.window.SlidingWindow;
import io.hotkeeper.engine.worker.WorkerAssignment;
import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.WorkerSpace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.LongConsumer;
import java.util.function.LongUnaryOperator;

/**
 * The bucket tables of one instance and how a thread finds its own: one shared table, one per NUMA node, one per
 * worker, or one per time slice of a window. It routes a caller to its table and key shards, sums estimates and
 * merges top keys across tables, and walks every slot for reset, decay, totals and snapshot copies. It holds no
 * native memory of its own: the tables and shards are regions of the instance's arena.
 *
 * <pre>
 *  partitioning      tables   a thread's table                      queries
 *  shared            1        the table                             that table
 *  per node          nodes    its current node's (libnuma)          sum / merge of all tables
 *  per worker        2..64    the one its worker was given first    sum / merge of all tables
 *  window            slices   the current time slice's              sum / merge; a new slice clears its table
 * </pre>
 *
 * Thread-safety: every method may be called from any thread; the set itself is immutable after construction
 * (the arrays are never written once built), and what it routes to is concurrent. Progress: as stated per method.
 */
public final class TableSet {
    /** Spins, then yields, on another thread's link lock before reset leaves that slot alone (see clearSlot). */
    private static final int LOCK_SPINS = 1 << 16;
    private static final int LOCK_YIELDS = 10_000;

    private final BucketTable[] tables;
    /** Key shards of each table; null when key shards are off. Filled while the tables are built. */
    private final KeyShards[] shardSets;
    /** Worker tables: which table each worker writes, given at its first observation; null otherwise. */
    private final WorkerAssignment workerTables;
    /**
     * Worker tables: entry {@code stripe} is {@code tables[workerTables.of(worker)]} for that stripe's workers, or
     * null until one of them asked, so that the observe path reads one element here where a mask needed one of
     * {@code tables}; null otherwise. Read plain, written plain: an entry goes from null to the table the stripe
     * was given, and back to null when the stripe's id changes hands ({@link WorkerAssignment#forget}, run by the
     * id's new holder itself before its first observation, so the one thread that reads an exclusive stripe's
     * entry sees that in program order). Any table is a correct one to write (the tables take any number of
     * writers), so a racy read of another value costs balance at most, never a count; and a racy read of a
     * {@link BucketTable} reference is safe because every field of BucketTable is final and it was built before
     * this set (JLS 17.5: a thread that sees the reference sees those fields and what they reference as built). A
     * null read takes the slow path.
     */
    private final BucketTable[] tableOfStripe;
    /** The index of the calling thread's node or time slice; null with one table or worker tables. */
    private final IntSupplier sliceOrNode;
    /** The time slices of a windowed set; null otherwise. */
    private final SlidingWindow window;
    /** Told after each table's clear (the hot-key combiners' HotKeyCombiners.tableCleared); null for none. */
    private final Runnable cleared;

    /** A set over {@code tables} (and their key shards, or null), routed by {@code routing} (not worker tables). */
    public TableSet(BucketTable[] tables, KeyShards[] shardSets, Routing routing) {
        this(tables, shardSets, routing, null, null);
    }

    /** As below, for a routing other than worker tables. */
    public TableSet(BucketTable[] tables, KeyShards[] shardSets, Routing routing, Runnable cleared) {
        this(tables, shardSets, routing, null, cleared);
    }

    /**
     * A set over {@code tables} (and their key shards, or null; as many as {@code routing.tables()}), routed by
     * {@code routing}, worker tables among the workers of {@code workers} (null for another routing);
     * {@code cleared} (or null) is run after each table's clear (reset, a window's new slice), by the clearing
     * thread, once the table's last slot is empty: the hot-key combiners withdraw their blocks then.
     */
    public TableSet(BucketTable[] tables, KeyShards[] shardSets, Routing routing, WorkerSpace workers,
                    Runnable cleared) {
        if (tables.length != routing.tables()) {
            throw new IllegalArgumentException(tables.length + " tables for " + routing);
        }
        if (routing instanceof Routing.PerWorker && workers == null) {
            throw new IllegalArgumentException(routing + " needs the workers");
        }
        this.tables = tables;
        this.cleared = cleared;
        this.shardSets = shardSets;
        // The routing becomes plain fields, so that tableFor (on every observation with several tables) reads one
        // element of tableOfStripe or calls one supplier, with no type switch.
        BucketTable[] remembered = routing instanceof Routing.PerWorker ? new BucketTable[workers.stripes()] : null;
        this.tableOfStripe = remembered;
        this.workerTables = routing instanceof Routing.PerWorker w
                ? new WorkerAssignment(w.tables(), workers, stripe -> remembered[stripe] = null) : null;
        this.window = routing instanceof Routing.Window w
                ? new SlidingWindow(w.span(), w.slices(), w.clock(), this::clearSlice) : null;
        this.sliceOrNode = switch (routing) {
            case Routing.Window w -> window::current;
            case Routing.PerNode n -> n.topology().currentIndex();
            case Routing.Single s -> null;
            case Routing.PerWorker w -> null;
        };
    }

    // ---------------------------------------------------------------- routing

    /** Whether there is more than one table: estimates sum and top keys merge. Wait-free. */
    public boolean multiple() {
        return tables.length > 1;
    }

    /** Number of tables. Wait-free. */
    public int count() {
        return tables.length;
    }

    /** Table {@code i}. Wait-free. */
    public BucketTable table(int i) {
        return tables[i];
    }

    /** The key shards of table {@code i}, or null (key shards off, or none created yet). Wait-free. */
    public KeyShards shards(int i) {
        return shardSets == null ? null : shardSets[i];
    }

    /** Whether the tables track keys in key shards. Wait-free. */
    public boolean hasShards() {
        return shardSets != null;
    }

    /** The key shards of every table, in table order; empty without key shards. Wait-free. */
    public List<KeyShards> shardSets() {
        return shardSets == null ? List.of() : List.of(shardSets);
    }

    /**
     * The index of the table of the caller {@code worker} (a {@link WorkerHandle}). Wait-free (worker tables: once
     * the worker's stripe has its table; the first time takes a short lock, {@link WorkerAssignment#of}).
     */
    public int indexFor(long worker) {
        return workerTables != null ? workerTables.of(worker) : sliceOrNode.getAsInt();
    }

    /**
     * The caller's table (several tables only; with one, callers keep it themselves). Wait-free (worker tables: once
     * the worker's stripe has its table, see {@link #indexFor}).
     */
    public BucketTable tableFor(long worker) {
        if (tableOfStripe == null) {
            return tables[sliceOrNode.getAsInt()];
        }
        BucketTable table = tableOfStripe[WorkerHandle.stripe(worker)]; // plain: see the field
        return table != null ? table : givenTable(worker);
    }

    /** The first observation of a stripe's worker: its table, from the assignment, remembered for the stripe. */
    private BucketTable givenTable(long worker) {
        BucketTable table = tables[workerTables.of(worker)];
        tableOfStripe[WorkerHandle.stripe(worker)] = table; // plain: see the field
        return table;
    }

    /** The key shards of the caller's table. Wait-free. */
    public KeyShards shardsFor(long worker) {
        return shardSets[indexFor(worker)];
    }

    /** A windowed set moves to the clock's slice (a query rotates too, so old slices leave). Lock-free. */
    public void rotate() {
        if (window != null) {
            window.current();
        }
    }

    /** Whether the set is a window. Wait-free. */
    public boolean windowed() {
        return window != null;
    }

    // ---------------------------------------------------------------- reads

    /**
     * The tables' estimate of the key of {@code hash}: its slot's count (acquire loads), summed over the tables,
     * where a key observed through several has a count in each. Wait-free.
     */
    public long estimate(long hash) {
        long sum = 0;
        for (BucketTable t : tables) {
            sum += t.estimate(hash);
        }
        return sum;
    }

    /**
     * The {@code n} heaviest tracked keys, highest first. One table: its shards' top keys ({@link KeyShards#topK}).
     * Several tables: every key held by the key shards of any table ranks by {@code estimateOfHash} of its hash
     * (the caller's estimate: the sum over all tables), whatever its rank in each table, so a key in the middle of
     * every table but the heaviest in sum is listed. A key is listed if it holds a tracked slot of some table when
     * it is resolved; each row is one key: rows are distinct hashes (of the whole key, recorded in the shard entry),
     * so two truncated keys sharing their first {@code maxKeyBytes} bytes are two rows, each with its own sum. Ties
     * rank by hash, so {@link #ranks} agrees with this list.
     *
     * <p>Cost with several tables ({@code T} tables whose shards hold {@code E} member entries in all, {@code U}
     * distinct keys among them, {@code U <= E}): one walk over the {@code E} entries (no table or link read), a
     * sort of {@code E} hashes, {@code U} calls of {@code estimateOfHash} ({@code U x T} slot probes), a bounded
     * heap of {@code n + 16} candidates, then for each listed key up to {@code T} slot probes and one key copy;
     * heap memory {@code 16 E} bytes. A candidate expelled meanwhile is skipped and the heap doubles, as in
     * {@link KeyShards#topK}. The one-table path scans only its own shards, with no per-key estimate calls.
     *
     * <p>Consistency: each listed key's estimate is one call of {@code estimateOfHash} during the query; the walk
     * is not one atomic snapshot, so a key promoted or expelled during the call may be missing or present.
     * Threads: any. Progress: wait-free.
     */
    public List<HeavyHitter> topK(int n, LongUnaryOperator estimateOfHash) {
        if (tables.length == 1) {
            return shardSets[0].topK(n);
        }
        List<HeavyHitter> out = new ArrayList<>();
        ranked(n, estimateOfHash, out);
        return out;
    }

    /**
     * Whether the key of {@code hash} is among the keys {@link #topK} with several tables lists for {@code n} and
     * {@code estimateOfHash}: the same ranking, at the same cost. Threads: any. Progress: wait-free.
     */
    public boolean ranks(long hash, int n, LongUnaryOperator estimateOfHash) {
        for (long h : ranked(n, estimateOfHash, new ArrayList<>())) {
            if (h == hash) {
                return true;
            }
        }
        return false;
    }

    /**
     * The several-table ranking of {@link #topK}: fills {@code rows} (cleared first) and returns the rows' hashes,
     * in the same order.
     */
    private long[] ranked(int n, LongUnaryOperator estimateOfHash, List<HeavyHitter> rows) {
        MemberHashes members = new MemberHashes();
        for (KeyShards s : shardSets) {
            if (s != null) {
                s.memberHashes(members);
            }
        }
        long[] hashes = members.distinct();
        int u = hashes.length;
        long[] estimates = new long[u];
        for (int i = 0; i < u; i++) {
            estimates[i] = estimateOfHash.applyAsLong(hashes[i]);
        }
        int want = Math.min(Math.max(n, 0), u);
        for (int m = Math.min(u, want + 16); ; m = (int) Math.min(u, 2L * m)) {
            rows.clear();
            long[] listed = new long[want];
            int r = 0;
            boolean exhausted = m == u;
            for (int i : best(estimates, m)) {
                if (r == want) {
                    break;
                }
                if (estimates[i] <= 0) {
                    exhausted = true; // in order: every candidate left, listed or not, is not in any table
                    break;
                }
                KeyShard.Key key = trackedKey(hashes[i]);
                if (key != null) {
                    rows.add(new HeavyHitter(key.bytes(), estimates[i], key.truncated(), key.kind()));
                    listed[r++] = hashes[i];
                }
            }
            if (r == want || exhausted) {
                return Arrays.copyOf(listed, r);
            }
        }
    }

    /** The key of {@code hash} from the first table where it holds a tracked slot, or null. */
    private KeyShard.Key trackedKey(long hash) {
        for (KeyShards s : shardSets) {
            KeyShard.Key key = s == null ? null : s.trackedKey(hash);
            if (key != null) {
                return key;
            }
        }
        return null;
    }

    /**
     * The indices of the {@code m} highest {@code estimates}, highest first, ties by lower index (the hashes are
     * ascending, so by lower hash): a min-heap of the best so far, its worst at the root.
     */
    static int[] best(long[] estimates, int m) {
        int[] heap = new int[m];
        int size = 0;
        for (int i = 0; i < estimates.length && m > 0; i++) {
            if (size < m) {
                heap[size] = i;
                for (int c = size++; c > 0; ) {
                    int p = (c - 1) >>> 1;
                    if (!worse(estimates, heap[c], heap[p])) {
                        break;
                    }
                    int t = heap[c];
                    heap[c] = heap[p];
                    heap[p] = t;
                    c = p;
                }
            } else if (worse(estimates, heap[0], i)) {
                heap[0] = i;
                siftDown(estimates, heap, 0, size);
            }
        }
        int[] out = new int[size];
        for (int j = size - 1; j >= 0; j--) {
            out[j] = heap[0];
            heap[0] = heap[j];
            siftDown(estimates, heap, 0, j);
        }
        return out;
    }

    /** Whether index {@code a} ranks below index {@code b}: a lower estimate, or an equal one and a higher index. */
    private static boolean worse(long[] estimates, int a, int b) {
        return estimates[a] < estimates[b] || (estimates[a] == estimates[b] && a > b);
    }

    private static void siftDown(long[] estimates, int[] heap, int i, int size) {
        while (true) {
            int c = 2 * i + 1;
            if (c >= size) {
                return;
            }
            if (c + 1 < size && worse(estimates, heap[c + 1], heap[c])) {
                c++;
            }
            if (!worse(estimates, heap[c], heap[i])) {
                return;
            }
            int t = heap[c];
            heap[c] = heap[i];
            heap[i] = t;
            i = c;
        }
    }

    /** The hashes the shards hand over (KeyShards.memberHashes), in a growing array. Threads: one (per query). */
    private static final class MemberHashes implements LongConsumer {
        private long[] hashes = new long[256];
        private int size;

        @Override
        public void accept(long hash) {
            if (size == hashes.length) {
                hashes = Arrays.copyOf(hashes, 2 * size);
            }
            hashes[size++] = hash;
        }

        /** The distinct hashes, ascending. */
        long[] distinct() {
            Arrays.sort(hashes, 0, size);
            int d = 0;
            for (int i = 0; i < size; i++) {
                if (d == 0 || hashes[i] != hashes[d - 1]) {
                    hashes[d++] = hashes[i];
                }
            }
            return Arrays.copyOf(hashes, d);
        }
    }

    /** Enough for every tracked key of every table. Wait-free. */
    public int trackedLimit() {
        return (int) Math.min(Integer.MAX_VALUE - 16,
                tables[0].bucketCount() * TableLayout.SLOTS_PER_BUCKET * tables.length);
    }

    /** Key shards created over all tables. Wait-free. */
    public int shardCount() {
        int n = 0;
        for (KeyShards s : shardSets()) {
            n += s.shardCount();
        }
        return n;
    }

    /** Bytes of the key shards created over all tables. Wait-free. */
    public long shardBytes() {
        long n = 0;
        for (KeyShards s : shardSets()) {
            n += s.byteSize();
        }
        return n;
    }

    /** Bytes of all tables. Wait-free. */
    public long tableBytes() {
        return tables[0].byteSize() * tables.length;
    }

    /** Reaps the caller's key shard of every table (see KeyShards.drainCurrent). Wait-free. */
    public void drainCurrent() {
        for (KeyShards s : shardSets()) {
            s.drainCurrent();
        }
    }

    /**
     * The sum of every slot's count (acquire loads): the weight the tables hold. Every slot of a bucket is read,
     * not only its occupied prefix: a claim that raced a reset can sit above an empty slot and still holds units
     * (Hotkeeper.reset). Wait-free.
     */
    public long slotWeight() {
        long sum = 0;
        for (BucketTable t : tables) {
            for (long b = 0; b < t.bucketCount(); b++) {
                for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
                    sum = Weights.saturatedAdd(sum, TableLayout.count(t.laSlot(b, s)));
                }
            }
        }
        return sum;
    }

    /**
     * Every table's slot words, key-shard bits cleared; each bucket read from its last slot down (acquire loads),
     * then its occupied words moved to the front in order (a reset racing with a claim can leave a word above an
     * emptied slot; the copy keeps it, as a prefix). Wait-free.
     */
    public List<long[]> copyTables() {
        List<long[]> copies = new ArrayList<>(tables.length);
        for (BucketTable t : tables) {
            long[] words = new long[(int) (t.bucketCount() * TableLayout.SLOTS_PER_BUCKET)];
            long[] bucket = new long[TableLayout.SLOTS_PER_BUCKET];
            for (long b = 0; b < t.bucketCount(); b++) {
                int base = (int) (b * TableLayout.SLOTS_PER_BUCKET);
                for (int s = TableLayout.SLOTS_PER_BUCKET - 1; s >= 0; s--) {
                    bucket[s] = SlotLinks.withoutLinkBits(t.laSlot(b, s));
                }
                int used = 0;
                for (long word : bucket) {
                    if (word != 0) {
                        words[base + used++] = word;
                    }
                }
            }
            copies.add(words);
        }
        return copies;
    }

    // ---------------------------------------------------------------- reset and decay

    /**
     * Every table emptied ({@code factor == 0}; see clearSlice) or every count scaled by {@code factor} in
     * (0, 1), rounded down but never below 1 (a slot is never emptied, so occupied slots stay a prefix). Decay
     * visits every slot of a bucket, past an empty one: a claim that raced a reset can sit above an empty slot
     * (Hotkeeper.reset), and its units are scaled like any other. Each table's promotion floor is then scaled with
     * its counts (BucketTable.rescalePromotionFloor). Progress: lock-free for decay; for reset, blocking only on
     * another thread's link lock, boundedly (see clearSlot).
     */
    public void scale(double factor) {
        for (int i = 0; i < tables.length; i++) {
            if (factor == 0) {
                clearSlice(i);
                continue;
            }
            BucketTable t = tables[i];
            for (long b = 0; b < t.bucketCount(); b++) {
                for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
                    scaleSlot(t, b * TableLayout.BUCKET_BYTES + (long) s * TableLayout.SLOT_BYTES, factor);
                }
            }
            t.rescalePromotionFloor(factor); // after the table's last slot: the floor follows its counts
        }
    }

    /**
     * Empties table {@code i} (reset, and a window's rotation), restores its promotion floor to the configured one
     * (BucketTable.rescalePromotionFloor), tells the combiners (so that no combined key stays without a slot:
     * HotKeyCombiners, "After a table is cleared"), then hands the keys it expelled to the listener (this thread's
     * queue; the caller is outside any combiner block or shard operation).
     */
    private void clearSlice(int i) {
        BucketTable t = tables[i];
        KeyShards ks = shardSets == null ? null : shardSets[i];
        boolean expelled = false;
        // Announced to claims in a second bucket for the whole sweep, so that one which overtook it is taken back
        // (BucketTable.claimedInSecond): no key is left in a second bucket whose first has room.
        t.clearStarted();
        try {
            // Two sweeps: the second clears again only a bucket that a racing claim left out of order (a word above
            // an emptied slot) since the first, which widens the delay such a claim needs from one bucket's
            // clearing to the rest of the table's (Hotkeeper.reset: what holds after a race).
            for (int sweep = 0; sweep < 2; sweep++) {
                for (long b = 0; b < t.bucketCount(); b++) {
                    if (sweep == 1 && inOrder(t, b)) {
                        continue;
                    }
                    long base = b * TableLayout.BUCKET_BYTES;
                    // Up to 4 passes while a racing claim left the bucket's slots out of order.
                    for (int pass = 0; pass < 4; pass++) {
                        for (int s = TableLayout.SLOTS_PER_BUCKET - 1; s >= 0; s--) {
                            expelled |= clearSlot(t, ks, base + (long) s * TableLayout.SLOT_BYTES);
                        }
                        if (inOrder(t, b)) {
                            break;
                        }
                    }
                }
            }
        } finally {
            t.clearEnded();
        }
        t.rescalePromotionFloor(0); // after the last slot: a fresh table's floor
        if (cleared != null) {
            cleared.run(); // after the last slot's CAS: see HotKeyCombiners.tableCleared
        }
        if (expelled) {
            ks.deliverExpelled();
        }
    }

    /**
     * Empties one slot. Volatile load of the word; a word with another thread's link lock is waited for; a
     * tracked word is untracked and locked in one volatile CAS, its entry handed off (KeyShards.replaced, which
     * clears the link and gives the lock back); then a volatile CAS to 0. Returns whether a key was queued for
     * the expelled-key listener.
     */
    private static boolean clearSlot(BucketTable t, KeyShards ks, long offset) {
        boolean expelled = false;
        int waits = 0;
        while (true) {
            long word = t.lvSlot(offset);
            if (word == 0) {
                return expelled;
            }
            if (TableLayout.promoting(word)) {
                // Another link lock holder: only it may clear P. It is short, unless it is this very thread (a
                // key's charAt that resets, or rotates a window, during its own promotion): then, after a bounded
                // wait, the slot is left as it is rather than waiting forever.
                if (++waits > LOCK_SPINS + LOCK_YIELDS) {
                    return expelled;
                }
                if (waits > LOCK_SPINS) {
                    Thread.yield();
                } else {
                    Thread.onSpinWait();
                }
                continue;
            }
            if (TableLayout.tracked(word) && ks != null) {
                if (ks.slotLinks().lockForClear(offset, word)) {
                    expelled |= ks.replaced(offset, word, true);
                }
                continue;
            }
            if (t.casSlot(offset, word, 0L)) {
                return expelled;
            }
        }
    }

    /** Scales one slot's count (volatile CAS loop, other bits kept); an empty slot stays empty. */
    private static void scaleSlot(BucketTable t, long offset, double factor) {
        while (true) {
            long word = t.lvSlot(offset);
            if (word == 0) {
                return;
            }
            long count = TableLayout.count(word);
            long scaled = Math.max(1, (long) Math.floor(count * factor));
            if (scaled == count || t.casSlot(offset, word, word - count + scaled)) {
                return;
            }
        }
    }

    /** Whether bucket {@code b}'s occupied slots are a prefix (acquire loads). */
    private static boolean inOrder(BucketTable t, long b) {
        boolean empty = false;
        for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
            long word = t.laSlot(b, s);
            if (word == 0) {
                empty = true;
            } else if (empty) {
                return false;
            }
        }
        return true;
    }
}
