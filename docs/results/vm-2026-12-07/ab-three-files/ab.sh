#!/bin/bash
# Old (d7c5046, /tmp/old.jar) and new (the promotion step in KeyShard, the combiner switch in the facade) jars alternating over
# two rounds, one thread pinned to CPU 0, 64 KiB: ObserveBenchmark.observe and observeCharSequence (key shards on,
# auto combining, which one thread never engages: the changed path), PeerBenchmark.hotkeeperShared beside
# DataSketches (total sizing).
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
OUT=${1:-/tmp/ab-three-files}
mkdir -p $OUT
for r in 1 2; do for v in old new; do
  taskset -c 0 $J -jar /tmp/$v.jar 'ObserveBenchmark.(observe|observeCharSequence)$' -p stream=zipf1.0,zipf1.2,uniform \
     -p memory=65536 -p salt=shared -f 1 -wi 3 -w 1 -i 3 -r 1 -t 1 -rf csv -rff $OUT/obs-$v-r$r.csv > $OUT/obs-$v-r$r.txt 2>&1
  taskset -c 0 $J -jar /tmp/$v.jar 'PeerBenchmark.(hotkeeperShared|dataSketches)$' -p stream=zipf1.0,zipf1.2,uniform \
     -p memory=65536 -f 1 -wi 3 -w 1 -i 3 -r 1 -t 1 -rf csv -rff $OUT/peer-$v-r$r.csv > $OUT/peer-$v-r$r.txt 2>&1
done; done
