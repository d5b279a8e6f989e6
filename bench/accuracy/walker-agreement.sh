#!/bin/bash
# Pairwise overlap of candor's walkers against walk=agct on the accuracy suite's runs.
F='^(java|javax|jdk|sun|com\.sun)\.'
for jdk in 17 25; do
  base=bench/out/accuracy-walkers$([ $jdk = 25 ] && echo -25)/jdk$jdk
  echo "JDK $jdk"
  for c in counted-loop-default counted-loop-no-loop-polls loop-then-call-default loop-then-call-no-loop-polls poll-far-below-default poll-far-below-no-loop-polls multi-thread-default intrinsics-default deep-recursion-default generated-default; do
    row="$c"
    for p in cpu-vm cpu-remote async-cpu; do
      ev=""; [ $p = async-cpu ] && ev="--event jdk.ExecutionSample"
      r=$(build/candor compare $base/$c/cpu/profile.jfr $base/$c/$p/profile.jfr --focus '\.cases\.[A-Za-z]*\.work$' --java-only --threads '-worker$' --fold "$F" --top 0 $ev 2>&1 | grep -o "overlap(A,B) *[0-9.]*" | awk '{print $2}')
      row="$row $r"
    done
    echo "$row"
  done
done
