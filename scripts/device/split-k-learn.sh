#!/usr/bin/env bash
# Issue 11: what cuBLASLt's split-K choice depends on, asked of the heuristic on the GPU (nothing
# runs there but the heuristic). Each part is one `mmaemu sweep` to a .safetensors log (mmaemu-sweep/2):
#   scripts/device/split-k-learn.sh WORK_DIR PACK_DIR [PARTS]
# PARTS (comma list, default the first run's: m,n,k,bigk,configs,sm,dense,dense114,dense32):
#   m, n, k      every value of one axis at fixed others (how finely the choice depends on it)
#   bigk         k up to 2^24;  configs  3000 random shapes x every configuration torch can make
#   sm           SM-count targets on the documented grid
#   dense, dense114, dense32   the region where splitting happens: m = 8b (1 MiB, 132 / 114 SMs; 32 MiB)
#   unaligned    the same over m = 8b - 4, for the m that are not multiples of 8
#   unaligned114 that at an SM-count target of 114 (rules skipped, below)
#   dense32x114, dense4         32 MiB at an SM-count target of 114; 4 MiB at 132 SMs
#   wide         n beyond 2048 at small m (1 and 4 MiB)
#   tall         m beyond 2048 at the n where 1 MiB can still hold two slices (n <= 64)
#   kclass       K off the multiples of 128: the choice depends on K only through ceil(K / 128) and
#                K's alignment (16, 32, or 64 and more; k-every), so grids at K = 128j + 16 and
#                128j + 32 (m = 8b and 8b - 4, 1 MiB, 132 SMs) answer every K
#   dtypes-e4e4, dtypes-e4e5, dtypes-e5e4   per operand pair, every output dtype at 1 MiB, 132 SMs,
#                promoted, m = 8b and 8b - 4 (the configurations predicted so far from the bf16 grid)
#   fast         fast accumulation, bf16 out, each operand pair, at every K class (K = 128j, 128j + 16,
#                128j + 32), both kinds of m (1 MiB, 132 SMs): the configuration torch's FP8 training
#                uses forward, predicted from the promoted grids (at 1 MiB fast accumulation never moved
#                the count in `configs` nor for the first torch-recorded set's misses, which are K off 128j:
#                validation_logs/2026-12-05/split-k/README.md)
#   mixedk       the mixed operand pairs, promoted, every output (MIXED_OUTS, default all four), at
#                K = 128j + 16 and 128j + 32 (KCLASSES), both kinds of m: the first torch-recorded set's misses
#                are K off 128j in these configurations (validation_logs/2026-12-05/split-k/torch-1/find.json.xz)
#   kclass114    the bf16 configuration at K = 128j + 16 and 128j + 32 (KCLASSES), both kinds of m, at an
#                SM-count target of 114 (1 MiB): the 114-SM grids held K = 128j only (holdout-2027: 431 of
#                10,888 predicted cells wrong there, 46 of 8,870 at 132 SMs where the K classes were swept)
#   kclassws     the same at 4 and 32 MiB of workspace (132 SMs; WS sets the workspace of the kclasses grids)
#   e4e4k        e4m3 x e4m3, promoted, f16, f32 and e4m3 out at K = 128j + 16 and 128j + 32 (KCLASSES), both
#                kinds of m: with mixedk, every pair and output at every K class (1 MiB, 132 SMs; in `configs`
#                neither fast accumulation nor a bias moved the count at 1 MiB)
#   wideunaligned  n beyond 2048 over m = 8b - 4 (1 and 4 MiB)
#   widek        n beyond 2048 at K step 128 and K = 128j + 16, 128j + 32, both kinds of m (1 MiB; WS sets the
#                workspace, WIDEK_SECONDS each log's limit)
#   tiny         m 1..8 at n 8208..131072, the decode shapes of one token (1 MiB)
#   ws32fine     32 MiB at the 1 MiB grid's resolution (m = 8b, n = 16j; dense32 has m = 16b, n = 32j:
#                n = 32j - 16 and 32j chose different counts on 409 of 7168 n-every cells at 32 MiB)
#   ws4unaligned 4 MiB over m = 8b - 4
#   ws32unaligned, ws32fine114   32 MiB over m = 8b - 4; 32 MiB at m = 8b, n = 16j, 114 SMs
#   slices       a truth set at K where ceil-sized split-K slices leave the last one empty (K = 128 G - r,
#                G = 20 s + 1 .. 21 (s - 1) at s = 22..25 slices), and controls, replayed with the logged counts
#   slices2      the same rule off those calls: every residue of K mod 128, K beyond 65536 (scripts/device/shapes/slices2.txt)
#   slices3      which K = 16 mod 128 lose their last 16 elements: K = 2560 s + 16 at 1x16 for s = 19..30, 43,
#                51 (scripts/device/shapes/slices3-small.txt; f16 and f32 out, the set packed back) and
#                (K - 16) / 128 = j s at j = 21..25 (slices3-wide.txt), replayed with the logged counts;
#                with RULES_BIN (a binary built with validation_logs/2026-12-04/split-k/slice-rules.patch) replayed under each rule
#   slices4      the same at 1x16 for s = 12..19 (j = 20, 21) and wider shapes at j = 22..36, s = 8..24 (f16 only)
#   slices5      the tail rule in other configurations: fast accumulation, the other operand pairs, f32 and
#                e4m3 outputs, a bias, 114 SMs, 1 and 4 MiB (1x16 at s = 16, 17, 19, 22 and a control)
#   conform      conform --backend cuda: every CUDA module against the oracle, NaN/Inf rows included
#   The parts above ask only what no rule answers (sweep --skip-ruled), which is what lets them fit.
#   holdout      50,000 random shapes in 192 configurations (96 with HOLDOUT_SM_COUNTS=0), never used to build the model
#   live         selftest --live: runs of random calls through cuBLASLt, the model's count, bits compared
#                (LIVE_CALLS per run, LIVE_SECONDS in all)
#   record       small truth sets of random splitting shapes at 132 and 114 SMs, replayed
#   torch        random torch._scaled_mm calls recorded the way the project's hardware truth is (torch's
#                cuBLASLt at its default workspace, kernel names from the profiler, no split count;
#                scripts/device/torch-record.py), TORCH_CALLS calls from TORCH_SEED within TORCH_SECONDS,
#                replayed with the counts the profile gives weighed against the kernel names, and with
#                the profile's alone; the manifest, both logs and the recordings under 256 KiB come back;
#                TORCH_FIND=1: for each call not bit-exact, the counts that would have matched and the
#                heuristic's answer for its shape asked directly (scripts/device/find-split-count.py)
# The logs (each over 1 MiB xz-compressed) are packed into PACK_DIR/learn.tar, cut into 15 MiB parts.
set -u
W=${1:?usage: split-k-learn.sh WORK_DIR PACK_DIR [PARTS]}
P=${2:?usage: split-k-learn.sh WORK_DIR PACK_DIR [PARTS]}
PARTS=,${3:-m,n,k,bigk,configs,sm,dense,dense114,dense32},
want() { [[ $PARTS == *,$1,* ]]; }
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
M=$PWD/.device/mmaemu
LT=${CUBLASLT:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcublasLt.so.13}
mkdir -p "$W" "$P"
BASE=(--scale-modes tensorwise --fast-accum off --pairs e4m3xe4m3 --out-dtypes bf16)
sweep() {  # name, sweep options...
  local name=$1
  shift
  "$M" sweep --cublaslt "$LT" --out "$W/$name.safetensors" "$@" > "$W/$name.out" 2> "$W/$name.err"
  echo "rc=$?" >> "$W/$name.out"
  echo "$name: $(tail -n 2 "$W/$name.out" | tr '\n' ' ')"
}
rules() {  # name truth-dir: with RULES_BIN, the set replayed under each slice rule of slice-rules.patch
  [ -n "${RULES_BIN:-}" ] || return 0
  local rule
  for rule in 0 1 2 3 4 5; do
    MMAEMU_SLICE_RULE=$rule "$RULES_BIN" replay --truth-dir "$2" --out "$W/replay-$1-rule$rule.json" > /dev/null 2>&1
    echo "$1 rule $rule: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' \
      "$W/replay-$1-rule$rule.json" 2>&1)"
  done
}
"$M" info > "$W/info.txt" 2>&1
if want m; then
  sweep m-every --m 1..2048 --n 16,48,128,384,1024 --k 6144,8192,10240,16384,24576,40960,65536 \
    "${BASE[@]}" --workspaces 1048576,33554432 --max-seconds 40
