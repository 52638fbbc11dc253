import io.hotkeeper.engine.*;
import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.table.*;
import java.nio.file.*;
import java.util.*;
public class Pair {
    public static void main(String[] a) throws Exception {
        List<String> lines = Files.readAllLines(Path.of(a[0]));
        lines.removeIf(String::isEmpty);
        List<String> mine = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) if ((i / 2000) % 2 == 1) mine.add(lines.get(i));
        Map<String,Integer> exact = new HashMap<>();
        for (String l : mine) exact.merge(l, 1, Integer::sum);
        Hotkeeper h = Hotkeeper.builder().seed(1).memory(12288).expectedThreads(1).decayBase(1.02).keepKeys(false).build();
        for (String l : mine) h.observe(l);
        KeyHasher hs = KeyHasher.seeded(1);
        BucketTable t = Internals.tables(h).table(0);
        TableGeometry g = t.geometry();
        String worst = null; long wl = 0;
        for (var e : exact.entrySet()) { long d = e.getValue() - h.estimate(e.getKey()); if (d > wl) { wl = d; worst = e.getKey(); } }
        long hw = hs.hash(worst);
        long b1 = g.bucket(hw), fp = g.fingerprint(hw), b2 = g.alternate(b1, fp);
        System.out.println("worst lost " + wl + " b1 " + b1 + " b2 " + b2 + " estimate " + h.estimate(worst));
        // The worst key's estimate after each of its arrivals (and the lines between), in a fresh instance.
        try (Hotkeeper again = Hotkeeper.builder().seed(1).memory(12288).expectedThreads(1).decayBase(1.02)
                .keepKeys(false).build()) {
            StringBuilder trace = new StringBuilder("trace: ");
            int since = 0;
            for (String l : mine) {
                again.observe(l);
                if (l.equals(worst)) {
                    trace.append(again.estimate(worst)).append('(').append(since).append(") ");
                    since = 0;
                } else {
                    since++;
                }
            }
            System.out.println(trace);
        }
        // keys mapping to b1 or b2
        for (long b : new long[] {b1, b2}) {
            System.out.println("bucket " + b);
            for (int s = 0; s < 8; s++) System.out.println("  slot " + s + " count " + TableLayout.count(t.laSlot(b, s)) + " fp " + TableLayout.fingerprint(t.laSlot(b, s)));
        }
        int n = 0;
        for (var e : exact.entrySet()) { long hh = hs.hash(e.getKey()); long c1 = g.bucket(hh); long c2 = g.alternate(c1, g.fingerprint(hh)); if (c1 == b1 || c1 == b2 || c2 == b1 || c2 == b2) { n++; System.out.println("  key count " + e.getValue() + " est " + h.estimate(e.getKey()) + " buckets " + c1 + "," + c2 + " fp " + g.fingerprint(hh)); } }
    }
}
