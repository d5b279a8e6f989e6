#!/usr/bin/env bash
# Packs a release: BUILD/candor-VERSION-linux-x64.tar.gz, which runs wherever it is unpacked with
# only a JDK 17+ present (no build tools): bin/candor, the agent stripped of debug info, the jars,
# the demo, README and the licence notices of what the jars bundle. The debug info goes in
# BUILD/candor-VERSION-linux-x64-debug.tar.gz: lib/libcandor.so.debug, unpacked over the release,
# is where gdb and perf look for it (the agent's .gnu_debuglink names it).
# Usage: scripts/make-dist.sh BUILD VERSION COMMIT   (make dist runs it after make all)
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 BUILD VERSION COMMIT" >&2
  exit 1
fi
build="$(cd "$1" && pwd)" version="$2" commit="$3"
src="$(cd "$(dirname "$0")/.." && pwd)"
name="candor-$version-linux-x64"
out="$build/dist"
stage="$out/$name"
for f in stripped/libcandor.so stripped/libcandor.so.debug candor.jar candor-api.jar candor-jmh.jar candor-demo.jar; do
  [ -f "$build/$f" ] || { echo "candor: $build/$f not found (run make)" >&2; exit 3; }
done
rm -rf "$out"
mkdir -p "$stage/bin" "$stage/lib" "$stage/demo" "$stage/licenses"
install -m 755 "$src/tools/cli/candor.sh" "$stage/bin/candor"
install -m 755 "$build/stripped/libcandor.so" "$stage/lib/libcandor.so"
install -m 644 "$build/candor.jar" "$build/candor-api.jar" "$build/candor-jmh.jar" "$stage/lib/"
install -m 644 "$src/tools/api/target/candor-api.pom" "$stage/lib/candor-api.pom"
install -m 644 "$src/tools/jmh/target/candor-jmh.pom" "$stage/lib/candor-jmh.pom"
install -m 644 "$build/candor-demo.jar" "$stage/demo/candor-demo.jar"
install -m 644 "$src/README.md" "$stage/README.md"
printf 'candor %s (commit %s)\n' "$version" "$commit" > "$stage/VERSION"

# What candor.jar bundles (the shade plugin keeps the notices of Jackson and its FastDoubleParser).
(cd "$stage/licenses" && unzip -q -o "$build/candor.jar" 'META-INF/*LICENSE*' 'META-INF/*NOTICE*' \
  && mv META-INF/* . && rmdir META-INF)
pom_property() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" "$src/pom.xml" | head -1; }
cat > "$stage/licenses/THIRD-PARTY-NOTICES.md" <<NOTICES
# Third-party software in this release

lib/candor.jar bundles:

| component | version | licence | notices |
|---|---|---|---|
| picocli (info.picocli:picocli) | $(pom_property picocli.version) | Apache License 2.0 | LICENSE (the licence text) |
| Jackson core, databind, annotations (com.fasterxml.jackson) | $(pom_property jackson.version) | Apache License 2.0 | LICENSE, NOTICE |
| FastDoubleParser (inside jackson-core) | as bundled by Jackson | MIT and Apache License 2.0 | FastDoubleParser-LICENSE, FastDoubleParser-NOTICE, thirdparty-LICENSE |

lib/libcandor.so links the C++ runtime statically (libstdc++, libgcc: GPL v3 with the GCC Runtime
Library Exception) and uses no other third-party code. lib/candor-api.jar, lib/candor-jmh.jar and
demo/candor-demo.jar bundle nothing but candor (candor-api.jar carries lib/libcandor.so).
NOTICES

tar -C "$out" -czf "$build/$name.tar.gz" "$name"
mkdir -p "$out/debug/$name/lib"
install -m 644 "$build/stripped/libcandor.so.debug" "$out/debug/$name/lib/libcandor.so.debug"
tar -C "$out/debug" -czf "$build/$name-debug.tar.gz" "$name"
echo "candor: wrote $build/$name.tar.gz ($(du -h "$build/$name.tar.gz" | cut -f1)) and $name-debug.tar.gz" >&2