fi
if want n; then
  sweep n-every --m 1,8,16,17,64,100,256,1000 --n 16..4096/16 --k 6144,8192,10240,16384,24576,40960,65536 \
    "${BASE[@]}" --workspaces 1048576,33554432 --max-seconds 20
fi
if want k; then
  sweep k-every --m 1,16,33,64,128,256,512,1024 --n 16,64,256,1024,4096 --k 16..65536/16 \
    "${BASE[@]}" --workspaces 1048576,33554432 --max-seconds 50
fi
if want bigk; then
  sweep big-k --k 65536,98304,131072,196608,262144,393216,524288,786432,1048576,2097152,4194304,8388608,16777216 \
    "${BASE[@]}" --workspaces 0,1048576,4194304,33554432 --max-seconds 20
fi
if want configs; then
  sweep configs --random 3000 --seed 11 --m 1..8192 --n 16..8192/16 --k 16..131072/16 \
    --workspaces 0,1048576,4194304,33554432 --scale-modes tensorwise,rowwise --fast-accum off,on \
    --pairs e4m3xe4m3,e4m3xe5m2,e5m2xe4m3 --out-dtypes bf16,f16,f32,f8_e4m3 --biases none,bf16,f16 \
    --sm-counts 0,132,114 --max-seconds 100
