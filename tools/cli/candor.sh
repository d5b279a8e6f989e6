#!/usr/bin/env bash
# candor launcher: runs candor.jar on a Java found via JAVA_HOME or PATH. The jar and the agent
# are next to this script (build/), or in ../lib (a release unpacked from make dist);
# `--agent PATH` overrides the agent.
set -euo pipefail
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
  java="$JAVA_HOME/bin/java"
elif command -v java >/dev/null 2>&1; then
  java="$(command -v java)"
else
  echo "candor: no java found: set JAVA_HOME or put java on PATH" >&2
  exit 2
fi
lib="$here"
[ -f "$lib/candor.jar" ] || [ ! -f "$here/../lib/candor.jar" ] || lib="$(cd "$here/../lib" && pwd)"
jar="$lib/candor.jar"
[ -f "$jar" ] || jar="$here/target/candor-cli.jar"   # running from the source tree
if [ ! -f "$jar" ]; then
  echo "candor: candor.jar not found next to $0 or in ../lib (run make)" >&2
  exit 3
fi
exec "$java" -Dcandor.agent="$lib/libcandor.so" -jar "$jar" "$@"
