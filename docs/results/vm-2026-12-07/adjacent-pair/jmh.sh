#!/usr/bin/env bash
# The second candidate bucket as the adjacent line of a 128-byte pair (b ^ 1) against the partial-key cuckoo
# alternate, one thread pinned, alternating jars. Usage: jmh.sh OLD.jar NEW.jar > jmh.txt
set -euo pipefail
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
common=(-p stream=zipf1.0,zipf1.2,uniform -p memory=65536,1048576,8388608 -p salt=default -f 1 -wi 3 -w 1 -i 5 -r 1)
for round in ${ROUNDS:-1 2}; do
  for v in old new; do
    jar=$1; [ $v = new ] && jar=$2
    echo "### round $round $v, 1 thread pinned (taskset -c 0)"
    taskset -c 0 $J -jar "$jar" 'ObserveBenchmark.observe$' "${common[@]}" -t 1 2>&1 | grep -E "^Benchmark|^ObserveBenchmark"
  done
done
