#!/bin/sh
# `ttrace devices` with the machine's platforms, then with none (an empty OCL_ICD_VENDORS).
# Usage: devices_cli.sh TTRACE
set -u
ttrace=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/out"; exit 1; }

"$ttrace" devices >"$tmp/out" 2>&1 || fail "ttrace devices exited $?"
if grep -q "No OpenCL platform found" "$tmp/out"; then
  echo "no OpenCL platform here; checked only the message"
else
  grep -q "^platform 0: " "$tmp/out" || fail "no platform line"
  grep -q "^  device 0:0  .*" "$tmp/out" || fail "no device line"
  grep -q "compute units, global memory [0-9]* MiB" "$tmp/out" || fail "no memory line"
  grep -q "max work-group size [0-9]*, OpenCL " "$tmp/out" || fail "no version line"
  [ "$(grep -c '\[default\]' "$tmp/out")" = 1 ] || fail "not exactly one default device"
fi

mkdir "$tmp/empty"
OCL_ICD_VENDORS="$tmp/empty" "$ttrace" devices >"$tmp/out" 2>&1 || fail "exit $? without a platform"
grep -q "No OpenCL platform found" "$tmp/out" || fail "no 'No OpenCL platform found' message"
grep -q "pocl-opencl-icd" "$tmp/out" || fail "does not say how to get a platform"

"$ttrace" devices extra >"$tmp/out" 2>&1
[ $? = 2 ] || fail "an extra argument is not a usage error"
echo ok
