#!/usr/bin/env bash
# Precision@100 and ARE of `hotkeeper top` at its defaults, old jar and new
# alternating per seed, on the text streams of docs/peers.md (bench/evaluate-streams /tmp/peers), --seed 1..3.
# Each cell: precision ARE reported. Usage: run.sh OLD.jar NEW.jar > runs.txt
set -euo pipefail
old=$1; new=$2
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
export LC_ALL=C
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for s in jdk-java-base-file-runs jdk-legal-lines jdk-java-base-tokens license-words; do
  f=/tmp/peers/$s.txt
  grep -v '^$' "$f" | sort | uniq -c | sed -E 's/^ *([0-9]+) /\1\t/' | sort -t $'\t' -k1,1nr > "$tmp/exact"
  for m in ${BUDGETS:-16KiB 24KiB 32KiB 48KiB 64KiB}; do
    for t in 1 2; do
      for seed in 1 2 3; do
        for v in old new; do
          jar=$old; [ $v = new ] && jar=$new
          "$java" -jar "$jar" top --format tsv --k 100 --memory $m --threads $t --seed $seed "$f" > "$tmp/top" 2>/dev/null || : > "$tmp/top"   # refused: nothing reported
          r=$(awk -F '\t' -v k=100 'NR == FNR { count[$2] = $1; if (FNR == k) kth = $1; next }
            { reported++; est = $3; key = $2
              if ((key in count) && count[key] >= kth) { correct++; err += (est > count[key] ? est - count[key] : count[key] - est) / count[key] } }
            END { printf "%.2f %.4f %d", correct / k, correct ? err / correct : 0, reported }' "$tmp/exact" "$tmp/top")
          echo "$s $m threads=$t seed=$seed $v $r"
        done
      done
    done
  done
done
