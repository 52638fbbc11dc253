package io.hotkeeper.bench;

import io.hotkeeper.engine.workload.ZipfKeys;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/** The key streams {@link Evaluate} reads: generated Zipf streams and text files, both as {@code long} keys. */
final class KeyStreams {
    private KeyStreams() {
    }

    /** {@code count} keys over {@code distinct} items, exponent {@code s} (0 = uniform), as {@link ZipfKeys} draws them. */
    static long[] zipf(int distinct, double s, int count, long seed) {
        return new ZipfKeys(distinct, s).keys(count, seed);
    }

    /**
     * One key per line of {@code file} (bytes between '\n', a trailing '\r' dropped, empty lines skipped), each
     * hashed to a {@code long} by {@link #hashLine}.
     */
    static long[] lines(Path file) throws IOException {
        long[] keys = new long[1 << 20];
        int n = 0;
        byte[] line = new byte[256];
        int len = 0;
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            for (int b = in.read(); ; b = in.read()) {
                if (b == '\n' || b < 0) {
                    if (len > 0 && line[len - 1] == '\r') {
                        len--;
                    }
                    if (len > 0) {
                        if (n == keys.length) {
                            keys = Arrays.copyOf(keys, n * 2);
                        }
                        keys[n++] = hashLine(line, len);
                    }
                    len = 0;
                    if (b < 0) {
                        break;
                    }
                } else {
                    if (len == line.length) {
                        line = Arrays.copyOf(line, len * 2);
                    }
                    line[len++] = (byte) b;
                }
            }
        }
        return Arrays.copyOf(keys, n);
    }

    /**
     * {@code count} draws over the lines of {@code wordList} (one word per line, as {@link #lines} reads them,
     * duplicates kept as they are): the lines are shuffled with {@code seed} (so that rank does not follow the
     * file's order, e.g. alphabetical), then the word at Zipf rank r (exponent {@code s}, as {@link ZipfKeys} draws
     * ranks) is drawn, and its key is the line's hash.
     */
    static long[] zipfOverLines(Path wordList, double s, int count, long seed) throws IOException {
        long[] lines = lines(wordList);
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        long[] words = new long[lines.length];
        int[] order = shuffled(lines.length, random);
        for (int i = 0; i < words.length; i++) {
            words[i] = lines[order[i]];
        }
        ZipfKeys zipf = new ZipfKeys(words.length, s);
        long[] keys = new long[count];
        for (int i = 0; i < count; i++) {
            keys[i] = words[zipf.rankOf(random.nextDouble()) - 1];
        }
        return keys;
    }

    /**
     * The Fisher-Yates shuffle of {@code 0..n-1} with {@code random} (from the last index down, each swapped with
     * one at or below it): {@code a[order[i]]} is {@code a} shuffled. One place, so the hashed and the text streams
     * of one word list draw the same words in the same order.
     */
    static int[] shuffled(int n, java.util.SplittableRandom random) {
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int o = order[i];
            order[i] = order[j];
            order[j] = o;
        }
        return order;
    }

    /**
     * The fixed line hash: 64-bit FNV-1a over the bytes, then Murmur3's 64-bit finalizer (so that every bit of the
     * key depends on every byte). Collisions among a few million distinct lines are negligible (~n^2 / 2^65).
     */
    static long hashLine(byte[] bytes, int length) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < length; i++) {
            h = (h ^ (bytes[i] & 0xff)) * 0x100000001b3L;
        }
        return ReferenceHeavyKeeper.mix(h);
    }
}
