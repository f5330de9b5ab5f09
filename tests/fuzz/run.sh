#!/bin/bash
# Runs every libFuzzer harness for SECONDS each (one after the other), after replaying the
# regression inputs of the reliability issue; prints one summary line per fuzzer and exits
# non-zero when any of them crashed, leaked, hung or broke an invariant.
#
#   tests/fuzz/run.sh SECONDS [BUILD_DIR] [FUZZER...]
#
# BUILD_DIR (default build-fuzz in the source tree) is configured with clang and -Dfuzz=true
# when it does not exist yet. The corpus each fuzzer grows is kept in BUILD_DIR/fuzz-work/
# corpus/NAME (the seeds are made afresh from the repository by make_seeds.py); a crashing
# input is saved as BUILD_DIR/fuzz-work/artifacts/NAME-crash-*, the full log as
# BUILD_DIR/fuzz-work/logs/NAME.log. FUZZ_JOBS=2 runs two fuzzers at a time.
set -u
secs=${1:?usage: tests/fuzz/run.sh SECONDS [BUILD_DIR] [FUZZER...]}
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${2:-$src/build-fuzz}
shift $(( $# >= 2 ? 2 : 1 ))
all=(fuzz_safetensors fuzz_model fuzz_tokenizer fuzz_tokenizer_load fuzz_trace fuzz_lesson fuzz_render)
if [ $# -gt 0 ]; then names=("$@"); else names=("${all[@]}"); fi

if [ ! -f "$build/build.ninja" ]; then
  CC=clang meson setup "$build" "$src" -Dfuzz=true -Dtests=false >/dev/null || { echo "fuzz: meson setup failed"; exit 2; }
fi
ninja -C "$build" >/dev/null || { echo "fuzz: the build failed (ninja -C $build)"; exit 2; }

work=$build/fuzz-work
mkdir -p "$work/corpus" "$work/artifacts" "$work/logs"
/usr/bin/python3 "$src/tests/fuzz/make_seeds.py" "$src" "$work" || { echo "fuzz: seeds failed"; exit 2; }

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=suppressions=$src/tests/lsan.supp
export SDL_VIDEODRIVER=dummy

dict_of() {
  case $1 in
    fuzz_safetensors|fuzz_trace|fuzz_render) echo safetensors ;;
    fuzz_model) echo model ;;
    fuzz_tokenizer) echo tokenizer ;;
    fuzz_tokenizer_load) echo tokenizer_load ;;
    fuzz_lesson) echo lesson ;;
  esac
}

# One fuzzer: the regressions once each, then SECONDS of fuzzing; one summary line.
run_one() {
  local name=$1 exe=$build/tests/fuzz/$1 log=$work/logs/$1.log
  if [ ! -x "$exe" ]; then
    echo "$name: not built (fuzz_render needs the gui)"
    return 0
  fi
  local corpus=$work/corpus/$name seeds=$work/seeds/$name regress=$work/regressions/$name
  mkdir -p "$corpus" "$seeds" "$regress"
  local max_len=65536
  [ "$name" = fuzz_tokenizer ] && max_len=16384
  local flags=(-dict="$src/tests/fuzz/dict/$(dict_of "$name").dict" -max_len=$max_len -timeout=25
               -rss_limit_mb=4096 -close_fd_mask=3 -artifact_prefix="$work/artifacts/$name-")
  local regs=("$regress"/*)
  if [ -e "${regs[0]}" ] && ! "$exe" "${flags[@]}" "${regs[@]}" >"$log" 2>&1; then
    echo "$name: FAILED on a regression input (log: $log)"
    return 1
  fi
  "$exe" "${flags[@]}" -max_total_time="$secs" -print_final_stats=1 "$corpus" "$seeds" "$regress" >>"$log" 2>&1
  local rc=$?
  local done_line
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1)
  local runs cov ft
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(echo "$done_line" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$done_line" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
  if [ $rc -ne 0 ]; then
    local art
    art=$(grep -o "Test unit written to [^ ]*" "$log" | tail -1 | sed 's/Test unit written to //')
    echo "$name: FAILED (exit $rc) after ${runs:-?} runs; input: ${art:-none}; log: $log"
    return 1
  fi
  echo "$name: ok, ${runs:-?} runs in ${secs} s, cov ${cov:-?}, ft ${ft:-?}, corpus $(ls "$corpus" | wc -l) files"
}

fail=0
jobs=${FUZZ_JOBS:-1}
if [ "$jobs" -le 1 ]; then
  for n in "${names[@]}"; do run_one "$n" || fail=1; done
else
  for n in "${names[@]}"; do
    run_one "$n" >"$work/logs/$n.summary" &
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
  done
  wait
  for n in "${names[@]}"; do
    cat "$work/logs/$n.summary"
    grep -q FAILED "$work/logs/$n.summary" && fail=1
  done
fi
exit $fail