fi
if want sm; then
  sweep sm-targets "${BASE[@]}" --workspaces 1048576,33554432 --sm-counts 0,132,114,78 --max-seconds 20
fi
if want dense; then
  sweep dense-base --m 8..2048/8 --n 16..2048/16 --k 128..65536/128 "${BASE[@]}" --workspaces 1048576 --max-seconds 250
fi
if want dense114; then
  sweep dense-sm114 --m 8..2048/8 --n 16..2048/16 --k 128..65536/128 "${BASE[@]}" --workspaces 1048576 \
    --sm-counts 114 --max-seconds 170
fi
if want dense32; then
  sweep dense-ws32 --m 16..4096/16 --n 32..4096/32 --k 128..65536/128 "${BASE[@]}" --workspaces 33554432 \
    --max-seconds 170
fi
if want unaligned; then  # m = 8b - 4: the representative of the m that are not multiples of 8
  sweep dense-unaligned --m 4..2044/8 --n 16..2048/16 --k 128..65536/128 "${BASE[@]}" --workspaces 1048576 \
    --max-seconds 180
fi
if want dense32x114; then
  sweep dense-ws32-sm114 --m 16..4096/16 --n 32..4096/32 --k 128..65536/128 "${BASE[@]}" --workspaces 33554432 \
    --sm-counts 114 --max-seconds 170
fi
if want dense4; then
  sweep dense-ws4 --m 8..2048/8 --n 16..2048/16 --k 128..65536/128 "${BASE[@]}" --workspaces 4194304 \
    --max-seconds 180
fi
if want wide; then
  sweep dense-wide --m 8..512/8 --n 2064..8192/16 --k 256..65536/256 "${BASE[@]}" --workspaces 1048576,4194304 \
    --max-seconds 180
fi
if want tall; then
  sweep dense-tall --m 2049..4096 --n 16,32,48,64 --k 128..65536/128 "${BASE[@]}" --workspaces 1048576 \
    --max-seconds 80
fi
SKIP=(--skip-ruled --workspaces ${WS:-1048576})
ALIGNED=(--m 8..2048/8 --n 16..2048/16)
UNALIGNED=(--m 4..2044/8 --n 16..2048/16)
kclasses() {  # name, sweep options...: one grid log per kind of m x K class (128j, 128j + 16, 128j + 32)
  local name=$1
  shift
  for cls in ${KCLASSES:-0 16 32}; do
    local k=128..65536/128
    [ $cls != 0 ] && k=$((5120 + cls))..65536/128
    sweep $name-k$cls-aligned "${ALIGNED[@]}" --k $k "$@" "${SKIP[@]}" --max-seconds ${KCLASS_SECONDS:-90}
    sweep $name-k$cls-unaligned "${UNALIGNED[@]}" --k $k "$@" "${SKIP[@]}" --max-seconds ${KCLASS_SECONDS:-90}
  done
}
if want fast; then
  kclasses dense-fast --scale-modes tensorwise --fast-accum on --pairs e4m3xe4m3,e4m3xe5m2,e5m2xe4m3 --out-dtypes bf16
