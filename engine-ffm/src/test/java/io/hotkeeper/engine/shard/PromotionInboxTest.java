package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.CombiningMode;
import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperInfo;
import io.hotkeeper.engine.Partitioning;
import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.worker.WorkerHandle;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Promotions that find a shared key shard busy are handed to its next owner ({@link PromotionInbox}) instead of
 * being dropped: a key whose whole run arrives while another worker holds the shard is still listed.
 */
class PromotionInboxTest {
    private static final long SECOND = 1_000_000_000L;
    /**
     * Worker A holds the one shard both workers share (paused inside its own promotion) while worker B observes
     * a key 50 times, its whole run; returns whether the key is listed once A has finished, and its estimate.
     */
    private static List<HeavyHitter> runWhileTheShardIsHeld(Hotkeeper hk, String key) throws Exception {
        assertEquals(1, hk.info().shardLimit(), "one shard for both workers: " + hk.info());
        NoHeavyKeyLostTest.PausingChars slow = NoHeavyKeyLostTest.PausingChars.pausing("the-key-of-worker-a");
        Thread a = Thread.ofPlatform().start(() -> hk.observe(slow));
        assertTrue(slow.inside.await(30, TimeUnit.SECONDS), "A is inside the shard");
        for (int i = 0; i < 50; i++) {
            hk.observe(key);
        }
        assertFalse(hk.contains(key), "not tracked while A holds the shard");
        slow.resume.countDown();
        a.join();
        assertEquals(List.of(), ShardIntegrity.violations(Internals.keyShards(hk)));
        return hk.topK(10).stream().filter(h -> h.keyAsString().equals(key)).toList();
    }

    @Test
    void aKeyWhoseWholeRunComesWhileAnotherWorkerHoldsTheShardIsListed() throws Exception {
        try (Hotkeeper hk = Hotkeeper.builder().memory(32 * 1024).k(100).maxKeyBytes(64).expectedThreads(2)
                .combining(CombiningMode.OFF).seed(11).build()) {
            List<HeavyHitter> listed = runWhileTheShardIsHeld(hk, "a-run-of-fifty");
            assertEquals(1, listed.size(), "left in the inbox for A, which carried it out before leaving: "
                    + hk.topK(10));
            assertEquals(50, listed.getFirst().estimate());
            assertTrue(hk.contains("the-key-of-worker-a"), "A's own promotion went through too");
            HotkeeperInfo info = hk.info();
            assertTrue(info.nativeBytes() <= 32 * 1024, info.toString());
        }
    }

    @Test
    void withAShardPerWriterARunDuringAnotherWritersHoldIsListedAtOnce() throws Exception {
        // 64 KiB for two expected writers: the table keeps 250 buckets or more beside a shard for each, so no writer
        // waits for another's (docs/shards.md, "A shard per writer"). Worker A, whose id equals this thread's modulo
        // 2 (a fixed id % 2 put both on one shard), pauses inside its own shard while this thread observes a run:
        // the run's key is tracked at once, not parked in a cell until A leaves.
        try (Hotkeeper hk = Hotkeeper.builder().memory(64 * 1024).k(100).maxKeyBytes(64).expectedThreads(2)
                .combining(CombiningMode.OFF).seed(11).build()) {
            assertEquals(2, hk.info().shardLimit(), hk.info().toString());
            assertTrue(hk.info().buckets() >= 250, hk.info().toString());
            KeyShards shards = Internals.keyShards(hk);
            KeyShard mine = shards.shardFor(WorkerHandle.NO_HANDLE);
            NoHeavyKeyLostTest.PausingChars slow = NoHeavyKeyLostTest.PausingChars.pausing("the-key-of-worker-a");
            CompletableFuture<KeyShard> theirs = new CompletableFuture<>();
            Thread a = ShardThreads.startColliding(2, () -> {
                theirs.complete(shards.shardFor(WorkerHandle.NO_HANDLE));
                hk.observe(slow);
            });
            assertTrue(slow.inside.await(30, TimeUnit.SECONDS), "A is inside its shard");
            assertTrue(theirs.get() != mine, "A was given the other shard");
            for (int i = 0; i < 50; i++) {
                hk.observe("a-run-of-fifty");
            }
            assertTrue(hk.contains("a-run-of-fifty"), "tracked while A still holds its own shard");
            slow.resume.countDown();
            a.join();
            assertEquals(List.of(), ShardIntegrity.violations(shards));
            assertEquals(50, hk.estimate("a-run-of-fifty"));
            assertTrue(hk.contains("the-key-of-worker-a"), "A's own promotion went through too");
            assertTrue(hk.info().nativeBytes() <= 64 * 1024, hk.info().toString());
        }
    }

