#!/bin/bash
# Three more rounds of ObserveBenchmark.observe only, new jar first in each round (the first two rounds ran old first).
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
OUT=${1:-/tmp/ab-three-files}
for r in 3 4 5; do for v in new old; do
  taskset -c 0 $J -jar /tmp/$v.jar 'ObserveBenchmark.observe$' -p stream=zipf1.0,zipf1.2,uniform \
     -p memory=65536 -p salt=shared -f 1 -wi 3 -w 1 -i 3 -r 1 -t 1 -rf csv -rff $OUT/obs-$v-r$r.csv > $OUT/obs-$v-r$r.txt 2>&1
done; done
