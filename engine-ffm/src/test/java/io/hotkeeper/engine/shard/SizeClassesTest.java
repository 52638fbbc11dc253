package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.stats.StatsStripes;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The compact key store of one shard, driven directly as its owner: entries sized by their key's class, pages
 * assigned once, reuse within a class and across to larger classes, and eviction that frees room of the class a
 * candidate needs.
 */
class SizeClassesTest {
    /** Evictions as a table would answer them: each live link's count, from a map the test controls. */
    private static final class Counts implements KeyShard.Evictions {
        final Map<Long, Long> counts = new HashMap<>();
        final List<Long> evicted = new ArrayList<>();
        /** The counts passed to {@link #rejected}: the table-wide floor would rise to each + 1. */
        final List<Long> rejected = new ArrayList<>();
        long countsRead;
        long rescales;

        @Override
        public long trackedCount(KeyShard shard, int entry, long link) {
            countsRead++;
            return counts.getOrDefault(link, 0L);
        }

        @Override
        public void rejected(long count) {
            rejected.add(count);
        }

        @Override
        public long rescales() {
            return rescales;
        }

        @Override
        public void evicting(KeyShard shard, int entry, long link) {
            evicted.add(link);
            counts.remove(link);
        }

        @Override
        public void roomMade() {
        }
    }

    private static KeyShard shard(int pages, int capacity, int maxKeyBytes, Counts counts) {
        MemorySegment segment = Arena.ofAuto().allocate(ShardLayout.shardBytesForPages(pages, maxKeyBytes),
                ShardLayout.ALIGNMENT);
        KeyShard shard = new KeyShard(0, segment, capacity, maxKeyBytes, counts);
        assertEquals(pages, shard.pages());
        return shard;
    }

    private static long insertText(KeyShard shard, String key, long count) {
        assertTrue(shard.tryEnter());
        try {
            return shard.insertChars(key.hashCode(), 0, key, count);
        } finally {
            shard.exit();
        }
    }

    private static long insertLong(KeyShard shard, long key, long count) {
        assertTrue(shard.tryEnter());
        try {
            return shard.insertLong(key, 0, key, count);
        } finally {
            shard.exit();
        }
    }

    private static void delete(KeyShard shard, long link) {
        assertTrue(shard.tryEnter());
        try {
            shard.deleteOwn(ShardLayout.linkEntry(link), ShardLayout.linkGeneration(link));
        } finally {
            shard.exit();
        }
    }

    private static int classOf(KeyShard shard, long link) {
        return shard.pageClassOf(ShardLayout.linkEntry(link));
    }

    private static String text(int bytes, char fill) {
        return String.valueOf(fill).repeat(bytes);
    }

