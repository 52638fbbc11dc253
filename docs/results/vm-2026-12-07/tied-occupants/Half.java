import io.hotkeeper.engine.*;
import java.nio.file.*;
import java.util.*;
public class Half {
    public static void main(String[] a) throws Exception {
        List<String> lines = Files.readAllLines(Path.of(a[0]));
        lines.removeIf(String::isEmpty);
        long mem = Long.parseLong(a[1]);
        int chunk = Integer.parseInt(a[2]); int part = Integer.parseInt(a[3]); int parts = Integer.parseInt(a[4]);
        double base = Double.parseDouble(a[5]);
        List<String> mine = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) if ((i / chunk) % parts == part) mine.add(lines.get(i));
        Map<String,Integer> exact = new HashMap<>();
        for (String l : mine) exact.merge(l, 1, Integer::sum);
        Hotkeeper h = Hotkeeper.builder().seed(Long.getLong("seed", 1)).memory(mem).expectedThreads(1).decayBase(base).keepKeys(a.length > 6 ? false : true).build();
        for (String l : mine) h.observe(l);
        int bad = 0; long lost = 0; int heavy = 0;
        TreeMap<Integer,Integer> hist = new TreeMap<>();
        for (var e : exact.entrySet()) if (e.getValue() >= 20) { heavy++; long est = h.estimate(e.getKey()); long d = e.getValue() - est; if (d != 0) { bad++; lost += d; hist.merge((int) d, 1, Integer::sum);} }
        System.out.println("lines " + mine.size() + " distinct " + exact.size() + " heavy " + heavy + " bad " + bad + " lost " + lost + " " + hist + " buckets " + h.info().buckets());
    }
}
