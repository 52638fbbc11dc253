package io.hotkeeper.engine;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** observeAll: the batch form gives exactly what observe(long) gives key by key. */
class ObserveAllTest {

    @Test
    void aBatchIsExactlyTheKeysOneByOne() {
        long[] stream = Streams.zipf(1.0);
        int n = 1 << 20;
        // A small table, so that all three phases and promotions run; ragged batches, lookahead cut at each end.
        try (Hotkeeper one = Hotkeeper.builder().recordStats().memoryBytes(16384).seed(9).build();
             Hotkeeper all = Hotkeeper.builder().recordStats().memoryBytes(16384).seed(9).build()) {
            for (int i = 0; i < n; i++) {
                one.observe(stream[i]);
            }
            Random sizes = new Random(4);
            for (int from = 0; from < n; ) {
                int to = Math.min(n, from + sizes.nextInt(40));
                all.observeAll(stream, from, to);
                from = to;
            }
            HotkeeperStats s = one.stats();
            assertEquals(s, all.stats());
            // One thread: no lost CAS, and a unit challenge draws once, so each observation is counted once.
            assertEquals(n, s.refreshes() + s.claims() + s.evictionAttempts(), "every key observed once");
            List<HeavyHitter> top = one.topK(100);
            assertEquals(top.stream().map(HeavyHitter::keyAsLong).toList(),
                    all.topK(100).stream().map(HeavyHitter::keyAsLong).toList());
            for (Map.Entry<Long, Long> e : Streams.exact(java.util.Arrays.copyOf(stream, 4096)).entrySet()) {
                assertEquals(one.estimate(e.getKey()), all.estimate(e.getKey()), "key " + e.getKey());
            }
        }
    }
}
