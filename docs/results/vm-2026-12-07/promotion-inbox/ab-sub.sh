#!/usr/bin/env bash
# usage: ab-sub.sh OLD NEW BUDGETS STREAMS THREADS SEEDS [TOP OPTIONS...]   (e.g. --shared-table)
set -euo pipefail
old=$1; new=$2; extra=("${@:7}")
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
export LC_ALL=C
tmp=$(mktemp -d)
for s in $4; do
  f=/tmp/peers/$s.txt
  grep -v '^$' "$f" | sort | uniq -c | sed -E 's/^ *([0-9]+) /\1\t/' | sort -t $'\t' -k1,1nr > "$tmp/exact"
  for m in $3; do for t in $5; do for seed in $6; do for v in old new; do
    jar=$old; [ $v = new ] && jar=$new
    "$java" -jar "$jar" top --format tsv --k 100 --memory $m --threads $t --seed $seed ${extra[@]+"${extra[@]}"} "$f" > "$tmp/top" 2>/dev/null || : > "$tmp/top"
    r=$(awk -F '\t' -v k=100 'NR == FNR { count[$2] = $1; if (FNR == k) kth = $1; next }
      { reported++; est = $3; key = $2
        if ((key in count) && count[key] >= kth) { correct++; err += (est > count[key] ? est - count[key] : count[key] - est) / count[key] } }
      END { printf "%.2f %.4f %d", correct / k, correct ? err / correct : 0, reported }' "$tmp/exact" "$tmp/top")
    echo "$s $m threads=$t seed=$seed $v $r"
  done; done; done; done
done
rm -rf "$tmp"