    @Test
    void aThreadThatTakesOverAnEndedWritersIdIsGivenTheFreeShard() throws Exception {
        // Writer 2 is given shard 0 and ends; writer 1 is then given shard 0 too (writer 2 no longer counts). A new
        // thread that takes over writer 2's id while writer 1 lives is given the other shard, not writer 2's
        // (docs/shards.md, "An id that changes hands"); with the choice kept it would wait on writer 1's shard.
        try (Hotkeeper hk = Hotkeeper.builder().memory(64 * 1024).k(100).maxKeyBytes(64).expectedThreads(2)
                .combining(CombiningMode.OFF).seed(11).build()) {
            assertEquals(2, hk.info().shardLimit(), hk.info().toString());
            KeyShards shards = Internals.keyShards(hk);
            KeyShard[] given = new KeyShard[3];
            ShardThreads.idChangesHands(() -> given[0] = shards.shardFor(WorkerHandle.NO_HANDLE),
                    () -> given[1] = shards.shardFor(WorkerHandle.NO_HANDLE),
                    () -> {
                        given[2] = shards.shardFor(WorkerHandle.NO_HANDLE);
                        hk.observe("writer-3", 3);
                        hk.observe("writer-3");
                    });
            assertTrue(given[0] == given[1], "writer 2 had ended when writer 1 asked: its shard was free");
            assertTrue(given[2] != given[0], "writer 3 took writer 2's id, not its shard");
            assertTrue(hk.contains("writer-3"));
            assertEquals(List.of(), ShardIntegrity.violations(shards));
        }
    }

    @Test
    void withoutCellsTheSameRunIsCountedButNotListedUntilItsKeyIsSeenAgain() throws Exception {
        // One expected writer: the plan gives no inbox cells, yet a second thread shares the one shard, so its
        // promotions that find the shard busy are dropped (what every shared shard did before the cells).
        try (Hotkeeper hk = Hotkeeper.builder().memory(32 * 1024).k(100).maxKeyBytes(64).expectedThreads(1)
                .combining(CombiningMode.OFF).seed(11).build()) {
            assertEquals(List.of(), runWhileTheShardIsHeld(hk, "a-run-of-fifty"));
            assertEquals(50, hk.estimate("a-run-of-fifty"), "counted in the table all the same");
            hk.observe("a-run-of-fifty");
            assertTrue(hk.contains("a-run-of-fifty"), "its next observation promotes it");
        }
    }

    @Test
    void eachTableOfAWindowHasItsOwnInboxAndARotationLeavesNothingBehind() throws Exception {
        // Two slices of one second: both writers write the current slice's table (slice 0 at 1,000 s), whose one
        // shard has its own inbox (40 KiB a slice: a second shard would leave the table below 250 buckets).
        AtomicLong now = new AtomicLong(1_000 * SECOND);
        try (Hotkeeper hk = Hotkeeper.builder().memory(80 * 1024).k(100).maxKeyBytes(64).expectedThreads(2)
                .combining(CombiningMode.OFF).seed(13).partitioning(Partitioning.window(Duration.ofSeconds(2), 2))
                .clock(now::get).build()) {
            List<HeavyHitter> listed = runWhileTheShardIsHeld(hk, "a-run-in-slice-0");
            assertEquals(1, listed.size(), hk.topK(10).toString());
            assertEquals(50, listed.getFirst().estimate());
            // Once slice 0 has left the window and its table is recycled, nothing of the run is left anywhere.
            now.addAndGet(2 * SECOND);
            hk.observe("in a later slice");
            assertFalse(hk.contains("a-run-in-slice-0"));
            assertEquals(0, hk.estimate("a-run-in-slice-0"));
            for (KeyShards shards : Internals.keyShardSets(hk)) {
                assertEquals(List.of(), ShardIntegrity.violations(shards));
            }
        }
    }

