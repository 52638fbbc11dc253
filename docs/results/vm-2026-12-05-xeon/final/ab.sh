#!/usr/bin/env bash
# (1) ObserveBenchmark.observe, one thread: old (263bc6f) and final jars alternating, two rounds.
# (2) Two worker tables at two threads: the per-worker salt against the per-table salt, same jar, two rounds.
set -u
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
OLD=$1; NEW=$2; OUT=$3; mkdir -p $OUT
for r in 1 2; do
  for v in old new; do
    jar=$OLD; [ $v = new ] && jar=$NEW
    taskset -c 0 $J -jar $jar 'ObserveBenchmark.observe$' -p stream=zipf1.0,zipf1.2,uniform -p memory=65536 \
      -p salt=shared -f 1 -wi 3 -w 1 -i 4 -r 1 -t 1 -rf csv -rff $OUT/observe-$v-$r.csv > $OUT/observe-$v-$r.log 2>&1
  done
  taskset -c 0,1 $J -jar $NEW 'ObserveBenchmark.observe$' -p stream=zipf1.0,uniform -p memory=65536 \
    -p salt=perWorker,perTable -p workerTables=2 -f 1 -wi 3 -w 1 -i 4 -r 1 -t 2 -rf csv -rff $OUT/salt2t-$r.csv > $OUT/salt2t-$r.log 2>&1
done
echo FINAL-DONE
