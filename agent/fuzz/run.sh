#!/usr/bin/env bash
# Runs every libFuzzer target in BUILD_DIR for SECONDS each, seeded with agent/fuzz/corpus/NAME.
# New inputs go to BUILD_DIR/corpus-NAME (the repo's corpus is not touched) unless MERGE=1, when
# the inputs that add coverage are merged back into agent/fuzz/corpus/NAME.
# A crash, a leak, a timeout (> 5 s for one input) or a broken invariant fails the run; the
# reproducer is left in BUILD_DIR as crash-*/timeout-*/leak-*.
# Usage: agent/fuzz/run.sh BUILD_DIR SECONDS
set -uo pipefail
build=$1
seconds=$2
here=$(cd "$(dirname "$0")" && pwd)
passed=0
failed=0
for name in options names elf; do
  bin=$build/fuzz_$name
  work=$build/corpus-$name
  mkdir -p "$work"
  log=$build/fuzz_$name.log
  maxlen=4096; [ "$name" = elf ] && maxlen=16384  # an ELF image needs room for its headers and tables
  "$bin" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -max_len=$maxlen -print_final_stats=1 \
    -artifact_prefix="$build/" "$work" "$here/corpus/$name" >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  size=$(ls "$work" | wc -l)
  if [ $rc -eq 0 ]; then
    echo "fuzz $name: ${runs:-?} inputs in ${seconds}s (${rate:-?}/s), corpus $size + $(ls "$here/corpus/$name" | wc -l) seeds, no crash"
    passed=$((passed + 1))
  else
    echo "fuzz $name: FAILED (exit $rc) after ${runs:-?} inputs; log $log:"
    grep -E "invariant failed|ERROR|SUMMARY|Test unit written" "$log" | head -10
    failed=$((failed + 1))
  fi
  if [ "${MERGE:-0}" = 1 ]; then
    "$bin" -merge=1 "$here/corpus/$name" "$work" >/dev/null 2>&1 && echo "fuzz $name: merged into agent/fuzz/corpus/$name ($(ls "$here/corpus/$name" | wc -l) files)"
  fi
done
echo "fuzz: $passed passed, $failed failed"
[ $failed -eq 0 ]
