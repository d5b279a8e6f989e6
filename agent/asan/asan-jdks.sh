#!/usr/bin/env bash
# Makes JDK homes whose bin/java runs the real java with the AddressSanitizer runtime preloaded,
# so that integration tests can load an ASan+UBSan build of libcandor.so into an uninstrumented
# HotSpot. Prints the homes colon-separated, for CANDOR_JDKS.
# Usage: agent/asan/asan-jdks.sh OUTDIR [JDK_HOME...]   (default: the JDK 17 and JDK 25 homes)
#
# What works with HotSpot (measured on JDK 17.0.15 and Temurin 25, gcc 12's libasan.so.8):
#   LD_PRELOAD=$(gcc -print-file-name=libasan.so)   the runtime must come first: an ASan library
#                                                   dlopen'ed later aborts ("runtime does not come first")
#   handle_segv=0 handle_sigbus=0 handle_sigfpe=0 handle_sigill=0 allow_user_segv_handler=1
#                     the JVM owns these signals (implicit null checks, safepoint polls, integer
#                     division by zero); ASan must neither handle them nor stop the JVM from doing so
#   detect_leaks=0    LeakSanitizer cannot run in a JVM: at exit it stops with "LeakSanitizer has
#                     encountered a fatal error" and exit code 1 (and the JVM never frees much of
#                     what it allocates anyway); leaks are checked in the unit tests instead
#   halt_on_error=1 abort_on_error=0 exitcode=86   an ASan report ends the JVM with exit code 86,
#                     so a test sees it in the exit code and in stderr
#   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1   undefined behaviour in the agent is fatal too
set -euo pipefail
out=$1
shift
homes=("$@")
[ ${#homes[@]} -eq 0 ] && homes=(/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64)
asan=$(gcc -print-file-name=libasan.so)
[ -f "$asan" ] || { echo "asan-jdks: no libasan.so ($asan)" >&2; exit 1; }
asan=$(readlink -f "$asan")
list=""
for home in "${homes[@]}"; do
  [ -x "$home/bin/java" ] || continue
  w="$out/$(basename "$home")"
  rm -rf "$w"
  mkdir -p "$w/bin"
  for f in "$home"/*; do [ "$(basename "$f")" = bin ] || ln -s "$f" "$w/"; done
  for f in "$home"/bin/*; do ln -s "$f" "$w/bin/"; done
  rm "$w/bin/java"
  cat >"$w/bin/java" <<WRAP
#!/bin/sh
# java with AddressSanitizer preloaded (made by agent/asan/asan-jdks.sh)
export LD_PRELOAD="$asan\${LD_PRELOAD:+:\$LD_PRELOAD}"
export ASAN_OPTIONS="\${ASAN_OPTIONS:-handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:allow_user_segv_handler=1:detect_leaks=0:halt_on_error=1:abort_on_error=0:exitcode=86}"
export UBSAN_OPTIONS="\${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
exec "$home/bin/java" "\$@"
WRAP
  chmod 755 "$w/bin/java"
  list="${list:+$list:}$w"
done
echo "$list"
