#!/usr/bin/env bash
# Spark bigint A/B: SketchBuffer's per-key observe (old) against writer.observeAll (new), same engine classes,
# alternating, two rounds; Compare prints hotkeeper_top_k and approx_top_k task CPU in the same run.
set -u
root=/work/main
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
spark_opts=$(sed -n 's:.*<spark.moduleOptions>\(.*\)</spark.moduleOptions>.*:\1:p' "$root/spark/pom.xml")
rest="$root/engine-ffm/target/classes:$root/numa-bindings/target/classes:$(tr ':' '\n' < $root/spark/target/classpath.txt | grep -v '/io/hotkeeper/' | paste -sd: -)"
OUT=$1; mkdir -p $OUT
for r in 1 2; do for v in old new; do for z in 1.0 1.2; do
  $java -Xmx6g --enable-native-access=ALL-UNNAMED $spark_opts \
    -Dlog4j2.configurationFile=classpath:io/hotkeeper/spark/log4j2-quiet.properties \
    -cp "/tmp/spark-classes-$v:$rest" io.hotkeeper.spark.Compare --zipf $z --column key --memory 262144 \
    --rows 10000000 --k 100 --runs 5 > $OUT/spark-$v-$z-$r.txt 2>&1
done; done; done
echo SPARK-AB-DONE
