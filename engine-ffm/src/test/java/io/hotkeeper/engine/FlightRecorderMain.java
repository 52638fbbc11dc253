package io.hotkeeper.engine;

/**
 * A service with two named sketches and an unnamed one, run by {@link FlightRecorderEventsTest} in a child JVM
 * started with {@code -XX:StartFlightRecording} (the event enabled by the recording's settings, as an operator
 * would): observes a fixed stream into each, prints every named sketch's {@code topK()} as
 * {@code sketch<TAB>key<TAB>estimate} lines, then stays open for {@code args[0]} milliseconds so that the recording
 * sees several periods, and closes. The recording is written when the JVM exits.
 */
final class FlightRecorderMain {

    private FlightRecorderMain() {
    }

    public static void main(String[] args) throws InterruptedException {
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
            Thread.sleep(Long.parseLong(args[0]));
        }
    }
}
