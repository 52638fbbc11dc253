package io.hotkeeper.engine;

import org.junit.jupiter.api.Test;

import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The thread-bound writer: the same observations as the sketch's, its thread only, closed with the sketch. */
class HotkeeperWriterTest {

    @Test
    void aWriterRecordsWhatTheSketchsOwnMethodsRecord() {
        try (Hotkeeper direct = Hotkeeper.builder().seed(5).recordStats().combining(CombiningMode.ON).build();
             Hotkeeper viaWriter = Hotkeeper.builder().seed(5).recordStats().combining(CombiningMode.ON).build()) {
            HotkeeperWriter w = viaWriter.writer();
            long[] batch = new long[64];
            for (int i = 0; i < 200_000; i++) {
                long key = (i * 2654435761L) % 5_000 % (1 + i % 97);
                assertEquals(direct.observe(key), w.observe(key));
                if (i % 1000 == 0) {
                    assertEquals(direct.observe("t" + key), w.observe("t" + key));
                    assertEquals(direct.observe(new byte[] {(byte) key, 1, 2}), w.observe(new byte[] {(byte) key, 1, 2}));
                    assertEquals(direct.observe(key, 3), w.observe(key, 3));
                    batch[i / 1000 % 64] = key;
                    direct.observeAll(batch, 0, 64);
                    w.observeAll(batch, 0, 64);
                }
            }
            assertEquals(direct.topK(20), viaWriter.topK(20));
            assertEquals(direct.stats(), viaWriter.stats());
        }
    }

    @Test
    void anotherThreadCannotUseIt() throws Exception {
        try (Hotkeeper hk = Hotkeeper.builder().seed(5).build()) {
            HotkeeperWriter w = hk.writer();
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread other = Thread.ofPlatform().start(() -> {
                try {
                    w.observe(1L);
                } catch (Throwable t) {
                    thrown.set(t);
                }
            });
            other.join();
            assertTrue(thrown.get() instanceof IllegalStateException, String.valueOf(thrown.get()));
            assertTrue(thrown.get().getMessage().startsWith("a HotkeeperWriter belongs to the thread that made it"));
            assertEquals(0, hk.estimate(1L), "nothing was recorded");
        }
    }

    @Test
    void virtualThreadsEachWithTheirOwnWriterCountExactly() throws Exception {
        try (Hotkeeper hk = Hotkeeper.builder().seed(5).recordStats().combining(CombiningMode.ON).build()) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            try (var executor = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int t = 0; t < 1_000; t++) {
                    executor.submit(() -> {
                        try {
                            HotkeeperWriter w = hk.writer();
                            for (int i = 0; i < 200; i++) {
                                w.observe(42L);
                                if (i % 50 == 0) {
                                    Thread.yield(); // may come back on another carrier
                                }
                            }
                        } catch (Throwable e) {
                            failure.set(e);
                        }
                    });
                }
            }
            assertNull(failure.get());
            assertEquals(200_000, hk.estimate(42L));
        }
    }

    @Test
    void aClosedSketchsWriterThrowsTheClosedException() {
        Hotkeeper hk = Hotkeeper.builder().build();
        HotkeeperWriter w = hk.writer();
        hk.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> w.observe(1L));
        assertEquals(Hotkeeper.CLOSED_MESSAGE, e.getMessage());
        e = assertThrows(IllegalStateException.class, hk::writer);
        assertEquals(Hotkeeper.CLOSED_MESSAGE, e.getMessage());
    }
}
