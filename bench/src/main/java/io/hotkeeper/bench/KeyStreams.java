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
        long[] words = lines(wordList);
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        for (int i = words.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            long w = words[i];
            words[i] = words[j];
            words[j] = w;
        }
        ZipfKeys zipf = new ZipfKeys(words.length, s);
        long[] keys = new long[count];
        for (int i = 0; i < count; i++) {
            keys[i] = words[zipf.rankOf(random.nextDouble()) - 1];
        }
        return keys;
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
