package io.hotkeeper.engine;

import io.hotkeeper.engine.Placement;

/**
 * What an application does with a default sketch, run by {@link PlainLaunchTest} in a child JVM started with no
 * flags at all: build, observe long, text and byte keys, read the top keys, close. Prints the top keys to
 * stdout; stderr must stay empty. With the argument {@code interleave} it asks for NUMA placement instead, the
 * one case that may load libnuma (the test's control that a restricted call does show on stderr).
 */
final class PlainLaunchMain {

    private PlainLaunchMain() {
    }

    public static void main(String[] args) {
        HotkeeperBuilder builder = Hotkeeper.builder().sizedFor(10).seed(1);
        if (args.length > 0) {
            builder.placement(Placement.parse(args[0]));
        }
        try (Hotkeeper hot = builder.build()) {
            for (int i = 0; i < 10_000; i++) {
                hot.observe(42L);
                hot.observe("GET /api/v1/quote");
                hot.observe(new byte[] {1, 2, 3});
                hot.observe(1_000_000L + i);
            }
            for (HeavyHitter h : hot.topK(3)) {
                System.out.println(h.keyAsString() + " " + h.estimate());
            }
        }
    }
}
