#!/usr/bin/env bash
# Profiles the demo app with the candor agent at 1 ms and prints the summary.
# Usage: demo/run-demo.sh BUILD_DIR [SECONDS]   (BUILD_DIR holds libcandor.so and candor-demo.jar)
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [SECONDS]" >&2
  exit 1
fi
build="$(cd "$1" && pwd)"
seconds="${2:-4}"
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
  java="$JAVA_HOME/bin/java"
elif command -v java >/dev/null 2>&1; then
  java="$(command -v java)"
else
  echo "candor: no java found: set JAVA_HOME or put java on PATH" >&2
  exit 2
fi
for f in libcandor.so candor-demo.jar; do
  if [ ! -f "$build/$f" ]; then
    echo "candor: $build/$f not found (run make)" >&2
    exit 3
  fi
done
out="$build/demo"
mkdir -p "$out"
rm -f "$out/demo.html" "$out/demo.txt" "$out/demo.collapsed" "$out/demo-stats.json"
opts="start,event=cpu,interval=1ms,file=$out/demo.html,file=$out/demo.txt,file=$out/demo.collapsed,stats=$out/demo-stats.json"
echo "candor: profiling the demo for ${seconds} s: $java -agentpath:$build/libcandor.so=$opts -jar $build/candor-demo.jar" >&2
"$java" "-agentpath:$build/libcandor.so=$opts" -jar "$build/candor-demo.jar" "$seconds"
for f in demo.html demo.txt; do
  if [ ! -s "$out/$f" ]; then
    echo "candor: the agent did not write $out/$f" >&2
    exit 3
  fi
done
echo
cat "$out/demo.txt"
echo
echo "candor: flame graph written to $out/demo.html"