fi
if want mixedk; then
  KCLASSES=${KCLASSES:-16 32} kclasses dense-mixed --scale-modes tensorwise --fast-accum off \
    --pairs e4m3xe5m2,e5m2xe4m3 --out-dtypes ${MIXED_OUTS:-bf16,f16,f32,f8_e4m3}
fi
if want e4e4k; then
  KCLASSES=${KCLASSES:-16 32} kclasses dense-e4e4 --scale-modes tensorwise --fast-accum off --pairs e4m3xe4m3 \
    --out-dtypes f16,f32,f8_e4m3
fi
if want kclass114; then  # the bf16 configuration's K classes as an H100 PCIe's heuristic chooses (114 SMs)
  KCLASSES=${KCLASSES:-16 32} kclasses dense-sm114 "${BASE[@]}" --sm-counts 114
fi
if want kclassws; then  # the bf16 configuration's K classes at 4 and 32 MiB of workspace (132 SMs)
  for ws in 4194304 33554432; do
    WS=$ws KCLASSES=${KCLASSES:-16 32} kclasses dense-ws$((ws >> 20)) "${BASE[@]}"
  done
fi
if want kclass; then
  for cls in 16 32; do
    sweep dense-k$cls "${ALIGNED[@]}" --k $((5120 + cls))..65536/128 "${BASE[@]}" "${SKIP[@]}" --max-seconds 60
    sweep dense-unaligned-k$cls "${UNALIGNED[@]}" --k $((5120 + cls))..65536/128 "${BASE[@]}" "${SKIP[@]}" \
      --max-seconds 60
  done
fi
if want unaligned114; then
  sweep dense-unaligned-sm114 "${UNALIGNED[@]}" --k 128..65536/128 "${BASE[@]}" "${SKIP[@]}" --sm-counts 114 \
    --max-seconds 60
