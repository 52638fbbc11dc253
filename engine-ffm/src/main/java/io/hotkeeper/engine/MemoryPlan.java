package io.hotkeeper.engine;

import io.hotkeeper.engine.salt.SaltLayout;
import io.hotkeeper.engine.shard.ShardLayout;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableGeometry;
import io.hotkeeper.engine.table.TableLayout;

/**
 * How one total native budget ({@link HotkeeperBuilder#memory(long)}) is split between the parts of an
 * instance (docs/design.md, "One memory budget"). Every part is bounded up front, whatever the number of threads
 * that observe later:
 *
 * <pre>
 *  budget = fixed                         salt counters, stats stripes (when recorded), given by the options
 *         + (saltCounters - 1) x 128       the per-worker salt's counters past its first: a power of two in all, at
 *                                          most one per expected writer, from the room above the minimum, at most
 *                                          budget / 64 (none there is room for: the salt is one shared counter)
 *         + combiners x blockBytes         hot-key combiner blocks: at most budget / 8, at most one per expected
 *                                          worker, none for one expected worker; workers past the last block
 *                                          observe without combining
 *         + tables x ( 2 x tableBytes      bucket table + its link segment (links only with key shards); any
 *                                          bucket count: everything the shards and control leave, to the bucket
 *                    + 128                 control line (the promotion floor and its rescale count)
 *                    + shards x plannedShardBytes(keys) )
 *                                          key shards: 1 .. min(a table's expected writers, 8) per table (as many
 *                                          as fit in a quarter of the budget at the preferred capacity, or one
 *                                          per writer where the table keeps its roomy 5k/2 buckets beside them);
 *                                          workers share them one at a time through each shard's busy
 *                                          gate, each given the least used at its first promotion
 *                                          (WorkerAssignment)
 *                    + shards x cells x inboxCellBytes
 *                                          inbox cells of a shard that several writers share: 4, or as many
 *                                          as the table's buckets above the smallest table hold (a promotion that
 *                                          finds the shard busy waits in one for the shard's next owner)
 * </pre>
 *
 * The minimum of a shard is room for {@code max(16, k + max(8, k/16))} keys (a shard keeps the heaviest keys it was
 * given, so one shard alone must hold the top k, with a few to spare for the keys trading places at rank k: 108
 * at k = 100), counted at the key size the plan assumes: keys of up to 16 bytes, which covers every {@code long}
 * key (40-byte entries) and most words (48-byte entries); longer keys take larger entries in the same pages, so
 * fewer fit, and the pages a shard assigns follow the mix it meets ({@link ShardLayout#plannedShardBytes}). A
 * budget below that minimum beside the smallest table is refused. Above it the shards grow, in whole pages, only
 * once the table keeps {@link #ROOMY_TABLE_BUCKETS_PER_2K 5k/2} buckets (20 slots per reported key), up to the
 * preferred {@code max(16, 2k)} keys (for a shard added so that each writer of a shared table has its own, only the
 * minimum is added; the shards' bytes are split evenly); then they get those or
 * {@link #SHARD_SHARE_DIVISOR 1/8} of the table's share, whichever is more (the eighth matters only from about 100 KiB at k = 100; it keeps small inputs of many
 * distinct keys exact, docs/theory.md section 6). The table (any bucket count, {@link TableGeometry}) and its
 * links take everything else, and what the table's last partial bucket leaves goes to the shards' pages. At
 * k = 100 and {@code long} keys ({@code maxKeyBytes(8)}) the shards have room for 108 entries from the minimum, 16
 * KiB, to about 36 KiB, grow to 204 between 38 and 42 KiB (one thread), and keep 204 (64 KiB) until the eighth
 * takes over (about 82 KiB for these keys). Given {@link HotkeeperBuilder#expectedKeyLengths} the shards get at
 * least room for the minimum's keys at those lengths ({@link ShardLayout#shardBytesForLengths}), up to what leaves
 * the table its smallest size: a top of long keys the shards cannot hold is counted but never listed. A byte of
 * table is worth more to accuracy than a byte of shard: the table holds the candidates' counts, the shards only the
 * keys of those at the top (docs/peers.md, "Hotkeeper's split": at 20 to 40 KiB the minimum shards beside a larger
 * table beat 2k entries on the text streams; at 64 KiB shards 25% and 100% above 2k were no better, and worse on
 * the flat-topped license-words stream).
 *
 * @param budget         the total budget, bytes
 * @param tableBytes     bytes of each bucket table
 * @param shards         key shards per table (0 without key shards)
 * @param shardCapacity  most entries in use in each key shard: the {@code long} keys its pages hold, at most one
 *                       per table slot (0 without key shards)
 * @param combinerBlocks combiner blocks the instance may create (0: no combining)
 * @param plannedBytes   what the plan allocates once every shard and block exists: at most {@code budget}
 * @param shardBytes     bytes of each key shard segment (0 without key shards)
 * @param saltCounters   the per-worker salt's counters granted (1 where none past the first fit, or none was
 *                       asked for)
 * @param inboxBytes  bytes of each key shard's inbox cells (0: none; see {@code PromotionInbox})
 */
