#!/bin/bash
# Old (ba01d2b) and new jars alternating, PeerBenchmark.hotkeeperShared at 1 and 2 threads, 64 KiB, total sizing.
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
OUT=${1:-/tmp/ab1}
for r in 1 2; do for v in old new; do for t in 1 2; do
  $J -jar /tmp/$v.jar 'PeerBenchmark.hotkeeperShared$' -p stream=zipf1.0,zipf1.2,uniform -p memory=65536 \
     -f 1 -wi 3 -w 1 -i 3 -r 1 -t $t -rf csv -rff $OUT/$v-t$t-r$r.csv > $OUT/$v-t$t-r$r.log 2>&1
done; done; done
