package io.hotkeeper.cli;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The state machine behind SIGINT/SIGTERM (the signals themselves: StreamingIT). */
class InterruptsTest {
    private final List<String> exits = new CopyOnWriteArrayList<>();
    private final Interrupts interrupts = new Interrupts((code, now) -> exits.add(code + (now ? " now" : "")));

    @Test
    void theFirstSignalReportsThenExitsWith128PlusItsNumber() {
        List<String> reports = new CopyOnWriteArrayList<>();
        interrupts.onSignal(reports::add);
        interrupts.signalled("SIGTERM", 15);
        assertEquals(List.of("SIGTERM"), reports);
        assertEquals(List.of("143"), exits);
        assertFalse(interrupts.finishing()); // the reading thread must leave the sketch to the report
    }

    @Test
    void aSecondSignalDuringTheReportExitsAtOnce() throws Exception {
        CountDownLatch reporting = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        interrupts.onSignal(name -> {
            reporting.countDown();
            try {
                release.await(); // a report held up (a full pipe, a slow terminal)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Thread first = Thread.ofPlatform().start(() -> interrupts.signalled("SIGINT", 2));
        assertTrue(reporting.await(30, TimeUnit.SECONDS));
        interrupts.signalled("SIGINT", 2);
        assertEquals(List.of("130 now"), exits); // while the first report still runs
        release.countDown();
        first.join();
        assertEquals(List.of("130 now", "130"), exits);
    }

    @Test
    void aSignalWhileTheWholeResultIsWrittenOnlySetsTheExitCode() {
        interrupts.onSignal(name -> {
            throw new AssertionError("no partial report once finishing");
        });
        assertTrue(interrupts.finishing());
        assertEquals(0, interrupts.exitCode(0));
        interrupts.signalled("SIGINT", 2);
        assertEquals(List.of(), exits);
        assertEquals(130, interrupts.exitCode(0));
        interrupts.signalled("SIGINT", 2); // a second one does not wait for the result
        assertEquals(List.of("130 now"), exits);
    }
}
