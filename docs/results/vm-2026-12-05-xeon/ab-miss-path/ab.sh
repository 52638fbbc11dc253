#!/usr/bin/env bash
# Old and new jars alternating, three rounds, pinned to CPU 0, one thread.
set -u
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
OLD=$1; NEW=$2; OUT=$3
mkdir -p $OUT
for r in 1 2 3; do for v in old new; do
  jar=$OLD; [ $v = new ] && jar=$NEW
  taskset -c 0 $J -jar $jar 'PeerBenchmark.(hotkeeperShared|dataSketches)$' -p stream=zipf1.0,zipf1.2,uniform \
    -p memory=65536 -p hotkeeperSizing=total -f 1 -wi 3 -w 1 -i 4 -r 1 -t 1 -rf csv -rff $OUT/peer-$v-$r.csv > $OUT/peer-$v-$r.log 2>&1
  taskset -c 0 $J -jar $jar 'ObserveBenchmark.observe$' -p stream=zipf1.0,zipf1.2,uniform -p memory=65536 -p salt=shared \
    -f 1 -wi 3 -w 1 -i 4 -r 1 -t 1 -rf csv -rff $OUT/observe-$v-$r.csv > $OUT/observe-$v-$r.log 2>&1
done; done
echo AB-DONE