    /** Holds the calling thread's (shared) shard while another thread observes {@code key} 5 times. */
    private static void observeWhileHeld(Hotkeeper hk, String key) throws Exception {
        KeyShard shard = Internals.keyShards(hk).shardFor(WorkerHandle.NO_HANDLE);
        assertTrue(shard.tryEnter());
        try {
            Thread b = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 5; i++) {
                    hk.observe(key);
                }
            });
            b.join();
        } finally {
            shard.exit();
        }
        assertFalse(hk.contains(key), "waiting in a cell");
    }

    @Test
    void reapCarriesOutWhatWaitsAndAResetLeavesItNothingToClaim() throws Exception {
        try (Hotkeeper hk = Hotkeeper.builder().memory(32 * 1024).k(100).maxKeyBytes(64).expectedThreads(2)
                .combining(CombiningMode.OFF).seed(5).build()) {
            hk.observe("creates the shard");
            observeWhileHeld(hk, "waiting");
            hk.reap();
            assertTrue(hk.contains("waiting"), "carried out by the reaping owner");
            assertEquals(5, hk.estimate("waiting"));
            // A request still waiting when the table is reset: its slot is gone, so carrying it out claims nothing.
            observeWhileHeld(hk, "stale");
            hk.reset();
            hk.reap();
            assertFalse(hk.contains("stale"));
            assertEquals(0, hk.estimate("stale"));
            assertEquals(List.of(), ShardIntegrity.violations(Internals.keyShards(hk)));
            // The cells are free again.
            observeWhileHeld(hk, "after the reset");
            hk.reap();
            assertTrue(hk.contains("after the reset"));
            assertEquals(List.of(), ShardIntegrity.violations(Internals.keyShards(hk)));
        }
    }

    // ------------------------------------------------------------------ the cells alone

    private static PromotionInbox cells(Arena arena, int count, int maxKeyBytes) {
        return new PromotionInbox(arena.allocate(count * ShardLayout.inboxCellBytes(maxKeyBytes), 64), maxKeyBytes);
    }

    private record Taken(long hash, byte[] key, boolean truncated, int kind) {
    }

    private static List<Taken> takeAll(PromotionInbox cells) {
        List<Taken> out = new ArrayList<>();
        cells.takeAll((hash, segment, offset, length, truncated, kind, worker) -> {
            assertEquals(7L, worker);
            out.add(new Taken(hash, segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE),
                    truncated, kind));
        }, 7L);
        return out;
    }

    @Test
    void everyKindOfKeyComesOutAsTheShardWouldStoreIt() {
        try (Arena arena = Arena.ofConfined()) {
            PromotionInbox cells = cells(arena, 4, 16);
            assertEquals(4, cells.cells());
            byte[] bytes = "0123456789abcdefXYZ".getBytes(StandardCharsets.UTF_8);
            assertTrue(cells.offer(1, 0x0807060504030201L, null, 0, 0, null));
            assertTrue(cells.offer(2, 0, MemorySegment.ofArray(bytes), 3, 5, null));
            assertTrue(cells.offer(3, 0, MemorySegment.ofArray(bytes), 0, bytes.length, null));
            assertTrue(cells.offer(4, 0, null, 0, 0, "héllo"));
            assertEquals(4, cells.waiting());
            assertFalse(cells.offer(5, 0, null, 0, 0, "no cell left"), "every cell taken");
            List<Taken> taken = takeAll(cells);
            assertEquals(0, cells.waiting());
            assertEquals(4, taken.size());
            assertEquals(1, taken.get(0).hash());
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, taken.get(0).key());
            assertEquals(ShardLayout.KIND_LONG, taken.get(0).kind());
            assertArrayEquals("34567".getBytes(StandardCharsets.UTF_8), taken.get(1).key());
            assertFalse(taken.get(1).truncated());
            assertEquals(ShardLayout.KIND_BYTES, taken.get(1).kind());
            assertArrayEquals("0123456789abcdef".getBytes(StandardCharsets.UTF_8), taken.get(2).key());
            assertTrue(taken.get(2).truncated(), "19 bytes cut to 16");
            assertArrayEquals("héllo".getBytes(StandardCharsets.UTF_8), taken.get(3).key());
            assertEquals(ShardLayout.KIND_TEXT, taken.get(3).kind());
            assertEquals(List.of(), takeAll(cells), "each promotion carried out once");
            assertTrue(cells.offer(5, 0, null, 0, 0, "room again"));
        }
    }

    @Test
    void aKeyAlreadyWaitingTakesNoSecondCell() {
        try (Arena arena = Arena.ofConfined()) {
            PromotionInbox cells = cells(arena, 2, 64);
            assertTrue(cells.offer(42, 0, null, 0, 0, "k"));
            assertTrue(cells.offer(42, 0, null, 0, 0, "k"), "its earlier observation waits");
            assertEquals(1, cells.waiting());
            assertTrue(cells.offer(43, 0, null, 0, 0, "another"));
            assertEquals(2, takeAll(cells).size());
        }
    }

    @Test
    void aKeyWhoseCopyThrowsLeavesItsCellFreeAndTheErrorToTheCaller() {
        CharSequence hostile = new CharSequence() {
            @Override
            public int length() {
                return 4;
            }

            @Override
            public char charAt(int index) {
                throw new IllegalStateException("charAt " + index);
            }

            @Override
            public CharSequence subSequence(int start, int end) {
                throw new UnsupportedOperationException();
            }
        };
        try (Arena arena = Arena.ofConfined()) {
            PromotionInbox cells = cells(arena, 1, 64);
            assertThrows(IllegalStateException.class, () -> cells.offer(9, 0, null, 0, 0, hostile));
            assertEquals(0, cells.waiting());
            assertTrue(cells.offer(10, 0, null, 0, 0, "usable"));
            // A taker that throws frees the cell all the same (the promotion is dropped, as a skipped one is).
            assertThrows(IllegalStateException.class, () -> cells.takeAll((h, s, o, l, t, k, w) -> {
                throw new IllegalStateException("taker");
            }, 0));
            assertEquals(0, cells.waiting());
        }
    }

    @Test
    void aSegmentOfNoCellOrTooManyIsRefused() {
        try (Arena arena = Arena.ofConfined()) {
            long cell = ShardLayout.inboxCellBytes(8);
            assertEquals(64, cell);
            assertThrows(IllegalArgumentException.class, () -> new PromotionInbox(arena.allocate(cell - 1), 8));
            assertThrows(IllegalArgumentException.class, () -> new PromotionInbox(
                    arena.allocate((ShardLayout.MAX_INBOX_CELLS + 1) * cell), 8));
            assertEquals(320, ShardLayout.inboxCellBytes(256), "24 header bytes and 256 key bytes, in lines");
        }
    }
}
