#!/bin/bash
# Old (b565ec2, /tmp/old.jar) and new (inbox cells, /tmp/new.jar) benchmark jars alternating over two rounds,
# one thread pinned to CPU 0, 64 KiB, Zipf 1.0: ObserveBenchmark.observe and observeCharSequence (key shards on,
# one writer: no cells, the promotion code changed only around the busy gate).
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
OUT=${1:-.}
for r in 1 2; do for v in old new; do
  taskset -c 0 $J -jar /tmp/$v.jar 'ObserveBenchmark.(observe|observeCharSequence)$' -p stream=zipf1.0 \
     -p memory=65536 -p salt=shared -f 1 -wi 3 -w 1 -i 4 -r 1 -t 1 -rf csv -rff $OUT/obs-$v-r$r.csv > $OUT/obs-$v-r$r.txt 2>&1
done; done
