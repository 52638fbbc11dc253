#!/usr/bin/env bash
# usage: prec.sh JAR FILE [top options...]  -> one line: precision ARE reported
set -euo pipefail
jar=$1; file=$2; shift 2
export LC_ALL=C
ex=/tmp/exact-$(basename "$file")
if [ ! -s "$ex" ]; then grep -v '^$' "$file" | sort | uniq -c | sed -E 's/^ *([0-9]+) /\1\t/' | sort -t $'\t' -k1,1nr > "$ex"; fi
out=$(mktemp)
/usr/lib/jvm/temurin-25-jdk-amd64/bin/java --enable-native-access=ALL-UNNAMED -jar "$jar" top --format tsv "$@" "$file" > "$out" 2>/dev/null || { echo "refused"; rm -f "$out"; exit 0; }
awk -F '\t' -v k=100 '
  NR == FNR { count[$2] = $1; if (FNR == k) kth = $1; next }
  { reported++; est = $3; key = $2
    if ((key in count) && count[key] >= kth) { correct++; err += (est > count[key] ? est - count[key] : count[key] - est) / count[key] } }
  END { printf "%.2f %.4f %d\n", correct / k, correct ? err / correct : 0, reported }' "$ex" "$out"
rm -f "$out"
