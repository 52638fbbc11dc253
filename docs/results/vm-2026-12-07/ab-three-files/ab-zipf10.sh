#!/bin/bash
# zipf1.0 only: six alternating pairs, 5 one-second iterations each.
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
OUT=${1:-/tmp/ab-three-files}
for r in 1 2 3 4 5 6; do for v in old new; do
  taskset -c 0 $J -jar /tmp/$v.jar 'ObserveBenchmark.observe$' -p stream=zipf1.0 \
     -p memory=65536 -p salt=shared -f 1 -wi 3 -w 1 -i 5 -r 1 -t 1 -rf csv -rff $OUT/z10-$v-r$r.csv > $OUT/z10-$v-r$r.txt 2>&1
done; done
