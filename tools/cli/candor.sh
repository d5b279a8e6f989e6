#!/usr/bin/env bash
# candor launcher: runs candor.jar (next to this script) on a Java found via JAVA_HOME or PATH.
# The agent defaults to libcandor.so next to this script; `--agent PATH` overrides it.
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
jar="$here/candor.jar"
[ -f "$jar" ] || jar="$here/target/candor-cli.jar"   # running from the source tree
if [ ! -f "$jar" ]; then
  echo "candor: candor.jar not found next to $0 (run make)" >&2
  exit 3
fi
exec "$java" -Dcandor.agent="$here/libcandor.so" -jar "$jar" "$@"
