package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.Partitioning;
import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.CombiningMode;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.table.TableLayout;
import io.hotkeeper.engine.workload.ZipfKeys;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The integrity checker itself: silent on real sketches after heavy concurrent use, and loud on every kind of
 * corruption written into an otherwise sound sketch through raw segment writes.
 */
class ShardIntegrityTest {
    private static final int MAX_KEY_BYTES = 16;

    @Test
    void passesOnASketchAfterHeavyConcurrentChurn() throws Exception {
        long[] keys = new ZipfKeys(200_000, 0.8).keys(1 << 18, 5);
        for (int capacity : new int[] {1024, 64}) {
            for (CombiningMode mode : new CombiningMode[] {CombiningMode.OFF, CombiningMode.ON}) {
                try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(4096).minCount(2).shardCapacity(capacity)
                        .combining(mode).seed(17).build()) {
                    for (int round = 0; round < 3; round++) {
                        churn(hk, keys, 4, 250_000, round);
                        // Quiescent: the workers were joined.
                        ShardIntegrity.check(Internals.keyShards(hk));
                    }
                    if (capacity == 1024) {
                        assertTrue(hk.stats().handOffs() > 0, "the workload handed tracked entries over: " + hk.stats());
                    } else {
                        // 4 shards of 64 fill up: SIEVE evicts for heavier keys, and the tracked keys end up too
                        // heavy to lose their slots (no hand-offs); the check then covers eviction instead.
                        assertTrue(hk.stats().promotions() > 4L * capacity, "SIEVE evicted: " + hk.stats());
                    }
                }
            }
        }
    }

    @Test
    void passesOnEveryTableOfAWorkerTablesSketch() throws Exception {
        long[] keys = new ZipfKeys(50_000, 1.0).keys(1 << 16, 9);
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(4096)
                .partitioning(Partitioning.perWorker(4)).minCount(2)
                .shardCapacity(64).seed(3).build()) {
            churn(hk, keys, 4, 200_000, 0);
            assertEquals(4, Internals.keyShardSets(hk).size());
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
        }
    }

    private static void churn(Hotkeeper hk, long[] keys, int threads, int perThread, int round) throws Exception {
        CyclicBarrier start = new CyclicBarrier(threads);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int id = t;
            workers[t] = Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    int mask = keys.length - 1;
                    for (int i = 0; i < perThread; i++) {
                        long key = keys[(i * 7 + id * 104_729 + round * 31) & mask];
                        if ((i & 3) == 0) {
                            hk.observe(Long.toString(key));
                        } else {
                            hk.observe(key);
                        }
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
        }
        for (Thread w : workers) {
            w.join();
        }
        assertNull(failure.get());
    }

    // ------------------------------------------------------------------ corruptions

    /** A sound single-threaded sketch (deterministic) and raw access to its state. */
    private static final class Victim implements AutoCloseable {
        final Hotkeeper hk;
        final KeyShards shards;
        final KeyShard shard;

        Victim(int capacity) {
            hk = Hotkeeper.builder().recordStats().memoryBytes(4096).minCount(2).shardCapacity(capacity)
                    .maxKeyBytes(MAX_KEY_BYTES).combining(CombiningMode.OFF).seed(23).build();
            for (long key : new ZipfKeys(20_000, 0.9).keys(200_000, 11)) {
                hk.observe(key);
            }
            shards = Internals.keyShards(hk);
            shard = shards.shards().getFirst();
            assertEquals(List.of(), ShardIntegrity.violations(shards), "sound before the corruption");
        }

        MemorySegment seg() {
            return shard.segment();
        }

        long entry(int e) {
            return ShardLayout.entryOffset(e);
        }

        /** Takes entry {@code e} off the SIEVE list by raw writes, as an owner's unlink would, nothing else. */
        void unlinkFromSieve(int e) {
            int older = shard.olderOf(e);
            int newer = shard.newerOf(e);
            if (older != ShardLayout.NONE) {
                setInt(seg(), entry(older) + ShardLayout.SIEVE_NEXT, newer);
            } else {
                setLong(seg(), ShardLayout.SIEVE_TAIL, newer);
            }
            if (newer != ShardLayout.NONE) {
                setInt(seg(), entry(newer) + ShardLayout.SIEVE_PREV, older);
            } else {
                setLong(seg(), ShardLayout.SIEVE_HEAD, older);
            }
        }

        /** The last entry (in page order) used at least once. */
        int lastUsed() {
            int last = ShardLayout.NONE;
            for (int e = shard.firstEntry(); e != ShardLayout.NONE; e = shard.nextEntry(e)) {
                if (ShardLayout.generation(shard.state(e)) != 0) {
                    last = e;
                }
            }
            return last;
        }

        /** The free list head of entry {@code e}'s class. */
        long freeHead(int e) {
            return ShardLayout.freeHead(shard.pageClassOf(e));
        }

        /** Live members (MEMBER, not DEAD), in page order. */
        List<Integer> members() {
            List<Integer> out = new ArrayList<>();
            for (int e = shard.firstEntry(); e != ShardLayout.NONE; e = shard.nextEntry(e)) {
                if ((shard.state(e) & (ShardLayout.MEMBER | ShardLayout.DEAD)) == ShardLayout.MEMBER) {
                    out.add(e);
                }
            }
            return out;
        }

        long firstSlot(boolean tracked) {
            for (long s = 0; s < shards.table().byteSize(); s += TableLayout.SLOT_BYTES) {
                long w = shards.slotWord(s);
                if (w != 0 && TableLayout.tracked(w) == tracked) {
                    return s;
                }
            }
            throw new AssertionError("no such slot");
        }

        MemorySegment links() {
            return shards.regions().getFirst();
        }

        void setLong(MemorySegment s, long offset, long v) {
            s.set(ValueLayout.JAVA_LONG, offset, v);
        }

        void setInt(MemorySegment s, long offset, int v) {
            s.set(ValueLayout.JAVA_INT, offset, v);
        }

        @Override
        public void close() {
            hk.close();
        }
    }

    private static DynamicTest corruption(String name, int capacity, String expected, Consumer<Victim> corrupt) {
        return DynamicTest.dynamicTest(name, () -> {
            try (Victim v = new Victim(capacity)) {
                corrupt.accept(v);
                List<String> found = ShardIntegrity.violations(v.shards);
                assertTrue(found.stream().anyMatch(s -> s.contains(expected)),
                        "expected a violation containing \"" + expected + "\", got " + found);
                IllegalStateException e = assertThrows(IllegalStateException.class,
                        () -> ShardIntegrity.check(v.shards));
                assertTrue(e.getMessage().contains(expected), e.getMessage());
            }
        });
    }

    @TestFactory
    Stream<DynamicTest> failsOnCorruptedState() {
        return Stream.of(
                corruption("a tracked bit without a link", 1024, "no link", v -> {
                    long slot = v.firstSlot(false);
                    v.setLong(v.links(), slot, 0);
                    v.setLong(v.shards.table().segment(), slot, v.shards.slotWord(slot) | TableLayout.TRACKED);
                }),
                corruption("a tracked slot whose link was lost", 1024, "does not link it back", v -> {
                    v.setLong(v.links(), v.firstSlot(true), 0);
                }),
                corruption("a tracked slot linking an entry marked dead", 1024, "the entry is marked dead", v -> {
                    long link = v.shards.linkWord(v.firstSlot(true));
                    int e = ShardLayout.linkEntry(link);
                    v.setLong(v.seg(), v.entry(e) + ShardLayout.STATE, v.shard.state(e) | ShardLayout.DEAD);
                }),
                corruption("a tracked slot linking an older generation", 1024, "another generation", v -> {
                    long slot = v.firstSlot(true);
                    v.setLong(v.links(), slot, v.shards.linkWord(slot) - 1);
                }),
                corruption("an entry recording another hash", 1024, "has fingerprint", v -> {
                    int e = v.members().getFirst();
                    v.setLong(v.seg(), v.entry(e) + ShardLayout.HASH, v.shard.recordedHash(e) ^ (0x5555L << 32 | 0xFFF_FC0L));
                }),
                corruption("a broken SIEVE previous pointer", 1024, "has previous", v -> {
                    int head = (int) v.shard.headerWord(ShardLayout.SIEVE_HEAD);
                    v.setInt(v.seg(), v.entry(head) + ShardLayout.SIEVE_PREV, head);
                }),
                corruption("a SIEVE cycle", 1024, "SIEVE list has a cycle", v -> {
                    int head = (int) v.shard.headerWord(ShardLayout.SIEVE_HEAD);
                    int tail = (int) v.shard.headerWord(ShardLayout.SIEVE_TAIL);
                    v.setInt(v.seg(), v.entry(head) + ShardLayout.SIEVE_NEXT, tail);
                }),
                corruption("a SIEVE hand off the list", 64, "SIEVE hand", v -> {
                    // make sure the hand names an entry that is not on the list: free it in place
                    int e = v.lastUsed();
                    v.setLong(v.seg(), ShardLayout.SIEVE_HAND, e);
                    if ((v.shard.state(e) & ShardLayout.MEMBER) != 0) {
                        // unlink e by hand from the SIEVE list so the hand points off it
                        int older = v.shard.olderOf(e);
                        int newer = v.shard.newerOf(e);
                        if (older != ShardLayout.NONE) {
                            v.setInt(v.seg(), v.entry(older) + ShardLayout.SIEVE_NEXT, newer);
                        } else {
                            v.setLong(v.seg(), ShardLayout.SIEVE_TAIL, newer);
                        }
                        if (newer != ShardLayout.NONE) {
                            v.setInt(v.seg(), v.entry(newer) + ShardLayout.SIEVE_PREV, older);
                        } else {
                            v.setLong(v.seg(), ShardLayout.SIEVE_HEAD, older);
                        }
                    }
                }),
                corruption("an unbalanced LIVE counter", 1024, "LIVE=", v -> {
                    v.setLong(v.seg(), ShardLayout.LIVE, v.shard.live() + 1);
                }),
                corruption("NEXT_PAGE past the pages", 64, "NEXT_PAGE=", v -> {
                    v.setLong(v.seg(), ShardLayout.NEXT_PAGE, v.shard.pages() + 1L);
                }),
                corruption("a page reassigned to another class", 64, "page 0 has class", v -> {
                    v.seg().set(ValueLayout.JAVA_BYTE, ShardLayout.HEADER_BYTES, (byte) 1);
                }),
                corruption("a link into the middle of an entry", 1024, "not an entry of an assigned page", v -> {
                    long slot = v.firstSlot(true);
                    v.setLong(v.links(), slot, v.shards.linkWord(slot) + (1L << 32));
                }),
                corruption("an unbalanced IN_USE counter", 1024, "IN_USE=", v -> {
                    v.setLong(v.seg(), ShardLayout.IN_USE, v.shard.inUse() - 1);
                }),
                corruption("an entry on another class's free list", 1024, "is not a used entry of the class", v -> {
                    int e = v.members().getFirst();
                    int other = v.shard.pageClassOf(e) == 0 ? 1 : 0;
                    v.unlinkFromSieve(e);
                    v.setInt(v.seg(), v.entry(e) + ShardLayout.SIEVE_NEXT, ShardLayout.NONE);
                    v.setInt(v.seg(), ShardLayout.freeHead(other), e);
                    v.setLong(v.seg(), v.entry(e) + ShardLayout.STATE, v.shard.state(e) & ~0xFFFF_FFFFL);
                }),
                corruption("a free-list cycle", 1024, "free list has a cycle", v -> {
                    // A member put on the free list, linked to itself: in both lists, and a cycle.
                    int e = v.members().getLast();
                    v.setInt(v.seg(), v.freeHead(e), e);
                    v.setInt(v.seg(), v.entry(e) + ShardLayout.SIEVE_NEXT, e);
                }),
                corruption("a free entry with a reference", 64, "on the free list with flags or references", v -> {
                    int e = v.members().getFirst();
                    // Unlink e from the SIEVE list by hand and put it on the free list still holding its reference.
                    v.unlinkFromSieve(e);
                    v.setInt(v.seg(), v.entry(e) + ShardLayout.SIEVE_NEXT, v.shard.headerInt(v.freeHead(e)));
                    v.setInt(v.seg(), v.freeHead(e), e);
                    v.setLong(v.seg(), v.entry(e) + ShardLayout.STATE, v.shard.state(e) & ~ShardLayout.MEMBER);
                }),
                corruption("a hand-off stack cycle", 1024, "hand-off stack has a cycle", v -> {
                    int e = v.members().getFirst();
                    v.setLong(v.seg(), v.entry(e) + ShardLayout.STATE, v.shard.state(e) | ShardLayout.DEAD
                            + ShardLayout.REF);
                    v.setLong(v.seg(), ShardLayout.STACK_HEAD, e);
                    v.setInt(v.seg(), v.entry(e) + ShardLayout.NEXT, e);
                }),
                corruption("a half-written hand-off", 1024, "not yet written", v -> {
                    int e = v.members().getFirst();
                    v.setLong(v.seg(), v.entry(e) + ShardLayout.STATE, (v.shard.state(e) | ShardLayout.DEAD)
                            + ShardLayout.REF);
                    v.setLong(v.seg(), ShardLayout.STACK_HEAD, e);
                    v.setInt(v.seg(), v.entry(e) + ShardLayout.NEXT, (int) ShardLayout.NOT_YET);
                }),
                corruption("a handed-off entry not marked dead", 1024, "but not marked dead", v -> {
                    int e = v.members().getFirst();
                    v.setLong(v.seg(), v.entry(e) + ShardLayout.STATE, v.shard.state(e) + ShardLayout.REF);
                    v.setLong(v.seg(), ShardLayout.STACK_HEAD, e);
                    v.setInt(v.seg(), v.entry(e) + ShardLayout.NEXT, ShardLayout.NONE);
                }),
                corruption("a lost reference", 1024, "references, expected", v -> {
                    int e = v.members().getFirst();
                    v.setLong(v.seg(), v.entry(e) + ShardLayout.STATE, v.shard.state(e) + ShardLayout.REF);
                }),
                corruption("a leaked entry", 1024, "leaked", v -> {
                    // Off the SIEVE list and not a member, yet neither free nor handed off.
                    int e = v.members().getFirst();
                    v.unlinkFromSieve(e);
                    v.setLong(v.seg(), v.entry(e) + ShardLayout.STATE,
                            (v.shard.state(e) & ~ShardLayout.MEMBER & ~ShardLayout.REF_MASK) | ShardLayout.DEAD);
                    v.setLong(v.seg(), ShardLayout.LIVE, v.shard.live() - 1);
                }),
                corruption("a live entry its slot forgot", 1024, "does not link it back", v -> {
                    long slot = v.firstSlot(true);
                    v.setLong(v.shards.table().segment(), slot, v.shards.slotWord(slot) & ~TableLayout.TRACKED);
                }),
                corruption("a busy word left set", 1024, "busy word", v -> {
                    v.setLong(v.seg(), ShardLayout.BUSY, 1);
                }));
    }
}
