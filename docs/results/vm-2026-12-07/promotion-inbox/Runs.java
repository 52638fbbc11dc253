// Probe behind docs/shards.md, "Promotions that find the shard busy": the run-ordered stream through one shared
// table from THREADS threads (each a contiguous half, or "seq": one after the other, or "interleave"), precision@100
// and the true top-100 keys missing from topK. Not part of the build:
//   javac -cp engine.jar:numa.jar -d . Runs.java
//   java --enable-native-access=ALL-UNNAMED -cp .:engine.jar:numa.jar Runs FILE 98304 2 OFF SEED [seq|interleave]
import io.hotkeeper.engine.*;
import java.nio.file.*;
import java.util.*;
import java.util.concurrent.*;

public class Runs {
    public static void main(String[] a) throws Exception {
        List<String> lines = Files.readAllLines(Path.of(a[0]));
        long mem = Long.parseLong(a[1]);
        int threads = Integer.parseInt(a[2]);
        CombiningMode mode = CombiningMode.valueOf(a[3]);
        long seed = Long.parseLong(a[4]);
        boolean interleave = a.length > 5 && a[5].equals("interleave");
        boolean seq = a.length > 5 && a[5].equals("seq");
        Map<String, Long> exact = new HashMap<>();
        for (String l : lines) exact.merge(l, 1L, Long::sum);
        List<Long> counts = new ArrayList<>(exact.values());
        counts.sort(Comparator.reverseOrder());
        long kth = counts.get(99);
        try (Hotkeeper h = Hotkeeper.builder().memory(mem).expectedThreads(threads).k(100).maxKeyBytes(256)
                .seed(seed).combining(mode).expectedKeyLengths(new int[]{52}).recordStats().build()) {
            Thread[] ts = new Thread[threads];
            int n = lines.size();
            for (int t = 0; t < threads; t++) {
                final int tt = t;
                ts[t] = new Thread(() -> {
                    if (interleave) {
                        for (int i = tt; i < n; i += threads) h.observe(lines.get(i));
                    } else {
                        int from = (int) ((long) n * tt / threads), to = (int) ((long) n * (tt + 1) / threads);
                        for (int i = from; i < to; i++) h.observe(lines.get(i));
                    }
                });
                ts[t].start();
                if (seq) ts[t].join();
            }
            for (Thread t : ts) t.join();
            List<HeavyHitter> top = h.topK(100);
            int correct = 0;
            for (HeavyHitter hh : top) {
                String key = hh.keyAsString();
                Long c = exact.get(key);
                if (c != null && c >= kth) correct++;
            }
            Set<String> got = new HashSet<>();
            for (HeavyHitter hh : top) got.add(hh.keyAsString());
            List<Map.Entry<String, Long>> es = new ArrayList<>(exact.entrySet());
            es.sort(Map.Entry.<String, Long>comparingByValue().reversed());
            for (int i = 0; i < 100; i++) {
                String key = es.get(i).getKey();
                if (!got.contains(key)) {
                    System.out.printf("  missing rank %d count %d estimate %d contains %b first line %d%n", i, es.get(i).getValue(),
                        h.estimate(key), h.contains(key), lines.indexOf(key));
                }
            }
            System.out.println("  stats " + h.info().promotionFloor() + " " + h.stats());
            System.out.printf("mem=%d t=%d %s seed=%d%s precision %.2f reported %d info=%s%n", mem, threads, mode, seed,
                    interleave ? " interleave" : seq ? " seq" : "", correct / 100.0, top.size(), h.info().nativeBytesByPart());
        }
    }
}
