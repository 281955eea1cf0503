#!/bin/sh
# Builds tools/tsan/dispatcher_race.cpp with the c10 sources under
# ThreadSanitizer and runs it; exits non-zero on a reported race or a wrong result.
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${TMPDIR:-/tmp}/torchlike_tsan
mkdir -p "$OUT"
${CXX:-g++} -std=c++17 -O1 -g -fsanitize=thread -pthread -I"$ROOT/csrc" \
  "$ROOT/tools/tsan/dispatcher_race.cpp" "$ROOT"/csrc/c10/*.cpp -o "$OUT/dispatcher_race"
TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS}" "$OUT/dispatcher_race"