fi
if want widek; then  # n beyond 2048 at every 128-block of K and both alignments below 64 (1 MiB)
  for mk in aligned:8..512/8 unaligned:4..508/8; do
    for kk in 128:128..65536/128 16:5136..65536/128 32:5152..65536/128; do
      sweep dense-wide-${mk%%:*}-k${kk%%:*} --m ${mk#*:} --n 2064..8192/16 --k ${kk#*:} "${BASE[@]}" "${SKIP[@]}" \
        --max-seconds ${WIDEK_SECONDS:-30}
    done
  done
fi
if want tiny; then  # m 1..8 beyond n = 8192, where 1 MiB still holds two slices (n to 131056 at m = 1)
  sweep dense-tiny --m 1..8 --n 8208..131072/16 --k 256..65536/256 "${BASE[@]}" "${SKIP[@]}" --max-seconds 80
fi
if want wideunaligned; then
  sweep dense-wide-unaligned --m 4..508/8 --n 2064..8192/16 --k 256..65536/256 "${BASE[@]}" --skip-ruled \
    --workspaces 1048576,4194304 --max-seconds 60
fi
if want ws32fine; then
  sweep dense-ws32-fine "${ALIGNED[@]}" --k 128..65536/128 "${BASE[@]}" --skip-ruled --workspaces 33554432 \
    --max-seconds ${WS32_SECONDS:-180}
fi
if want ws4unaligned; then
  sweep dense-ws4-unaligned "${UNALIGNED[@]}" --k 128..65536/128 "${BASE[@]}" --skip-ruled --workspaces 4194304 \
    --max-seconds 100
fi
if want ws32unaligned; then
  sweep dense-ws32-unaligned "${UNALIGNED[@]}" --k 128..65536/128 "${BASE[@]}" --skip-ruled --workspaces 33554432 \
    --max-seconds ${WS32_SECONDS:-180}
fi
if want ws32fine114; then
  sweep dense-ws32-fine-sm114 "${ALIGNED[@]}" --k 128..65536/128 "${BASE[@]}" --skip-ruled --workspaces 33554432 \
    --sm-counts 114 --max-seconds ${WS32_SECONDS:-180}
fi
if want slices; then
  shapes=""
  for k in 56336 56448 58896 59136 61472 61824 64016 64512 58880 61440 64000; do
    shapes="$shapes,1x80x$k,16x48x$k"
  done
  "$M" record --cublaslt "$LT" --out "$W/rec-slices" --shapes "${shapes#,}" --dists normal,cancel --pairs e4m3xe4m3 \
    --out-dtypes bf16,f16 --scales tensorwise --fast-accum off --workspace 33554432 --seed 5 > "$W/rec-slices.out" 2>&1
  "$M" replay --truth-dir "$W/rec-slices" --out "$W/replay-rec-slices.json" >> "$W/rec-slices.out" 2>&1
  echo "slices: $(tail -n 1 "$W/rec-slices.out")"
  rules rec-slices "$W/rec-slices"
  [ -n "${KEEP_TRUTH:-}" ] || rm -rf "$W/rec-slices"  # 370 MB: the replay's verdicts come back, not the set
fi
if want slices2; then
  # The slice rule's check off the calls it was fitted on: every residue of K mod 128 (16, 48, 80,
  # 112 with an empty last slice and with none; 0, 32, 64, 96 with one), K beyond 65536, n = 16
  # and 80, m = 1 and 16. The failing recordings are analysed where they are (k-ranges.py).
  "$M" record --cublaslt "$LT" --out "$W/rec-slices2" --shapes "$(cat scripts/device/shapes/slices2.txt)" --dists normal,cancel \
    --pairs e4m3xe4m3 --out-dtypes f16 --scales tensorwise --fast-accum off --workspace 33554432 --seed 6 \
    > "$W/rec-slices2.out" 2>&1
  "$M" replay --truth-dir "$W/rec-slices2" --out "$W/replay-rec-slices2.json" >> "$W/rec-slices2.out" 2>&1
  "$M" replay --truth-dir "$W/rec-slices2" --split-k-from profile --out "$W/replay-rec-slices2-profile.json" \
    >> "$W/rec-slices2.out" 2>&1
  python3 validation_logs/2026-12-03/split-k/slices/k-ranges.py "$W/rec-slices2" > "$W/k-ranges-slices2.txt" 2>&1
  echo "slices2: $(tail -n 1 "$W/rec-slices2.out")"
  rules rec-slices2 "$W/rec-slices2"
  [ -n "${KEEP_TRUTH:-}" ] || rm -rf "$W/rec-slices2"
fi
for set in slices3 slices4; do
  want $set || continue
  if [ $set = slices3 ]; then dtypes=f16,f32 seed=8; else dtypes=f16 seed=9; fi
  for part in small wide; do
    "$M" record --cublaslt "$LT" --out "$W/rec-$set-$part" --shapes "$(cat scripts/device/shapes/$set-$part.txt)" \
      --dists normal --pairs e4m3xe4m3 --out-dtypes $dtypes --scales tensorwise --fast-accum off --workspace 33554432 \
      --seed $seed > "$W/rec-$set-$part.out" 2>&1
    "$M" replay --truth-dir "$W/rec-$set-$part" --out "$W/replay-rec-$set-$part.json" >> "$W/rec-$set-$part.out" 2>&1
    rules rec-$set-$part "$W/rec-$set-$part"
    [ $set = slices4 ] || python3 validation_logs/2026-12-03/split-k/slices/k-ranges.py "$W/rec-$set-$part" \
      > "$W/k-ranges-$set-$part.txt" 2>&1
    echo "$set-$part: $(tail -n 1 "$W/rec-$set-$part.out")"
    # Only slices3's small set (about 35 MB) comes back in the pack.
    [ -n "${KEEP_TRUTH:-}" ] || [ $set-$part = slices3-small ] || rm -rf "$W/rec-$set-$part"
  done
done
if want slices5; then
  i=0
  for config in "--fast-accum on --pairs e4m3xe4m3 --out-dtypes bf16 --workspace 33554432" \
                "--fast-accum off --pairs e5m2xe4m3 --out-dtypes f32 --workspace 1048576" \
                "--fast-accum off --pairs e4m3xe5m2 --out-dtypes f8_e4m3 --workspace 4194304" \
                "--fast-accum off --pairs e4m3xe4m3 --out-dtypes bf16 --workspace 33554432 --sm-count 114" \
                "--fast-accum on --pairs e4m3xe4m3 --out-dtypes f16 --bias match --workspace 1048576"; do
    i=$((i + 1))
    # shellcheck disable=SC2086  # the configuration is a list of options
    "$M" record --cublaslt "$LT" --out "$W/rec-slices5-$i" --shapes 1x16x40976,1x16x43536,1x16x48656,1x16x56336,1x16x61584 \
      --dists normal --scales tensorwise $config --seed 10 > "$W/rec-slices5-$i.out" 2>&1
    echo "config $i: $config" >> "$W/rec-slices5-$i.out"
    "$M" replay --truth-dir "$W/rec-slices5-$i" --out "$W/replay-rec-slices5-$i.json" >> "$W/rec-slices5-$i.out" 2>&1
    echo "slices5 $i ($config): $(tail -n 1 "$W/rec-slices5-$i.out")"
    rules rec-slices5-$i "$W/rec-slices5-$i"
    python3 validation_logs/2026-12-03/split-k/slices/k-ranges.py "$W/rec-slices5-$i" > "$W/k-ranges-slices5-$i.txt" 2>&1
    [ -n "${KEEP_TRUTH:-}" ] || rm -rf "$W/rec-slices5-$i"
  done
fi
if want conform; then
  "$M" conform --backend cuda --calls ${CONFORM_CALLS:-100} --out "$W/conform-cuda.json" > "$W/conform-cuda.out" 2>&1
  echo "rc=$?" >> "$W/conform-cuda.out"
  echo "conform: $(tail -n 2 "$W/conform-cuda.out" | tr '\n' ' ')"
fi
for pair in e4e4:e4m3xe4m3:f16,f32,f8_e4m3 e4e5:e4m3xe5m2:bf16,f16,f32,f8_e4m3 e5e4:e5m2xe4m3:bf16,f16,f32,f8_e4m3; do
  IFS=: read -r tag pairname outs <<< "$pair"
  if want dtypes-$tag; then
    for mk in aligned unaligned; do
      axes=("${ALIGNED[@]}")
      [ $mk = unaligned ] && axes=("${UNALIGNED[@]}")
      sweep dense-dtypes-$tag-$mk "${axes[@]}" --k 128..65536/128 --scale-modes tensorwise --fast-accum off \
        --pairs $pairname --out-dtypes $outs "${SKIP[@]}" --max-seconds ${DTYPE_SECONDS:-150}
    done
  fi
done
if want holdout; then  # random shapes kept out of every table, to measure the model against
  sweep holdout --random 50000 --seed ${HOLDOUT_SEED:-2026} --m 1..4096 --n 16..4096/16 --k 16..65536/16 \
    --scale-modes tensorwise --workspaces 0,1048576,4194304,33554432 --fast-accum off,on \
    --pairs e4m3xe4m3,e4m3xe5m2,e5m2xe4m3 --out-dtypes bf16,f16,f32,f8_e4m3 --sm-counts ${HOLDOUT_SM_COUNTS:-0,114} --max-seconds 150
  "$M" split-k --logs "$W/holdout.safetensors" --out "$W/holdout-check.json" > "$W/holdout-check.out" 2>&1
  echo "holdout check: $(tail -n 1 "$W/holdout-check.out")"
fi
if want live; then
  # In runs of LIVE_CALLS calls (seeds LIVE_SEED, LIVE_SEED + 1, ...) until LIVE_SECONDS are spent:
  # a run cut by the deadline is lost, the finished ones are kept (2000 calls in one run did not
  # finish in the 340 s a call had left, 2026-12-03).
  deadline=$(( $(date +%s) + ${LIVE_SECONDS:-200} ))
  seed=${LIVE_SEED:-11}
  while [ $(( deadline - $(date +%s) )) -gt 20 ]; do
    timeout $(( deadline - $(date +%s) )) "$M" selftest --live --cublaslt "$LT" --calls ${LIVE_CALLS:-200} --seed $seed \
      --split-k-from profile --workspaces 0,1048576,4194304,33554432 --backend cuda \
      --log "$W/selftest-live-$seed.json" > "$W/selftest-live-$seed.out" 2>&1
    echo "rc=$?" >> "$W/selftest-live-$seed.out"
    echo "live $seed: $(grep 'selftest --live' "$W/selftest-live-$seed.out" | tail -n 1)"
    seed=$((seed + 1))
  done
fi
if want record; then  # small truth sets of random shapes where cuBLASLt splits, at 132 and 114 SMs
  for sm in 132 114; do
    target=$([ $sm = 114 ] && echo 114 || echo 0)
    "$M" record --cublaslt "$LT" --out "$W/rec-split-sm$sm" --shapes "$(cat .device/shapes$sm.txt)" --dists normal \
      --pairs e4m3xe4m3 --out-dtypes bf16 --scales tensorwise --fast-accum off --seed $sm --sm-count $target \
      > "$W/rec-split-sm$sm.out" 2>&1
    "$M" replay --truth-dir "$W/rec-split-sm$sm" --out "$W/replay-rec-split-sm$sm.json" >> "$W/rec-split-sm$sm.out" 2>&1
    "$M" replay --truth-dir "$W/rec-split-sm$sm" --split-k-from profile --out "$W/replay-rec-split-sm$sm-profile.json" \
      >> "$W/rec-split-sm$sm.out" 2>&1
    echo "record sm$sm: $(tail -n 1 "$W/rec-split-sm$sm.out")"
  done
fi
if want torch; then
  seed=${TORCH_SEED:-1}
  T=$W-torch-$seed
  python3 scripts/device/torch-record.py --out "$T" --calls ${TORCH_CALLS:-300} --seed $seed --split-region \
    --max-seconds ${TORCH_SECONDS:-150} > "$W/torch-$seed.out" 2>&1
  for from in recording profile; do
    "$M" replay --truth-dir "$T" --backend cuda --split-k-from $from --out "$W/torch-$seed-replay-$from.json" \
      >> "$W/torch-$seed.out" 2>&1
  done
  mkdir -p "$W/torch-$seed"
  cp "$T/manifest.json" "$W/torch-$seed/"
  find "$T" -name '*.safetensors' -size -256k -exec cp {} "$W/torch-$seed/" \;
  echo "torch $seed: $(tail -n 3 "$W/torch-$seed.out" | tr '\n' ' ')"
  if [ -n "${TORCH_FIND:-}" ]; then  # the counts that would have matched, and the heuristic asked directly
    python3 scripts/device/find-split-count.py --set "$T" --replay-log "$W/torch-$seed-replay-recording.json" \
      --mmaemu "$M" --cublaslt "$LT" --out "$W/torch-$seed-find.json" > "$W/torch-$seed-find.out" 2>&1
    cat "$W/torch-$seed-find.out"
  fi
fi
# Each log compressed on its own, in parallel (a grid log of 8 configurations is about 1.6 GB raw),
# then one uncompressed tar: cat learn.tar.part* | tar x
python3 - "$W" <<'EOF'
import lzma, os, sys
from concurrent.futures import ProcessPoolExecutor
def pack(path):
    data = open(path, 'rb').read()
    open(path + '.xz', 'wb').write(lzma.compress(data, preset=3))
    os.remove(path)
    return path, len(data)
logs = [os.path.join(d, f) for d, _, fs in os.walk(sys.argv[1]) for f in fs if f.endswith('.safetensors')
        and os.path.getsize(os.path.join(d, f)) > (1 << 20)]
with ProcessPoolExecutor(max(1, min(16, os.cpu_count() or 1))) as pool:
    for path, size in pool.map(pack, logs):
        print('xz', path, size)
EOF
tar cf "$P/learn.tar" -C "$W" .
(cd "$P" && split -b 15m -d learn.tar learn.tar.part && rm learn.tar; ls -la)
