#!/usr/bin/env bash
# A/B of the shard assignment: OLD and NEW are checkouts whose engine-ffm and numa-bindings are compiled
# (./mvnw -o -q -B -pl numa-bindings,engine-ffm compile). Usage: ab.sh OLD NEW MEMORY "SEEDS" STREAM...
# WRITERS (default 2) writers, MODES (default "collide apart") the id patterns. Prints one line per run: version, stream, seed, mode (collide: the writers' ids equal modulo 2), precision@100.
set -euo pipefail
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
R=$(cd "$(dirname "$0")" && pwd)
old=$1 new=$2 memory=$3 seeds=$4
shift 4
for stream in "$@"; do
  for seed in $seeds; do
    for mode in ${MODES:-collide apart}; do
      for v in old new; do   # alternating, so that both see the same machine noise
        dir=$old; [ $v = new ] && dir=$new
        out=$($J -Dseed=$seed --enable-native-access=ALL-UNNAMED \
          -cp $dir/engine-ffm/target/classes:$dir/numa-bindings/target/classes \
          $R/Collide.java "$stream" "$memory" $mode "${WRITERS:-2}" 2>/dev/null | grep precision)
        echo "$v $(basename "$stream" .txt) seed $seed $mode $out"
      done
    done
  done
done
