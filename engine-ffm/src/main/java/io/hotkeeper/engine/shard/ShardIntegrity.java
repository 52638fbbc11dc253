package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableLayout;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An internal integrity check of one sketch's key shards against its table: the invariants that
 * docs/shards.md states, checked on the raw state. It is meant for tests, stress runs and the soak.
 *
 * <p><b>Valid only at a quiescent point</b>: no thread may be observing, flushing, reaping or closing the
 * sketch during the call, and every thread that did so before must happen-before it (a join, a latch, a
 * barrier). Between operations the engine's state is consistent; inside one it is not (a promotion between its
 * claim and its link, a push between its exchange and its link), so a check that races an observer reports
 * violations that are not bugs. {@code topK} readers may run: they write nothing.
 *
 * <h2>What is checked</h2>
 * <ul>
 *   <li>Table to shards: every tracked slot has a non-empty count, is not mid-promotion, and its link names an
 *       existing shard's entry (the start of an entry of its page's class, in an assigned page, used at least
 *       once), in the link's generation, a MEMBER not marked DEAD, whose recorded slot is this slot and whose
 *       recorded hash has this slot's fingerprint and bucket.</li>
 *   <li>Shards to table: every live entry (MEMBER, not DEAD) has a recorded slot inside the table that is
 *       tracked, holds the entry's fingerprint and links back to this very entry (shard, entry id, generation);
 *       otherwise the entry must be marked DEAD. A member's key length fits its class.</li>
 *   <li>Pages and counters: pages below {@code NEXT_PAGE} have a class, the others none, page 0 the largest;
 *       an entry never used has state 0; {@code LIVE} equals the SIEVE list's length and the number of MEMBER
 *       entries; {@code IN_USE} equals the entries used and not free, at most the capacity; every id in any
 *       list, link or header field names an entry used at least once (a class's bump a never-used entry of that
 *       class); the busy word is free.</li>
 *   <li>Lists: each class's free list holds only that class's entries; the free lists and the SIEVE list are
 *       acyclic (walks bounded by the entries used) and disjoint;
 *       every SIEVE entry is a MEMBER whose previous pointer names the entry before it, the tail has none and
 *       the last entry is the head; the hand is NONE or on the SIEVE list; free entries have no flags and no
 *       references; the hand-off stack and the parked chain ({@code PENDING}) are empty or acyclic, fully
 *       linked (no {@code NOT_YET}), and hold DEAD entries only.</li>
 *   <li>References: each entry's reference count is 1 if it is a MEMBER plus the number of hand-offs of it
 *       not yet popped; an entry that is neither free, a member nor handed off is reported as leaked.</li>
 * </ul>
 *
 * <p>Threads: any, at a quiescent point (above). Progress: wait-free (bounded by the table's slots and the
 * shards' entries); allocates its report.
 *
 * <p>Size: one check per invariant of docs/shards.md, each with its message; splitting them would scatter the list a
 * reader compares with that page.
 */
public final class ShardIntegrity {
    /** At most this many violations are described; the rest are counted. */
    public static final int MAX_REPORTED = 100;

    private final KeyShards keyShards;
    private final BucketTable table;
    private final List<String> violations = new ArrayList<>();
    private long suppressed;

    private ShardIntegrity(KeyShards keyShards) {
        this.keyShards = keyShards;
        this.table = keyShards.table();
    }

    /**
     * Every violated invariant of {@code keyShards} (empty if none), one line each, at most
     * {@link #MAX_REPORTED} lines plus one that counts the rest. Threads: any, at a quiescent point.
     * Progress: wait-free.
     */
    public static List<String> violations(KeyShards keyShards) {
        ShardIntegrity check = new ShardIntegrity(keyShards);
        check.run();
        List<String> out = new ArrayList<>(check.violations);
        if (check.suppressed > 0) {
            out.add("... and " + check.suppressed + " more violations");
        }
        return out;
    }

    /**
     * Checks {@code keyShards}; throws if any invariant is violated. Threads: any, at a quiescent point.
     * Progress: wait-free.
     *
     * @throws IllegalStateException listing every violation (see {@link #violations})
     */
    public static void check(KeyShards keyShards) {
        List<String> found = violations(keyShards);
        if (!found.isEmpty()) {
            throw new IllegalStateException("key shard integrity: " + found.size() + " violation(s):\n  "
                    + String.join("\n  ", found));
        }
    }

    /** {@link #check} of each key shard set in turn (a sketch with several tables has one per table). */
    public static void checkAll(List<KeyShards> sets) {
        List<String> found = new ArrayList<>();
        for (int i = 0; i < sets.size(); i++) {
            for (String v : violations(sets.get(i))) {
                found.add(sets.size() == 1 ? v : "table " + i + ": " + v);
            }
        }
        if (!found.isEmpty()) {
            throw new IllegalStateException("key shard integrity: " + found.size() + " violation(s):\n  "
                    + String.join("\n  ", found));
        }
    }

    private void violation(String message) {
        if (violations.size() < MAX_REPORTED) {
            violations.add(message);
        } else {
            suppressed++;
        }
    }

    private void run() {
        Map<Integer, KeyShard> byId = new HashMap<>();
        for (KeyShard shard : keyShards.shards()) {
            byId.put(shard.id(), shard);
            checkShard(shard);
        }
        checkTable(byId);
    }

    /** Whether a slot word carries a claim in flight (the link lock, {@link TableLayout#PROMOTING}). */
    private static boolean midPromotion(long word) {
        return TableLayout.promoting(word);
    }

    // ------------------------------------------------------------------ table -> shards

    private void checkTable(Map<Integer, KeyShard> byId) {
        long bytes = table.bucketCount() * TableLayout.BUCKET_BYTES;
        for (long slot = 0; slot < bytes; slot += TableLayout.SLOT_BYTES) {
            long word = keyShards.slotWord(slot);
            if (midPromotion(word)) {
                violation("slot " + slotName(slot) + ": mid-promotion at a quiescent point (word "
                        + Long.toHexString(word) + ")");
            }
            if (!TableLayout.tracked(word)) {
                continue;
            }
            String where = "tracked slot " + slotName(slot) + " (word " + Long.toHexString(word) + ")";
            if (TableLayout.count(word) == 0) {
                violation(where + ": tracked with count 0");
            }
            long link = keyShards.linkWord(slot);
            if (link == 0) {
                violation(where + ": no link");
                continue;
            }
            int id = ShardLayout.linkShard(link);
            int entry = ShardLayout.linkEntry(link);
            int generation = ShardLayout.linkGeneration(link);
            KeyShard shard = byId.get(id);
            if (shard == null) {
                violation(where + ": link " + Long.toHexString(link) + " names shard " + id + ", which does not exist");
                continue;
            }
            if (!shard.isEntry(entry)) {
                violation(where + ": link names " + entry + " of shard " + id + ", which is not an entry of an"
                        + " assigned page");
                continue;
            }
            if (ShardLayout.generation(shard.state(entry)) == 0) {
                violation(where + ": link names entry " + entry + " of shard " + id + ", never used");
                continue;
            }
            long state = shard.state(entry);
            String target = where + ": links shard " + id + " entry " + entry + " generation " + generation
                    + " (state " + describe(state) + ")";
            if (ShardLayout.generation(state) != generation) {
                violation(target + ": the entry is in another generation");
            } else if ((state & ShardLayout.MEMBER) == 0) {
                violation(target + ": the entry is not a member");
            } else if ((state & ShardLayout.DEAD) != 0) {
                violation(target + ": the entry is marked dead");
            } else {
                long recordedSlot = shard.recordedSlot(entry);
                long hash = shard.recordedHash(entry);
                if (recordedSlot != slot) {
                    violation(target + ": the entry records slot " + slotName(recordedSlot));
                }
                if (table.fingerprint(hash) != TableLayout.fingerprint(word)) {
                    violation(target + ": the entry's hash " + Long.toHexString(hash) + " has fingerprint "
                            + Long.toHexString(table.fingerprint(hash)));
                }
                if (!table.candidate(hash, bucketOf(slot))) {
                    violation(target + ": the entry's hash " + Long.toHexString(hash) + " belongs to bucket "
                            + (table.bucketOffset(hash) / TableLayout.BUCKET_BYTES) + " (first candidate)");
                }
            }
        }
    }

    // ------------------------------------------------------------------ one shard

    private void checkShard(KeyShard shard) {
        String name = "shard " + shard.id();
        long busy = shard.headerWord(ShardLayout.BUSY);
        if (busy != 0) {
            violation(name + ": busy word is " + busy + " at a quiescent point");
        }
        long nextPage = shard.headerWord(ShardLayout.NEXT_PAGE);
        if (nextPage < 1 || nextPage > shard.pages()) {
            violation(name + ": NEXT_PAGE=" + nextPage + " outside 1.." + shard.pages());
            return; // every other bound depends on it
        }
        for (int p = 0; p < shard.pages(); p++) {
            int c = shard.pageClass(p);
            if (p < nextPage && (c < 0 || c >= shard.classes())) {
                violation(name + ": page " + p + " below NEXT_PAGE has class " + c);
                return;
            }
            if (p >= nextPage && c != -1) {
                violation(name + ": page " + p + " at or above NEXT_PAGE=" + nextPage + " has class " + c);
            }
        }
        if (shard.pageClass(0) != shard.classes() - 1) {
            violation(name + ": page 0 has class " + shard.pageClass(0) + ", not the largest " + (shard.classes() - 1));
        }
        int ids = (int) (shard.byteSize() / 8);
        long[] states = new long[ids];
        List<Integer> entries = new ArrayList<>();
        for (int e = shard.firstEntry(); e != ShardLayout.NONE; e = shard.nextEntry(e)) {
            states[e] = shard.state(e);
            if (ShardLayout.generation(states[e]) != 0) {
                entries.add(e);
            } else if (states[e] != 0) {
                violation(name + " entry " + e + ": never used, but state " + describe(states[e]));
            }
        }
        UsedEntries used = new UsedEntries(shard, states);
        for (long field : new long[] {ShardLayout.SIEVE_HEAD, ShardLayout.SIEVE_TAIL, ShardLayout.SIEVE_HAND,
                ShardLayout.PENDING, ShardLayout.STACK_HEAD}) {
            long v = shard.headerWord(field);
            if (v != ShardLayout.NONE && !used.test(v)) {
                violation(name + ": header field at " + field + " is " + v + ", not NONE nor an entry in use");
                return; // walks would leave the shard
            }
        }
        for (int c = 0; c < ShardLayout.MAX_CLASSES; c++) {
            long free = shard.headerInt(ShardLayout.freeHead(c));
            long bump = shard.headerInt(ShardLayout.bump(c));
            if (free != ShardLayout.NONE && (!used.test(free) || shard.pageClassOf((int) free) != c)) {
                violation(name + ": class " + c + " free head " + free + " is not a used entry of the class");
                return;
            }
            if (bump != ShardLayout.NONE && (!shard.isEntry((int) bump) || shard.pageClassOf((int) bump) != c
                    || states[(int) bump] != 0)) {
                violation(name + ": class " + c + " bump " + bump + " is not a never-used entry of the class");
            }
        }
        byte[] role = new byte[ids]; // 0 none, FREE, SIEVE
        int[] handed = new int[ids];

        long freeCount = 0;
        for (int c = 0; c < shard.classes(); c++) {
            freeCount += walkFree(shard, name, c, used, entries.size(), states, role);
        }
        long sieveLength = walkSieve(shard, name, used, entries.size(), role);
        walkHandOffs(shard, name, "hand-off stack", shard.headerWord(ShardLayout.STACK_HEAD), used, entries.size(),
                states, handed);
        walkHandOffs(shard, name, "parked chain", shard.headerWord(ShardLayout.PENDING), used, entries.size(),
                states, handed);

        long hand = shard.headerWord(ShardLayout.SIEVE_HAND);
        if (hand != ShardLayout.NONE && role[(int) hand] != SIEVE) {
            violation(name + ": SIEVE hand " + hand + " is not on the SIEVE list");
        }

        long members = 0;
        for (int e : entries) {
            long state = states[e];
            boolean member = (state & ShardLayout.MEMBER) != 0;
            String entry = name + " entry " + e + " (state " + describe(state) + ")";
            if (member) {
                members++;
                if (role[e] != SIEVE) {
                    violation(entry + ": a member not on the SIEVE list");
                }
                int length = shard.keyLength(e);
                if (length > shard.keyCapacity(e)) { // a 14-bit field of the state word: never negative
                    violation(entry + ": key length " + length + " outside its class's " + shard.keyCapacity(e)
                            + " bytes");
                }
            } else if (role[e] == SIEVE) {
                violation(entry + ": on the SIEVE list but not a member");
            }
            int expected = (member ? 1 : 0) + handed[e];
            if (ShardLayout.references(state) != expected) {
                violation(entry + ": " + ShardLayout.references(state) + " references, expected " + expected
                        + " (member " + member + ", " + handed[e] + " hand-offs waiting)");
            }
            if (role[e] != FREE && !member && handed[e] == 0) {
                violation(entry + ": leaked: neither free, a member, nor handed off");
            }
            if (member && (state & ShardLayout.DEAD) == 0) {
                checkLinkedBack(shard, e, state, entry);
            }
        }
        long live = shard.headerWord(ShardLayout.LIVE);
        if (live != members || live != sieveLength) {
            violation(name + ": LIVE=" + live + ", but " + members + " MEMBER entries and a SIEVE list of "
                    + sieveLength);
        }
        long inUse = shard.headerWord(ShardLayout.IN_USE);
        if (inUse != entries.size() - freeCount) {
            violation(name + ": IN_USE=" + inUse + ", but " + entries.size() + " entries used and " + freeCount
                    + " free");
        }
        if (inUse > shard.capacity()) {
            violation(name + ": IN_USE=" + inUse + " above the capacity " + shard.capacity());
        }
    }

    /** Entry ids that name an entry used at least once (generation above 0). */
    private record UsedEntries(KeyShard shard, long[] states) {
        boolean test(long id) {
            return id >= 0 && id < states.length && shard.isEntry((int) id)
                    && ShardLayout.generation(states[(int) id]) != 0;
        }
    }

    private static final byte FREE = 1;
    private static final byte SIEVE = 2;

    /** Walks class {@code c}'s free list; returns its length. */
    private long walkFree(KeyShard shard, String name, int c, UsedEntries used, int usedCount, long[] states,
                          byte[] role) {
        long steps = 0;
        for (long e = shard.headerInt(ShardLayout.freeHead(c)); e != ShardLayout.NONE; e = shard.newerOf((int) e)) {
            if (!used.test(e)) {
                violation(name + ": class " + c + " free list reaches " + e + ", not an entry in use");
                return steps;
            }
            if (shard.pageClassOf((int) e) != c) {
                violation(name + ": class " + c + " free list holds entry " + e + " of class "
                        + shard.pageClassOf((int) e));
            }
            if (role[(int) e] != 0 || steps >= usedCount) {
                violation(name + ": free list has a cycle through entry " + e);
                return steps;
            }
            steps++;
            role[(int) e] = FREE;
            long state = states[(int) e];
            if ((state & 0xFFFF_FFFFL) != 0) {
                violation(name + " entry " + e + ": on the free list with flags or references (state "
                        + describe(state) + ")");
            }
        }
        return steps;
    }

    /** Walks the SIEVE list from the tail (oldest) to the head; returns its length. */
    private long walkSieve(KeyShard shard, String name, UsedEntries used, int usedCount, byte[] role) {
        long tail = shard.headerWord(ShardLayout.SIEVE_TAIL);
        long head = shard.headerWord(ShardLayout.SIEVE_HEAD);
        if ((tail == ShardLayout.NONE) != (head == ShardLayout.NONE)) {
            violation(name + ": SIEVE tail " + tail + " and head " + head + " disagree on emptiness");
        }
        long length = 0;
        long previous = ShardLayout.NONE;
        for (long e = tail; e != ShardLayout.NONE; e = shard.newerOf((int) e)) {
            if (!used.test(e)) {
                violation(name + ": SIEVE list reaches " + e + ", not an entry in use");
                return length;
            }
            if (role[(int) e] == FREE) {
                violation(name + ": entry " + e + " is on both the free list and the SIEVE list");
                return length;
            }
            if (role[(int) e] == SIEVE || length >= usedCount) {
                violation(name + ": SIEVE list has a cycle through entry " + e);
                return length;
            }
            role[(int) e] = SIEVE;
            length++;
            int older = shard.olderOf((int) e);
            if (older != previous) {
                violation(name + ": SIEVE entry " + e + " has previous " + older + ", but follows " + previous);
            }
            previous = e;
        }
        if (previous != head) {
            violation(name + ": SIEVE walk from the tail ends at " + previous + ", but the head is " + head);
        }
        return length;
    }

    private void walkHandOffs(KeyShard shard, String name, String what, long first, UsedEntries used,
                              int usedCount, long[] states, int[] handed) {
        long steps = 0;
        for (long e = first; e != ShardLayout.NONE; e = shard.handOffNext((int) e)) {
            if (e == ShardLayout.NOT_YET) {
                violation(name + ": " + what + " has a link not yet written at a quiescent point");
                return;
            }
            if (!used.test(e)) {
                violation(name + ": " + what + " reaches " + e + ", not an entry in use");
                return;
            }
            if (++steps > usedCount) {
                violation(name + ": " + what + " has a cycle through entry " + e);
                return;
            }
            handed[(int) e]++;
            if ((states[(int) e] & ShardLayout.DEAD) == 0) {
                violation(name + " entry " + e + ": on the " + what + " but not marked dead (state "
                        + describe(states[(int) e]) + ")");
            }
        }
    }

    private void checkLinkedBack(KeyShard shard, int e, long state, String entry) {
        long slot = shard.recordedSlot(e);
        long hash = shard.recordedHash(e);
        if (slot < 0 || slot >= table.byteSize() || slot % TableLayout.SLOT_BYTES != 0) {
            violation(entry + ": live, but records slot offset " + slot + ", outside the table");
            return;
        }
        long word = keyShards.slotWord(slot);
        long link = keyShards.linkWord(slot);
        long own = ShardLayout.link(shard.id(), e, ShardLayout.generation(state));
        if (!TableLayout.tracked(word) || TableLayout.fingerprint(word) != table.fingerprint(hash)
                || !table.candidate(hash, bucketOf(slot)) || link != own) {
            violation(entry + ": live and not marked dead, but its slot " + slotName(slot) + " (word "
                    + Long.toHexString(word) + ", link " + Long.toHexString(link) + ") does not link it back");
        }
    }

    private static long bucketOf(long slot) {
        return slot & ~(TableLayout.BUCKET_BYTES - 1L);
    }

    private static String slotName(long slot) {
        return (slot / TableLayout.BUCKET_BYTES) + "/" + ((slot % TableLayout.BUCKET_BYTES) / TableLayout.SLOT_BYTES);
    }

    private static String describe(long state) {
        StringBuilder b = new StringBuilder("gen ").append(ShardLayout.generation(state))
                .append(" refs ").append(ShardLayout.references(state));
        if ((state & ShardLayout.MEMBER) != 0) {
            b.append(" MEMBER");
        }
        if ((state & ShardLayout.DEAD) != 0) {
            b.append(" DEAD");
        }
        if ((state & ShardLayout.VISITED) != 0) {
            b.append(" VISITED");
        }
        return b.toString();
    }
}
