#!/usr/bin/env bash
out=/tmp/prec-ab.tsv; : > $out
for f in jdk-java-base-file-runs jdk-legal-lines jdk-java-base-tokens license-words; do
 for mem in 24KiB 64KiB; do
  for t in 1 2; do
   for seed in 1 2 3; do
    for j in oldjar newjar; do
      r=$(/tmp/prec.sh /tmp/$j/hotkeeper.jar /tmp/peers/$f.txt --memory $mem --threads $t --seed $seed)
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' $f $mem $t $seed $j "$r" >> $out
    done
   done
  done
 done
done
echo DONE >> $out
