#!/usr/bin/env bash
# The A/B of docs/performance.md "The slot-link class and the builder renames (2026-12-06)": base = c4775de's
# bench jar, new = 3b2752a's (./mvnw -o -q -B package -DskipTests -pl bench -am in a worktree of each), one thread
# pinned to CPU 0, jars alternating. Rounds 1-2: base first; round 3: new first; then two longer pairs (2 forks).
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
O="-f 1 -wi 3 -w 1s -i 4 -r 1s -t 1"
for r in 1 2; do
  for v in base new; do
    taskset -c 0 $J -jar $v.jar 'ObserveBenchmark\.observe$' $O -p memory=65536 -p stream=zipf1.0,zipf1.2,uniform \
      -p salt=shared -rf csv -rff observe-$v-r$r.csv
    taskset -c 0 $J -jar $v.jar 'PeerBenchmark\.(hotkeeperShared|dataSketches)$' $O -p memory=65536 \
      -p stream=zipf1.0,uniform -rf csv -rff peer-$v-r$r.csv
  done
done
for v in new base; do
  taskset -c 0 $J -jar $v.jar 'ObserveBenchmark\.observe$' $O -p memory=65536 -p stream=zipf1.0,zipf1.2,uniform \
    -p salt=shared -rf csv -rff observe-$v-r3.csv
done
i=1
for v in base new base new; do
  taskset -c 0 $J -jar $v.jar 'ObserveBenchmark\.observe$' -f 2 -wi 4 -w 1s -i 5 -r 1s -t 1 -p memory=65536 \
    -p stream=zipf1.0,uniform -p salt=shared -rf csv -rff long-$i-$v.csv
  i=$((i + 1))
done
