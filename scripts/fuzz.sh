#!/usr/bin/env bash
# Builds the libFuzzer targets (the fuzz preset: clang from Debian, address and undefined-behaviour
# sanitizers) and runs each parser's for SECONDS (default 60) from seeds in the tree. A finding
# (a crash, a sanitizer report, a leak, a timeout) fails the script and leaves the input in
# build-fuzz/findings/<target>/.
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
scripts/install-deps.sh clang libclang-rt-14-dev xz-utils
cmake --preset fuzz > /dev/null
cmake --build --preset fuzz
seed_dir=build-fuzz/seeds
rm -rf "$seed_dir" && mkdir -p "$seed_dir"/{fuzz_safetensors,fuzz_profile,fuzz_truth_manifest,fuzz_sweep_log}
cp tests/data/h200-recorded-grid/rec_16x48x96_e4m3xe4m3_normal_bf16_fast.safetensors "$seed_dir/fuzz_safetensors/"
cp profiles/hopper.json profiles/ada.json "$seed_dir/fuzz_profile/"
cp tests/data/h200-recorded-grid/manifest.json "$seed_dir/fuzz_truth_manifest/"
{ xz -dc validation_logs/2026-12-03/split-k/big-k.safetensors.xz || true; } | head -c 65536 > "$seed_dir/fuzz_sweep_log/big-k-head.safetensors"
status=0
for target in fuzz_safetensors fuzz_profile fuzz_truth_manifest fuzz_sweep_log; do
  findings=build-fuzz/findings/$target
  mkdir -p "$findings" "build-fuzz/corpus/$target"
  echo "fuzz: $target for $seconds s"
  if ! "build-fuzz/tests/fuzz/$target" -max_total_time="$seconds" -seed=1 -timeout=10 -rss_limit_mb=2048 \
      -max_len=1048576 -artifact_prefix="$findings/" -print_final_stats=1 \
      "build-fuzz/corpus/$target" "$seed_dir/$target" > "build-fuzz/$target.log" 2>&1; then
    echo "fuzz: $target: FINDING (build-fuzz/$target.log, $findings)"
    tail -n 30 "build-fuzz/$target.log"
    status=1
  else
    echo "fuzz: $target: $(grep -E 'stat::number_of_executed_units' "build-fuzz/$target.log" | awk '{print $2}') inputs, no finding"
  fi
done
exit $status
