J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
cd /tmp/jars
for round in 1 2; do
  for v in 108 102; do
    taskset -c 0 $J --enable-native-access=ALL-UNNAMED -jar bench-$v.jar 'ObserveBenchmark.observe$' -p memory=65536 -p salt=shared -p stream=zipf1.0,zipf1.2,uniform -f 1 -wi 3 -w 1 -i 4 -r 1 -rf csv -rff jmh-$v-r$round.csv > jmh-$v-r$round.log 2>&1
  done
done
echo done > jmh-done
