import io.hotkeeper.engine.*;
import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.Workers;
import java.nio.file.*;
import java.util.*;
import java.util.concurrent.*;

/**
 * N writers (default 2) of one shared table (expectedThreads(N)), whose worker ids are all equal modulo N
 * ("collide") or consecutive ("apart"): writer w observes the chunks of 2,000 lines of FILE whose index is w modulo N; prints precision@100 against the exact counts and the
 * writers' ids. Keys of up to 256 bytes, the plan told the lengths of the 100 heaviest keys of the first MiB of
 * lines (as the command line's defaults and its KeySample). Usage: java -Dseed=S -cp ENGINE_JAR Collide.java FILE MEMORY collide|apart [N]
 */
public class Collide {
    public static void main(String[] a) throws Exception {
        List<String> lines = Files.readAllLines(Path.of(a[0]));
        lines.removeIf(String::isEmpty);
        long memory = Long.parseLong(a[1]);
        boolean collide = a[2].equals("collide");
        int n = a.length > 3 ? Integer.parseInt(a[3]) : 2;
        Map<String, Integer> exact = new HashMap<>();
        for (String l : lines) exact.merge(l, 1, Integer::sum);
        List<Integer> counts = new ArrayList<>(exact.values());
        counts.sort(Comparator.reverseOrder());
        int atRank100 = counts.get(99);
        Map<String, Integer> head = new HashMap<>();
        long bytes = 0;
        for (String l : lines) {
            if ((bytes += l.length() + 1) > 1 << 20) break;
            head.merge(l, 1, Integer::sum);
        }
        int[] lengths = head.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .limit(100).mapToInt(e -> e.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8).length)
                .filter(len -> len <= 256).toArray();
        // Threads register ids lowest-free-first; keep starting holders until the second writer's id has the
        // wanted residue relative to the first's.
        CountDownLatch go = new CountDownLatch(1), done = new CountDownLatch(1);
        List<Thread> holders = new ArrayList<>();
        int[] ids = new int[n];
        Hotkeeper hk = Hotkeeper.builder().seed(Long.getLong("seed", 1)).memory(memory).k(100).expectedThreads(n)
                .maxKeyBytes(256).expectedKeyLengths(lengths).build();
        Thread[] writers = new Thread[n];
        for (int w = 0; w < n; w++) {
            while (true) {
                int part = w;
                CompletableFuture<Integer> id = new CompletableFuture<>();
                Thread t = Thread.ofPlatform().start(() -> {
                    id.complete(WorkerHandle.id(Workers.current()));
                    try {
                        go.await();
                        if (ids[part] == WorkerHandle.id(Workers.current())) {
                            for (int i = 0; i < lines.size(); i++) {
                                if ((i / 2000) % n == part) hk.observe(lines.get(i));
                            }
                        } else {
                            done.await();
                        }
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
                int got = id.get();
                boolean wanted = collide ? (got - ids[0]) % n == 0 || w == 0 : residueFree(ids, w, got, n);
                if (wanted) {
                    ids[w] = got;
                    writers[w] = t;
                    break;
                }
                holders.add(t);
            }
        }
        go.countDown();
        for (Thread t : writers) t.join();
        done.countDown();
        for (Thread t : holders) t.join();
        int hits = 0;
        for (HeavyHitter h : hk.topK(100)) {
            if (exact.getOrDefault(h.keyAsString(), 0) >= atRank100) hits++;
        }
        System.out.printf("ids %s shards %d buckets %d precision@100 %.2f%n", Arrays.toString(ids).replace(",", ""),
                hk.info().shardLimit(), hk.info().buckets(),
                hits / 100.0);
        hk.close();
    }

    /** Whether no writer before {@code w} has an id equal to {@code id} modulo {@code n}. */
    static boolean residueFree(int[] ids, int w, int id, int n) {
        for (int i = 0; i < w; i++) {
            if ((id - ids[i]) % n == 0) return false;
        }
        return true;
    }
}
