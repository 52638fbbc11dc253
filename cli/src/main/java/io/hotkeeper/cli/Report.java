package io.hotkeeper.cli;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;

import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Writes a ranked top-k in one of the output formats (docs/cli.md, "Output contract"). Threads: any, one write at
 * a time per writer (callers hold {@code out}'s lock). Progress: blocking (output).
 */
final class Report {
    /** The output formats. */
    enum Format { table, tsv, json }

    /** Highest estimate first; ties by the key's bytes, unsigned, ascending: the same order on every run. */
    static final Comparator<HeavyHitter> ORDER = Comparator.comparingLong(HeavyHitter::estimate).reversed()
            .thenComparing(HeavyHitter::key, Arrays::compareUnsigned);

    static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private final Format format;

    Report(Format format) {
        this.format = format;
    }

    /**
     * One JSON row. {@code key} is the key's text (its UTF-8 decoding, JSON-escaped by Jackson and nothing else);
     * {@code keyBytes}, the exact bytes in base64, is there only when the key is not well-formed UTF-8.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Row(int rank, String key, long estimate, boolean truncated, String keyBytes) {
        static Row of(int rank, HeavyHitter h) {
            byte[] key = h.key();
            String text;
            String raw = null;
            try {
                text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(key)).toString();
            } catch (CharacterCodingException e) {
                text = new String(key, StandardCharsets.UTF_8);
                raw = Base64.getEncoder().encodeToString(key);
            }
            return new Row(rank, text, h.estimate(), h.truncated(), raw);
        }
    }

    /**
     * The top k of the sketch in {@link #ORDER}: while the k-th estimate is tied with the last key the sketch
     * returned, it is asked for twice as many, so that every key tied at the k-th place competes by key.
     */
    static List<HeavyHitter> top(Hotkeeper hk, int k) {
        int n = k;
        List<HeavyHitter> got = hk.topK(n);
        while (got.size() == n && n < Integer.MAX_VALUE / 2
                && got.getLast().estimate() == got.get(Math.min(k, got.size()) - 1).estimate()) {
            n *= 2;
            got = hk.topK(n);
        }
        return rank(got, k);
    }

    /** The first {@code k} of {@code candidates} in {@link #ORDER}. */
    static List<HeavyHitter> rank(List<HeavyHitter> candidates, int k) {
        List<HeavyHitter> sorted = new ArrayList<>(candidates);
        sorted.sort(ORDER);
        return sorted.size() > k ? List.copyOf(sorted.subList(0, k)) : sorted;
    }

    /** Writes {@code top} as the whole result. */
    void write(PrintWriter out, List<HeavyHitter> top) throws JsonProcessingException {
        switch (format) {
            case tsv -> tsv(out, top);
            case json -> {
                List<Row> rows = rows(top);
                out.print(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(rows));
                out.print('\n');
            }
            case table -> table(out, top);
        }
    }

    /**
     * Writes {@code top} as one block of a stream of results: {@code # TIME} and the rows for table and tsv, one
     * line {@code {"time": ..., "partial": ..., "top": [...]}} for json.
     */
    void writeBlock(PrintWriter out, String time, boolean partial, List<HeavyHitter> top)
            throws JsonProcessingException {
        if (format == Format.json) {
            var block = JSON.createObjectNode();
            block.put("time", time);
            block.put("partial", partial);
            block.set("top", JSON.valueToTree(rows(top)));
            out.print(JSON.writeValueAsString(block));
            out.print('\n');
            return;
        }
        out.print("# " + time + (partial ? "" : " (final)") + "\n");
        write(out, top);
    }

    private static List<Row> rows(List<HeavyHitter> top) {
        List<Row> rows = new ArrayList<>(top.size());
        for (int i = 0; i < top.size(); i++) {
            rows.add(Row.of(i + 1, top.get(i)));
        }
        return rows;
    }

    private static void tsv(PrintWriter out, List<HeavyHitter> top) {
        for (int i = 0; i < top.size(); i++) {
            HeavyHitter h = top.get(i);
            out.print(i + 1);
            out.print('\t');
            out.print(KeyEscaper.escape(h.key()));
            out.print('\t');
            out.print(h.estimate());
            out.print('\t');
            out.print(h.truncated() ? '1' : '0');
            out.print('\n');
        }
    }

    private static void table(PrintWriter out, List<HeavyHitter> top) {
        long widest = top.isEmpty() ? 0 : top.getFirst().estimate();
        int estWidth = Math.max("estimate".length(), String.format(Locale.ROOT, "%,d", widest).length());
        int rankWidth = Math.max("rank".length(), Integer.toString(top.size()).length());
        out.print(String.format(Locale.ROOT, "%" + rankWidth + "s  %" + estWidth + "s  %s%n", "rank", "estimate",
                "key"));
        for (int i = 0; i < top.size(); i++) {
            HeavyHitter h = top.get(i);
            out.printf(Locale.ROOT, "%" + rankWidth + "d  %," + estWidth + "d  %s%s%n", i + 1, h.estimate(),
                    KeyEscaper.escape(h.key()), h.truncated() ? "  (truncated)" : "");
        }
        if (top.isEmpty()) {
            out.println("(no heavy hitters)");
        }
    }
}
