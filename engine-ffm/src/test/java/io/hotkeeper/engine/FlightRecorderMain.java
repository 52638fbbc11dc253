package io.hotkeeper.engine;

import io.hotkeeper.engine.jfr.HotKeyEvent;
import jdk.jfr.consumer.RecordingStream;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A service with two named sketches and an unnamed one, run by {@link FlightRecorderEventsTest} in a child JVM
 * started with {@code -XX:StartFlightRecording} (the event enabled by the recording's settings, as an operator
 * would): observes a fixed stream into each, prints every named sketch's {@code topK()} as
 * {@code sketch<TAB>key<TAB>estimate} lines, then stays open until JFR has run each named sketch's hook
 * {@code args[0]} times since (watched through a {@link RecordingStream} of its own, at most 30 s, so that a loaded
 * machine cannot make the recording miss the periods after the stream; 0: no stream, 300 ms), and closes. The recording file is written
 * when the JVM exits.
 */
final class FlightRecorderMain {

    private FlightRecorderMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        int periods = Integer.parseInt(args[0]);
        try (Hotkeeper orders = Hotkeeper.builder().sizedFor(10).seed(1).recordStats().name("orders").build();
             Hotkeeper payments = Hotkeeper.builder().sizedFor(10).seed(2).name("payments").build();
             Hotkeeper unnamed = Hotkeeper.builder().sizedFor(10).seed(3).build()) {
            for (int i = 0; i < 10_000; i++) {
                orders.observe("order-" + (i % 7 == 0 ? 1 : i % 5));
                orders.observe(42L);
                payments.observe("card-" + (i % 3));
                unnamed.observe("unnamed-" + (i % 2));
            }
            for (HeavyHitter h : orders.topK()) {
                System.out.println("orders\t" + h.keyAsString() + "\t" + h.estimate());
            }
            for (HeavyHitter h : payments.topK()) {
                System.out.println("payments\t" + h.keyAsString() + "\t" + h.estimate());
            }
            if (periods == 0) {
                // No stream of its own (it would enable the event for every recording of this JVM).
                Thread.sleep(300);
                return;
            }
            // Periods that begin from now on see the whole stream: wait for enough of them for both sketches.
            CountDownLatch seen = new CountDownLatch(2 * periods);
            try (RecordingStream stream = new RecordingStream()) {
                stream.enable(HotKeyEvent.NAME).withPeriod(Duration.ofMillis(100));
                stream.onEvent(HotKeyEvent.NAME, e -> {
                    if (e.getInt("rank") == 1) {
                        seen.countDown();
                    }
                });
                stream.startAsync();
                seen.await(30, TimeUnit.SECONDS);
            }
        }
    }
}
