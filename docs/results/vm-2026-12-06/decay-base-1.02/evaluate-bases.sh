J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
cd /work/main
for b in 1.08 1.03 1.02 1.01; do
  $J --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar io.hotkeeper.bench.Evaluate --hotkeeper-only --threads 1,2 --memory 16384,24576,65536 --decay-base $b --zipf 0.8 --zipf 1.0 --zipf 1.2 --zipf uniform --file /tmp/peers/jdk-java-base-file-runs.txt --file /tmp/peers/license-words.txt --file /tmp/peers/jdk-java-base-tokens.txt --file /tmp/peers/jdk-legal-lines.txt --file /tmp/peers/jdk-words.txt > /tmp/base/eval-$b.txt 2>&1
done
echo DONE > /tmp/base/done