    @Test
    void aShardWithNoTableBehindItRefusesToPromoteAndStaysUsable() {
        KeyShard shard = shard(1, 8, 32, new Counts());
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> shard.promote(7L, 7L, null, 0, 0, null, -1L));
        assertTrue(e.getMessage().contains("no table behind it"), e.getMessage());
        // The refusal comes before the busy word: the shard is not left entered.
        assertNotEquals(0, insertLong(shard, 7L, 1));
        // A table behind it needs both the slot links and the stats that count its promotions.
        MemorySegment segment = Arena.ofAuto().allocate(ShardLayout.shardBytesForPages(1, 32), ShardLayout.ALIGNMENT);
        IllegalArgumentException half = assertThrows(IllegalArgumentException.class,
                () -> new KeyShard(0, segment, 8, 32, new Counts(), null, StatsStripes.off()));
        assertTrue(half.getMessage().contains("needs both"), half.getMessage());
    }

    @Test
    void classesFollowTheKeyLength() {
        assertEquals(6, ShardLayout.classes(64)); // 8, 16, 24, 32, 48, 64
        assertEquals(40, ShardLayout.entryBytes(0, 64));
        assertEquals(48, ShardLayout.entryBytes(1, 64));
        assertEquals(56, ShardLayout.entryBytes(2, 64));
        assertEquals(96, ShardLayout.entryBytes(5, 64));
        assertEquals(10, ShardLayout.classes(256)); // ..., 96, 128, 192, 256
        assertEquals(288, ShardLayout.entryBytes(9, 256));
        assertEquals(224, ShardLayout.entryBytes(8, 256));
        assertEquals(8, ShardLayout.classes(100)); // 8 .. 96, then 104 (100 rounded up to 8)
        assertEquals(104, ShardLayout.classKeyBytes(7, 100));
        assertEquals(1, ShardLayout.classes(8));
        assertEquals(ShardLayout.MAX_CLASSES, ShardLayout.classes(ShardLayout.MAX_KEY_BYTES));
        assertTrue(ShardLayout.STARVED_RESCALES + 8 <= ShardLayout.HEADER_BYTES, "the class region fits its lines");
        assertEquals(8192, ShardLayout.pageBytes(4096));
        assertEquals(512, ShardLayout.pageBytes(256)); // one 288-byte entry of the largest class
        assertEquals(512, ShardLayout.pageBytes(64));
        assertEquals(2048, ShardLayout.pageBytes(1000));
        assertEquals(0, ShardLayout.classFor(0, 64));
        assertEquals(0, ShardLayout.classFor(8, 64));
        assertEquals(1, ShardLayout.classFor(9, 64));
        assertEquals(2, ShardLayout.classFor(17, 64));
        assertEquals(4, ShardLayout.classFor(33, 64));
        assertEquals(5, ShardLayout.classFor(64, 64));
        assertEquals(6, ShardLayout.classFor(65, 256));
        assertEquals(9, ShardLayout.classFor(193, 256));
        assertThrows(IllegalArgumentException.class, () -> ShardLayout.classes(4097));
        assertThrows(IllegalArgumentException.class, () -> ShardLayout.classes(0));
    }

    @Test
    void linesOf70BytesTakeFourToAPage() {
        // Nine 512-byte pages at maxKeyBytes 256: page 0 holds one entry of the largest class, and each of the
        // other eight four 70-byte lines (the 96-byte class, 128-byte entries). With classes that doubled (a
        // 128-byte class, 160-byte entries) they held three, 25 lines in all.
        Counts counts = new Counts();
        KeyShard shard = shard(9, 1000, 256, counts);
        for (int i = 0; i < 33; i++) {
            long link = insertText(shard, String.format("%02d", i) + text(68, 'l'), 1);
            assertNotEquals(0, link, "line " + i);
            counts.counts.put(link, 1L);
        }
        assertEquals(33, shard.live());
        assertEquals(9, shard.pagesUsed());
        assertTrue(counts.evicted.isEmpty(), "no line evicted another: " + counts.evicted);
        // The next one finds no room left and evicts one of them.
        insertText(shard, "xx" + text(68, 'l'), 2);
        assertEquals(1, counts.evicted.size());
    }

    @Test
    void aShardForSampledKeyLengthsCountsTheirClassesPages() {
        // maxKeyBytes 256: 512-byte pages holding 12, 10, 9, 8, 6, 5, 4, 3, 2 and 1 entries of the ten classes.
        // 100 keys of 70 bytes (the 96-byte class, 128-byte entries): 25 pages, one partly filled, and page 0 (the
        // largest class).
        assertEquals(ShardLayout.shardBytesForPages(25 + 1 + 1, 256),
                ShardLayout.shardBytesForLengths(100, 256, new int[] {70}));
        // A mix like a path listing: 60 of 62 in the 48-byte class (16.1 pages and a partial one), one 20-byte key,
        // whose class expects under half a page of keys (1.6 of 9) and takes spare larger entries, and one 100-byte
        // key, whose class expects more than half a page (1.6 of 3) and gets a partial page: 16.9 pages, 2 partial
        // ones and page 0.
        int[] mix = new int[62];
        java.util.Arrays.fill(mix, 40);
        mix[0] = 20;
        mix[1] = 100;
        assertEquals(ShardLayout.shardBytesForPages(17 + 2 + 1, 256), ShardLayout.shardBytesForLengths(100, 256, mix));
        // Keys longer than maxKeyBytes are stored truncated in the largest class, which page 0 already is.
        assertEquals(ShardLayout.shardBytesForPages(100 + 1, 256),
                ShardLayout.shardBytesForLengths(100, 256, new int[] {300}));
        assertThrows(IllegalArgumentException.class, () -> ShardLayout.shardBytesForLengths(100, 256, new int[0]));
        assertThrows(IllegalArgumentException.class, () -> ShardLayout.shardBytesForLengths(100, 256, new int[] {0}));
    }

    @Test
    void anEntrySizeFollowsItsKeyAndReadsBackWhole() {
        Counts counts = new Counts();
        KeyShard shard = shard(8, 1000, 256, counts);
        long longKey = insertLong(shard, 0x0102030405060708L, 1);
        long word = insertText(shard, "hotkeeper", 1);
        long line = insertText(shard, text(200, 'x'), 1);
        long tooLong = insertText(shard, text(300, 'y'), 1);
        assertEquals(0, classOf(shard, longKey));
        assertEquals(1, classOf(shard, word));
        assertEquals(9, classOf(shard, line));
        assertEquals(9, classOf(shard, tooLong));
        KeyShard.Key read = shard.readKey(ShardLayout.linkEntry(word), ShardLayout.linkGeneration(word));
        assertArrayEquals("hotkeeper".getBytes(StandardCharsets.UTF_8), read.bytes());
        assertFalse(read.truncated());
        read = shard.readKey(ShardLayout.linkEntry(tooLong), ShardLayout.linkGeneration(tooLong));
        assertEquals(256, read.bytes().length);
        assertTrue(read.truncated(), "a key longer than maxKeyBytes is reported truncated");
        read = shard.readKey(ShardLayout.linkEntry(longKey), ShardLayout.linkGeneration(longKey));
        assertArrayEquals(new byte[] {8, 7, 6, 5, 4, 3, 2, 1}, read.bytes());
        // Page 0 belongs to the largest class from the start (one 288-byte entry, which the line took); the long
        // key, the word and the key too long opened a page each.
        assertEquals(9, shard.pageClass(0));
        assertEquals(0, shard.pageClass(1));
        assertEquals(1, shard.pageClass(2));
        assertEquals(9, shard.pageClass(3));
        assertEquals(4, shard.pagesUsed());
        // Consecutive long keys sit 40 bytes apart (a 32-byte header and 8 key bytes): 12 to a 512-byte page.
        long second = insertLong(shard, 2, 1);
        assertEquals(ShardLayout.linkEntry(longKey) + 40 / 8, ShardLayout.linkEntry(second));
    }

    @Test
    void theKeyLengthAndKindInTheStateWordSurviveEveryFlagChange() {
        // The state word carries the key's length and kind beside the flags and references: a visit (VISITED), a
        // foreign deletion's mark (DEAD and a reference) and the owner's unlink must all keep them.
        Counts counts = new Counts();
        KeyShard shard = shard(4, 1000, 256, counts);
        String text = text(131, 'w');
        long link = insertText(shard, text, 1);
        int entry = ShardLayout.linkEntry(link);
        int generation = ShardLayout.linkGeneration(link);
        assertEquals(131, shard.keyLength(entry));
        assertEquals(ShardLayout.KIND_TEXT, ShardLayout.keyKind(shard.state(entry)));
        shard.visit(entry, generation);
        assertTrue((shard.state(entry) & ShardLayout.VISITED) != 0);
        assertTrue(shard.markDead(entry, generation));
        io.hotkeeper.engine.HeavyHitter held = shard.readHeldKey(entry, 9);
        assertArrayEquals(text.getBytes(StandardCharsets.UTF_8), held.key());
        assertEquals(io.hotkeeper.engine.HeavyHitter.Kind.TEXT, held.kind());
        assertEquals(131, ShardLayout.keyLength(shard.state(entry)));
        // The owner takes the hand-off: the entry is freed, and with it the length and kind.
        shard.push(entry);
        assertTrue(shard.tryEnter());
        try {
            shard.drain();
        } finally {
            shard.exit();
        }
        assertEquals(0, shard.keyLength(entry));
        assertEquals(generation + 1, ShardLayout.generation(shard.state(entry)));
        // Both fields are checked when they are packed.
        assertEquals(4096, ShardLayout.keyLength(ShardLayout.keyBits(4096, ShardLayout.KIND_LONG)));
        assertEquals(ShardLayout.KIND_LONG, ShardLayout.keyKind(ShardLayout.keyBits(4096, ShardLayout.KIND_LONG)));
        assertThrows(IllegalArgumentException.class, () -> ShardLayout.keyBits(1 << 14, ShardLayout.KIND_BYTES));
        assertThrows(IllegalArgumentException.class, () -> ShardLayout.keyBits(8, 4));
    }

    @Test
    void aFreedEntryIsReusedByItsClassInALaterGeneration() {
        Counts counts = new Counts();
        KeyShard shard = shard(4, 1000, 64, counts);
        long a = insertText(shard, "twelve bytes", 1);
        delete(shard, a);
        assertNull(shard.readKey(ShardLayout.linkEntry(a), ShardLayout.linkGeneration(a)));
        long b = insertText(shard, "another one!", 1);
        assertEquals(ShardLayout.linkEntry(a), ShardLayout.linkEntry(b), "the class's free list first");
        assertEquals(ShardLayout.linkGeneration(a) + 1, ShardLayout.linkGeneration(b));
        // A key of another class does not take it: it opens its class's page.
        delete(shard, b);
        long c = insertLong(shard, 7, 1);
        assertNotEquals(ShardLayout.linkEntry(b), ShardLayout.linkEntry(c));
        assertEquals(0, classOf(shard, c));
    }

    @Test
    void aSmallKeyTakesALargerFreeEntryWhenItsClassHasNoRoom() {
        Counts counts = new Counts();
        // Two pages: page 0 (class 5, 64-byte keys, 5 entries) and page 1, which long keys take (12 entries).
        KeyShard shard = shard(2, 1000, 64, counts);
        List<Long> longs = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            longs.add(insertLong(shard, i, 1));
            assertEquals(0, classOf(shard, longs.getLast()));
        }
        long overflow = insertLong(shard, 100, 1);
        assertEquals(5, classOf(shard, overflow), "no page left: a free entry of the largest class");
        assertEquals(2, shard.pagesUsed());
        KeyShard.Key read = shard.readKey(ShardLayout.linkEntry(overflow), ShardLayout.linkGeneration(overflow));
        assertArrayEquals(new byte[] {100, 0, 0, 0, 0, 0, 0, 0}, read.bytes());
    }

    /**
     * Fills a two-page shard for 64-byte keys: page 1 with twelve long keys counting {@code smallCount}, page 0 (five
     * entries of the largest class) with 40-byte keys counting {@code largeCount} (their own class, 48-byte keys, finds
     * no page left and takes the larger entries); their links go to the lists.
     */
    private static void fillTwoClasses(KeyShard shard, Counts counts, List<Long> small, long smallCount,
                                       List<Long> large, long largeCount) {
        for (int i = 0; i < 12; i++) {
            small.add(insertLong(shard, i, smallCount));
            counts.counts.put(small.getLast(), smallCount);
        }
        for (int i = 0; i < 5; i++) {
            large.add(insertText(shard, i + text(39, 'k'), largeCount));
            counts.counts.put(large.getLast(), largeCount);
        }
    }

    @Test
    void aLongKeyEvictsOnlyAnEntryLargeEnoughForIt() {
        Counts counts = new Counts();
        KeyShard shard = shard(2, 1000, 64, counts);
        List<Long> small = new ArrayList<>();
        List<Long> large = new ArrayList<>();
        fillTwoClasses(shard, counts, small, 1, large, 5);
        // A 50-byte key needs the largest class: the entry count is not the limit, room is, and only an entry of
        // that class is room for it, so the lighter long keys (count 1) are passed and a 40-byte key (5 < 10) goes.
        long candidate = insertText(shard, text(50, 'z'), 10);
        assertTrue(candidate != 0, "a 50-byte key finds room by evicting a 64-byte-class entry");
        assertEquals(5, classOf(shard, candidate));
        assertEquals(1, counts.evicted.size());
        assertTrue(large.contains(counts.evicted.getFirst()), "the victim was of a class large enough");
        // Every light long key was passed over: none of them could hold 50 bytes.
        for (long link : small) {
            assertTrue(shard.readKey(ShardLayout.linkEntry(link), ShardLayout.linkGeneration(link)) != null);
        }
    }

    @Test
    void aClassWithNoRoomKeepsItsFloorToItself() {
        Counts counts = new Counts();
        KeyShard shard = shard(2, 1000, 64, counts);
        // Light long keys (count 2), and heavy 40-byte keys (count 50) in the largest class.
        List<Long> light = new ArrayList<>();
        List<Long> heavy = new ArrayList<>();
        fillTwoClasses(shard, counts, light, 2, heavy, 50);
        // A 50-byte key at 10 finds its class full of heavier keys and no page left: turned away. The table-wide
        // floor rises only to what a long key needs to take a light entry (3), not to 11, which would keep out
        // the long keys that could replace the lights.
        assertEquals(0, insertText(shard, text(50, 'z'), 10));
        assertEquals(List.of(2L), counts.rejected);
        // Any thread may ask before promoting: keys of that class (49 to 64 bytes) counting 10 or less would be
        // turned away; long keys would not.
        assertTrue(shard.belowClassFloor(50, 10));
        assertTrue(shard.belowClassFloor(49, 10));
        assertFalse(shard.belowClassFloor(50, 11));
        assertFalse(shard.belowClassFloor(8, 3));
        // The class keeps its own floor: a key of that class at 10 is turned away without walking the entries.
        long read = counts.countsRead;
        assertEquals(0, insertText(shard, text(50, 'y'), 10));
        assertEquals(read, counts.countsRead, "no walk below the class's own floor");
        assertEquals(List.of(2L), counts.rejected);
        // A heavier one walks again and, still turned away, raises the class's floor (the table's stays at 3).
        assertEquals(0, insertText(shard, text(50, 'x'), 20));
        assertTrue(counts.countsRead > read);
        assertEquals(List.of(2L, 2L), counts.rejected);
        // A long key at 3 takes a light entry: the other class was never held back.
        long longKey = insertLong(shard, 99, 3);
        assertNotEquals(0, longKey);
        assertEquals(0, classOf(shard, longKey));
        // Counts rescaled (reset, decay): the class's floor no longer stands, the walk runs again.
        counts.rescales++;
        read = counts.countsRead;
        assertEquals(0, insertText(shard, text(50, 'w'), 10));
        assertTrue(counts.countsRead > read, "a rescale drops the class's floor");
        assertTrue(shard.belowClassFloor(50, 10), "the walk after the rescale set it again");
        counts.rescales++;
        assertFalse(shard.belowClassFloor(50, 10));
        // An entry of the class freed: room again, the next key of the class at 10 takes it.
        assertEquals(0, insertText(shard, text(50, 'u'), 10));
        assertTrue(shard.belowClassFloor(50, 10));
        delete(shard, heavy.getFirst());
        assertFalse(shard.belowClassFloor(50, 10), "a freed entry of the class clears its floor");
        long taken = insertText(shard, text(50, 'v'), 10);
        assertNotEquals(0, taken);
        assertEquals(5, classOf(shard, taken));
    }

    @Test
    void theEntryCountCapEvictsAnyClass() {
        Counts counts = new Counts();
        KeyShard shard = shard(4, 3, 64, counts);
        List<Long> links = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            links.add(insertText(shard, text(60, (char) ('a' + i)), 1));
            counts.counts.put(links.getLast(), 1L);
        }
        assertEquals(3, shard.inUse());
        long small = insertLong(shard, 42, 5);
        assertTrue(small != 0);
        assertEquals(3, shard.inUse(), "at the cap, a promotion evicts first");
        assertEquals(1, counts.evicted.size());
        // Below the cap again, the long key opens its own class's page rather than taking the large entry.
        assertEquals(0, classOf(shard, small));
        assertEquals(2, shard.pagesUsed());
    }

    @Test
    void mixedLengthChurnNeverReassignsAPageAndNeverMixesKeys() {
        Counts counts = new Counts();
        int maxKeyBytes = 256;
        KeyShard shard = shard(48, 400, maxKeyBytes, counts);
        SplittableRandom random = new SplittableRandom(5);
        Map<Long, String> live = new HashMap<>();
        byte[] classes = new byte[shard.pages()];
        for (int round = 0; round < 20_000; round++) {
            if (!live.isEmpty() && random.nextInt(3) == 0) {
                long victim = live.keySet().stream().skip(random.nextInt(live.size())).findFirst().orElseThrow();
                delete(shard, victim);
                live.remove(victim);
                counts.counts.remove(victim);
                continue;
            }
            int length = 8 + random.nextInt(249);
            String key = round + ":" + text(length, (char) ('a' + round % 26));
            long link = insertText(shard, key, 1 + random.nextInt(100));
            if (link == 0) {
                continue;
            }
            for (Long gone : counts.evicted) {
                live.remove(gone);
            }
            counts.evicted.clear();
            live.put(link, key);
            counts.counts.put(link, (long) random.nextInt(100));
            for (int p = 0; p < shard.pagesUsed(); p++) {
                byte c = (byte) (shard.pageClass(p) + 1);
                assertTrue(classes[p] == 0 || classes[p] == c, "page " + p + " was reassigned");
                classes[p] = c;
            }
        }
        assertTrue(live.size() > 50, "the shard held many keys at the end: " + live.size());
        Set<Integer> entries = new HashSet<>();
        for (Map.Entry<Long, String> e : live.entrySet()) {
            long link = e.getKey();
            assertTrue(entries.add(ShardLayout.linkEntry(link)), "two live keys in one entry");
            KeyShard.Key read = shard.readKey(ShardLayout.linkEntry(link), ShardLayout.linkGeneration(link));
            byte[] expected = e.getValue().getBytes(StandardCharsets.UTF_8);
            int stored = Math.min(expected.length, maxKeyBytes);
            assertArrayEquals(java.util.Arrays.copyOf(expected, stored), read.bytes(), e.getValue());
            assertEquals(expected.length > maxKeyBytes, read.truncated());
            assertTrue(ShardLayout.classKeyBytes(classOf(shard, link), maxKeyBytes) >= stored);
        }
        assertEquals(live.size(), shard.live());
    }
}
