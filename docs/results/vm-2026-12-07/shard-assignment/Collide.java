import io.hotkeeper.engine.*;
import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.Workers;
import java.nio.file.*;
import java.util.*;
import java.util.concurrent.*;

/**
 * Two writers of one shared table (expectedThreads(2)), whose worker ids are equal modulo 2 ("collide") or not:
 * each observes every other chunk of 2,000 lines of FILE; prints precision@100 against the exact counts and the
 * writers' ids. Keys of up to 256 bytes, the plan told the lengths of the 100 heaviest keys of the first MiB of
 * lines (as the command line's defaults and its KeySample). Usage: java -Dseed=S -cp ENGINE_JAR Collide.java FILE MEMORY collide|apart
 */
public class Collide {
    public static void main(String[] a) throws Exception {
        List<String> lines = Files.readAllLines(Path.of(a[0]));
        lines.removeIf(String::isEmpty);
        long memory = Long.parseLong(a[1]);
        boolean collide = a[2].equals("collide");
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
                .filter(n -> n <= 256).toArray();
        // Threads register ids lowest-free-first; keep starting holders until the second writer's id has the
        // wanted residue relative to the first's.
        CountDownLatch go = new CountDownLatch(1), done = new CountDownLatch(1);
        List<Thread> holders = new ArrayList<>();
        int[] ids = new int[2];
        Hotkeeper hk = Hotkeeper.builder().seed(Long.getLong("seed", 1)).memory(memory).k(100).expectedThreads(2)
                .maxKeyBytes(256).expectedKeyLengths(lengths).build();
        Thread[] writers = new Thread[2];
        for (int w = 0; w < 2; w++) {
            while (true) {
                int part = w;
                CompletableFuture<Integer> id = new CompletableFuture<>();
                Thread t = Thread.ofPlatform().start(() -> {
                    id.complete(WorkerHandle.id(Workers.current()));
                    try {
                        go.await();
                        if (ids[part] == WorkerHandle.id(Workers.current())) {
                            for (int i = 0; i < lines.size(); i++) {
                                if ((i / 2000) % 2 == part) hk.observe(lines.get(i));
                            }
                        } else {
                            done.await();
                        }
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
                int got = id.get();
                boolean wanted = w == 0 || ((got - ids[0]) % 2 == 0) == collide;
                if (wanted) {
                    ids[w] = got;
                    writers[w] = t;
                    break;
                }
                holders.add(t);
            }
        }
        go.countDown();
        writers[0].join();
        writers[1].join();
        done.countDown();
        for (Thread t : holders) t.join();
        int hits = 0;
        for (HeavyHitter h : hk.topK(100)) {
            if (exact.getOrDefault(h.keyAsString(), 0) >= atRank100) hits++;
        }
        System.out.printf("ids %d %d shards %d precision@100 %.2f%n", ids[0], ids[1], hk.info().shardLimit(),
                hits / 100.0);
        hk.close();
    }
}
