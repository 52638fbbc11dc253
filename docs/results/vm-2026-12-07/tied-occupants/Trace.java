import io.hotkeeper.engine.*;
import java.nio.file.*;
import java.util.*;
public class Trace {
    public static void main(String[] a) throws Exception {
        List<String> lines = Files.readAllLines(Path.of(a[0]));
        lines.removeIf(String::isEmpty);
        List<String> mine = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) if ((i / 2000) % 2 == 1) mine.add(lines.get(i));
        Map<String,Integer> exact = new HashMap<>();
        for (String l : mine) exact.merge(l, 1, Integer::sum);
        Hotkeeper h = Hotkeeper.builder().seed(1).memory(12288).expectedThreads(1).decayBase(1.02).keepKeys(false).build();
        for (String l : mine) h.observe(l);
        String worst = null; long wl = 0;
        for (var e : exact.entrySet()) { long d = e.getValue() - h.estimate(e.getKey()); if (d > wl) { wl = d; worst = e.getKey(); } }
        System.out.println("worst " + worst + " lost " + wl + " of " + exact.get(worst));
        h.close();
        Hotkeeper g = Hotkeeper.builder().seed(1).memory(12288).expectedThreads(1).decayBase(1.02).keepKeys(false).build();
        StringBuilder sb = new StringBuilder();
        int since = 0;
        Map<String,Integer> between = new HashMap<>();
        for (String l : mine) {
            g.observe(l);
            if (l.equals(worst)) { sb.append(g.estimate(worst)).append('(').append(since).append(") "); since = 0; }
            else since++;
        }
        System.out.println(sb);
    }
}
