#!/usr/bin/env bash
# hotkeeper top --threads 2 at its defaults (per-table salt) against --salt per-worker (the previous default), precision@100.
cd /work/main
for m in 64KiB 48KiB; do
for f in jdk-java-base-file-runs jdk-legal-lines jdk-java-base-tokens license-words; do
  for seed in 1 2 3; do
    for salt in per-worker default; do
      opt=""; [ $salt != default ] && opt="--salt $salt"
      r=$(bench/cli-precision /tmp/peers/$f.txt --memory $m --threads 2 --seed $seed $opt 2>/dev/null | grep precision)
      echo "$m $f seed=$seed salt=$salt $r"
    done
  done
done; done
echo SALT-DONE
