#!/usr/bin/env bash
# Prints each CSV's benchmark, stream and score: one line per (file, benchmark, stream).
d=$1
for f in $d/*.csv; do
  python3 - "$f" <<'PY'
import csv,sys,os
f=sys.argv[1]
for r in csv.DictReader(open(f)):
    st=r.get('Param: stream',''); m=r.get('Param: memory','')
    print(os.path.basename(f)[:-4], r['Benchmark'].split('.')[-1], st, m, round(float(r['Score']),2))
PY
done