record MemoryPlan(long budget, long tableBytes, int shards, int shardCapacity, int combinerBlocks,
                  long plannedBytes, long shardBytes, int saltCounters, long inboxBytes) {
    /** The per-worker salt's counters past the first take at most this fraction's inverse of the budget. */
    static final long SALT_SHARE_DIVISOR = 64;

    /** Most shards per table under a budget: beyond this, workers share (promotions are rare once warm). */
    static final int MAX_SHARDS = 8;
    /** The shards of a table get at least its share divided by this (or the minimum capacity, if more). */
    static final int SHARD_SHARE_DIVISOR = 8;
    /** Twice the buckets per reported key the table keeps before the shards grow past their minimum (5: 2.5k). */
    static final int ROOMY_TABLE_BUCKETS_PER_2K = 5;

    /**
     * The split of {@code budget}.
     *
     * @param budget            total native bytes
     * @param k                 heavy hitters to report
     * @param maxKeyBytes       longest key stored whole (sizes a shard entry)
     * @param keepKeys         whether keys are tracked (no links and no shards otherwise)
     * @param tables            bucket tables sharing the budget (worker or per-node tables)
     * @param fixedBytes        salt and stats bytes, which the options fix (one counter of a per-worker salt)
     * @param saltCountersWanted the per-worker salt's counters wanted, a power of two (1 or 0: not per-worker);
     *                          those past the first come from the room above the minimum ({@link #saltCounters})
     * @param combinerBlockBytes bytes of one combiner block (0: combining off)
     * @param workers           the workers expected to observe (sizes combiner blocks; more may come)
     * @param tableWriters      the workers expected to write one table (sizes its shards): {@code workers}, or their
     *                          share of worker tables, where each worker writes its own
     * @param keyLengths        lengths of keys like those expected at the top ({@link
     *                          HotkeeperBuilder#expectedKeyLengths}), or empty: keys of up to 16 bytes
     * @throws IllegalArgumentException naming the minimum budget, if {@code budget} cannot hold {@code k} keys
     */
    static MemoryPlan of(long budget, int k, int maxKeyBytes, boolean keepKeys, int tables, long fixedBytes,
                         int saltCountersWanted, long combinerBlockBytes, int workers, int tableWriters,
                         int[] keyLengths) {
        int minCapacity = minCapacity(k);
        long minShardBytes = keepKeys ? ShardLayout.plannedShardBytes(minCapacity, maxKeyBytes) : 0;
        long preferredShardBytes = keepKeys ? ShardLayout.plannedShardBytes(preferredCapacity(k), maxKeyBytes) : 0;
        long perTableMinimum = tableAndLinks(TableLayout.MIN_TABLE_BYTES, keepKeys) + minShardBytes;
        long minimum = fixedBytes + tables * perTableMinimum;
        if (budget < minimum) {
            throw new IllegalArgumentException("memory=" + budget + ": too small for k=" + k + (keepKeys
                    ? " keys of up to " + maxKeyBytes + " bytes" : "") + "; the minimum is " + minimum
                    + " bytes (" + tables + " x (table " + TableLayout.MIN_TABLE_BYTES
                    + (keepKeys ? " + links " + TableLayout.MIN_TABLE_BYTES + " + a shard of " + minCapacity
                    + " keys, " + minShardBytes : "") + " + control " + BucketTable.CONTROL_BYTES + ") + salt and stats "
                    + fixedBytes + ")");
        }
        // The per-worker salt's counters past its first (a power of two in all), from the room above the minimum,
        // so that they never raise it: a budget at its minimum draws from one counter, as the shared salt does.
        int saltCounters = 1;
        long saltRoom = Math.min(budget / SALT_SHARE_DIVISOR, budget - minimum);
        while (2L * saltCounters <= saltCountersWanted
                && SaltLayout.segmentBytes(2 * saltCounters - 1) <= saltRoom) {
            saltCounters *= 2;
        }
        long saltExtra = SaltLayout.segmentBytes(saltCounters - 1);
        int combinerBlocks = 0;
        // One expected thread: no combiner budget (combining only pays once two threads write the same hot lines;
        // a block reserved and never created would be budget the table could have had).
        if (combinerBlockBytes > 0 && workers >= 2) {
            long allowed = Math.min(budget / 8, budget - minimum - saltExtra);
            combinerBlocks = (int) Math.min(workers, allowed / combinerBlockBytes);
        }
        long perTable = (budget - fixedBytes - saltExtra - combinerBlocks * combinerBlockBytes) / tables;
        int shards = 0;
        if (keepKeys) {
            shards = 1;
            while (shards < Math.min(tableWriters, MAX_SHARDS)
                    && (shards + 1) * preferredShardBytes <= perTable / 4) {
                shards++;
            }
        }
        int grown = shards;
        Split split = split(shards, grown, perTable, k, maxKeyBytes, keepKeys, tableWriters, keyLengths);
        // A shard of its own for every writer of a shared table, where the table still keeps its roomy size beside
        // them: writers that share a shard take turns at its busy gate, and a key whose run falls in another
        // writer's hold waits in a cell or is never listed (docs/shards.md, "A shard per writer").
        for (int more = keepKeys ? Math.min(tableWriters, MAX_SHARDS) : 0; more > shards; more--) {
            Split candidate = split(more, grown, perTable, k, maxKeyBytes, keepKeys, tableWriters, keyLengths);
            if (candidate.shardShare() + tableAndLinks(roomyTableBytes(k), keepKeys) <= perTable
                    && candidate.buckets() * TableLayout.BUCKET_BYTES >= roomyTableBytes(k)) {
                shards = more;
                split = candidate;
                break;
            }
        }
        long buckets = split.buckets();
        long inboxBytes = split.inboxBytes();
        long tableBytes = buckets * TableLayout.BUCKET_BYTES;
        int capacity = 0;
        long shardBytes = 0;
        if (keepKeys) {
            // Each shard takes the pages its share holds; no more keys than the table has slots (a shard never
            // holds more keys than the table tracks).
            long slots = tableBytes / TableLayout.SLOT_BYTES;
            long share = (perTable - tableAndLinks(tableBytes, keepKeys)) / shards - inboxBytes;
            int plannedClass = ShardLayout.plannedClass(maxKeyBytes);
            int spares = ShardLayout.plannedSparePages(maxKeyBytes);
            long fit = (long) (ShardLayout.pagesIn(share, maxKeyBytes) - spares)
                    * ShardLayout.entriesPerPage(plannedClass, maxKeyBytes);
            int keys = (int) Math.min(Math.max(minCapacity, Math.min(fit, slots)), ShardLayout.MAX_ENTRIES);
            shardBytes = ShardLayout.plannedShardBytes(keys, maxKeyBytes);
            // The entry cap: the long keys those pages hold (text keys fill them with fewer).
            long dataPages = ShardLayout.pagesIn(shardBytes, maxKeyBytes) - spares;
            capacity = (int) Math.min(Math.max(keys, dataPages * ShardLayout.entriesPerPage(0, maxKeyBytes)),
                    Math.min(Math.max(keys, slots), ShardLayout.MAX_ENTRIES));
        }
        long planned = fixedBytes + saltExtra + combinerBlocks * combinerBlockBytes
                + tables * (tableAndLinks(tableBytes, keepKeys)
                        + (keepKeys ? shards * (shardBytes + inboxBytes) : 0));
        return new MemoryPlan(budget, tableBytes, shards, capacity, combinerBlocks, planned, shardBytes, saltCounters,
                inboxBytes);
    }

    /**
     * The table's buckets, each shard's inbox cells and the shards' share of a table's budget, for a number of shards
     * per table (see {@link #of}); the buckets are at least the smallest table's, even where the shards leave less.
     */
    private record Split(long buckets, long inboxBytes, long shardShare) {
    }

    /**
     * The split of one table's share {@code perTable} between its table, links and {@code shards} shards, of which
     * {@code grown} may grow toward the preferred capacity and the rest (those a writer gets for its own) add only
     * the minimum to the shards' share (which {@link #of} then splits evenly between all of them).
     */
    private static Split split(int shards, int grown, long perTable, int k, int maxKeyBytes, boolean keepKeys,
                               int tableWriters, int[] keyLengths) {
        int minCapacity = minCapacity(k);
        long minShardBytes = keepKeys ? ShardLayout.plannedShardBytes(minCapacity, maxKeyBytes) : 0;
        long preferredShardBytes = keepKeys ? ShardLayout.plannedShardBytes(preferredCapacity(k), maxKeyBytes) : 0;
        // Shards at the minimum or an eighth of the share; the table and its links take the rest, to the bucket
        // (the minimum check in of() guarantees at least the smallest table; an eighth exceeds the minimum
        // shards only where the share is 8 times their size, so the smallest table still fits).
        long shardShare = 0;
        if (keepKeys) {
            // What the shards may take while the table keeps its roomy size, in whole pages (a partial page would
            // be lost to both); between the minimum and the preferred shards.
            long room = ShardLayout.shardBytesForPages(ShardLayout.pagesIn(Math.max(0, perTable
                    - tableAndLinks(roomyTableBytes(k), keepKeys)) / shards, maxKeyBytes), maxKeyBytes) * shards;
            long preferred = grown * preferredShardBytes + (shards - grown) * minShardBytes;
            shardShare = Math.max(Math.max(shards * minShardBytes, Math.min(preferred, room)),
                    perTable / SHARD_SHARE_DIVISOR);
            if (keyLengths.length > 0) {
                // Room for the top k at the lengths expected there comes before any table past its smallest: a
                // key the shard cannot hold is counted but never listed (docs/design.md, "Keys longer than the
                // plan assumes").
                long topKeys = shards * ShardLayout.shardBytesForLengths(minCapacity, maxKeyBytes, keyLengths);
                shardShare = Math.max(shardShare, Math.min(topKeys,
                        perTable - tableAndLinks(TableLayout.MIN_TABLE_BYTES, keepKeys)));
            }
        }
        long bucketAndLinks = keepKeys ? 2L * TableLayout.BUCKET_BYTES : TableLayout.BUCKET_BYTES;
        long buckets = Math.min(TableGeometry.MAX_BUCKETS, Math.max(TableGeometry.MIN_BUCKETS,
                (perTable - BucketTable.CONTROL_BYTES - shardShare) / bucketAndLinks));
        // Inbox cells where writers share a shard: without them a promotion that finds the shard busy is
        // dropped, and a key whose whole run comes while another writer holds the shard is never listed
        // (docs/shards.md, "Promotions that find the shard busy"). Taken from the table's buckets above the
        // smallest table, never from the shards (where the keys at the top would no longer fit).
        long inboxBytes = 0;
        if (keepKeys && tableWriters > shards) {
            long cellBytes = ShardLayout.inboxCellBytes(maxKeyBytes);
            long spare = (buckets - TableGeometry.MIN_BUCKETS) * bucketAndLinks;
            inboxBytes = Math.min(ShardLayout.MAX_INBOX_CELLS, spare / (shards * cellBytes)) * cellBytes;
            buckets -= (shards * inboxBytes + bucketAndLinks - 1) / bucketAndLinks;
        }
        return new Split(buckets, inboxBytes, shardShare);
    }

    /** Entries a shard needs at least for a top-{@code k}: {@code max(16, k + max(8, k / 16))}. */
    static int minCapacity(int k) {
        return (int) Math.min(ShardLayout.MAX_ENTRIES, Math.max(16, k + Math.max(8L, k / 16)));
    }

    /** Entries a shard gets where the budget allows them beside a reasonable table: {@code max(16, 2k)}. */
    static int preferredCapacity(int k) {
        return (int) Math.min(ShardLayout.MAX_ENTRIES, Math.max(16, 2L * k));
    }

    /**
     * The table the shards leave room for before they grow past {@link #minCapacity} toward
     * {@link #preferredCapacity}: {@code 5k / 2} buckets (20 slots per reported key), at least the smallest table.
     */
    static long roomyTableBytes(int k) {
        long buckets = Math.min(TableGeometry.MAX_BUCKETS, Math.max(TableGeometry.MIN_BUCKETS,
                ROOMY_TABLE_BUCKETS_PER_2K * (long) k / 2));
        return buckets * TableLayout.BUCKET_BYTES;
    }

    private static long tableAndLinks(long tableBytes, boolean keepKeys) {
        return (keepKeys ? 2 * tableBytes : tableBytes) + BucketTable.CONTROL_BYTES;
    }
}
