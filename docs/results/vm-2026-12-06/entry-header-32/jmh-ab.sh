#!/usr/bin/env bash
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
out=/tmp/jmh-ab; mkdir -p $out
for round in 1 2; do
  for v in oldjar newjar; do
    [ $round = 2 ] && v=$([ $v = oldjar ] && echo newjar || echo oldjar)
    taskset -c 0 $J --enable-native-access=ALL-UNNAMED -jar /tmp/$v/benchmarks.jar 'ObserveBenchmark\.(observe|observeCharSequence)$' \
      -t 1 -f 1 -wi 3 -w 1s -i 4 -r 1s -p memory=65536 -p stream=zipf1.0,uniform -p salt=shared \
      -rf csv -rff $out/r$round-$v.csv > $out/r$round-$v.log 2>&1
  done
done
echo DONE > $out/done
