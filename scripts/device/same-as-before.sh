#!/usr/bin/env bash
# A refactoring of a GPU path checked on the device: two mmaemu binaries (before and after) run the
# same sweeps (a grid, a random list, --skip-ruled, the JSON form), record the same grid of calls
# (every scale mode, bias, accumulation) and probe the same tiles, and the new one the selftest --live of a
# committed log (REF_LIVE, seed 51, 400 calls); what they write must be equal apart from times,
# thread counts and the commit:
#   [REF_LIVE=LOG.json.xz] scripts/device/same-as-before.sh OLD_BINARY NEW_BINARY WORK_DIR PACK_DIR
set -u
OLD=${1:?usage: same-as-before.sh OLD NEW WORK_DIR PACK_DIR}
NEW=${2:?usage: same-as-before.sh OLD NEW WORK_DIR PACK_DIR}
W=${3:?usage: same-as-before.sh OLD NEW WORK_DIR PACK_DIR}
P=${4:?usage: same-as-before.sh OLD NEW WORK_DIR PACK_DIR}
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
LT=${CUBLASLT:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcublasLt.so.13}
mkdir -p "$W" "$P"
AXES=(--m 1..64/7 --n 16..512/48 --k 4096..65536/4096 --scale-modes tensorwise,rowwise --fast-accum off,on
      --pairs e4m3xe4m3,e5m2xe4m3 --out-dtypes bf16,f16 --workspaces 1048576,33554432)
for which in old new; do
  M=$OLD
  [ $which = new ] && M=$NEW
  "$M" sweep --cublaslt "$LT" --out "$W/$which-grid.safetensors" "${AXES[@]}" > "$W/$which-grid.out" 2>&1
  "$M" sweep --cublaslt "$LT" --out "$W/$which-list.safetensors" "${AXES[@]}" --random 3000 --seed 3 \
    > "$W/$which-list.out" 2>&1
  "$M" sweep --cublaslt "$LT" --out "$W/$which-ruled.safetensors" "${AXES[@]}" --skip-ruled > "$W/$which-ruled.out" 2>&1
  "$M" sweep --cublaslt "$LT" --out "$W/$which-small.json" --m 1,16,100 --n 16,256 --k 8192,40960 \
    --replay-sample 12 --sample-out "$W/$which-sample" > "$W/$which-small.out" 2>&1
  "$M" record --cublaslt "$LT" --out "$W/$which-rec" --shapes 16x48x4096,3x80x20480 --dists normal,special \
    --pairs e4m3xe4m3,e5m2xe4m3 --out-dtypes bf16,f32,f8_e4m3 --scales one,tensorwise,rowwise --bias none,match \
    --fast-accum off,on --seed 9 > "$W/$which-rec.out" 2>&1
  "$M" probe --tiles-per-class 4 --seed 3 --out "$W/$which-probe.json" > "$W/$which-probe.out" 2>&1
  echo "$which: $(tail -n 1 "$W/$which-grid.out") | $(tail -n 1 "$W/$which-rec.out") | $(tail -n 1 "$W/$which-probe.out")"
done
if [ -n "${REF_LIVE:-}" ]; then  # without it, the live part is left out
  "$NEW" selftest --live --cublaslt "$LT" --calls 400 --seed 51 --split-k-from profile \
    --workspaces 0,1048576,4194304,33554432 --backend cuda --log "$W/new-live.json" > "$W/new-live.out" 2>&1
  xz -dc "$REF_LIVE" > "$W/old-live.json"
  echo "live: $(tail -n 1 "$W/new-live.out")"
fi
python3 - "$W" > "$W/same-as-before.txt" <<'PY'
# Algorithms are numbered in the order the threads first saw them, so two runs of one binary
# number them differently: each answer is compared as the algorithm's configuration.
import array, json, struct, sys
w = sys.argv[1]
def answers(path):
    with open(path, 'rb') as f:
        n = struct.unpack('<Q', f.read(8))[0]
        head = json.loads(f.read(n)); data = f.read()
    meta = head.pop('__metadata__')
    about = json.loads(meta['mmaemu'])
    for volatile in ('seconds', 'jobs', 'mmaemu_commit'): about.pop(volatile, None)
    algorithms = [json.dumps(a, sort_keys=True) for a in json.loads(meta['algorithms'])]
    codes = {'I32': 'i', 'U32': 'I', 'F32': 'f', 'U16': 'H'}
    t = {}
    for name, d in head.items():
        b, e = d['data_offsets']; t[name] = array.array(codes[d['dtype']], data[b:e]).tolist()
    rows = [(algorithms[a] if a >= 0 else a, ws, wv)
            for a, ws, wv in zip(t['algorithm'], t['workspace'], t['waves'])]
    return about, json.loads(meta['keys']), {c: t[c] for c in ('key', 'm', 'n', 'k') if c in t}, rows
def live(path):
    j = json.load(open(path))
    for volatile in ('seconds', 'mmaemu_commit'): j.pop(volatile, None)
    for r in j['results']: r.pop('replay_seconds', None)
    return j
same = True
for name in ('grid', 'list', 'ruled'):
    a, b = answers(f'{w}/old-{name}.safetensors'), answers(f'{w}/new-{name}.safetensors')
    ok = a == b
    same &= ok
    print(f'sweep {name}: {"equal" if ok else "DIFFERENT"} ({len(a[3])} answers, {len(set(r[0] for r in a[3]))} algorithms)')
def without(j, *keys):
    for k in keys: j.pop(k, None)
    return j
def small(path):  # mmaemu-sweep/1: algorithm indices are given in table order, not by threads
    j = without(json.load(open(path)), 'seconds', 'mmaemu_commit')
    j.get('sample', {}).pop('recorded_in', None)
    return j
def recorded(path):
    m = json.load(open(path + '/manifest.json'))
    return m['files'], m['recordings'], m['skipped']
def probed(path):
    return without(json.load(open(path)), 'mmaemu_commit')
for name, load, what in (('small.json', small, 'sweep JSON form'), ('rec', recorded, 'record'),
                         ('probe.json', probed, 'probe')):
    try:
        ok = load(f'{w}/old-{name}') == load(f'{w}/new-{name}')
    except Exception as e:
        ok = False
        print(f'{what}: {e}')
    same &= ok
    print(f'{what}: {"equal" if ok else "DIFFERENT"}')
import os
if os.path.exists(f'{w}/new-live.json'):
    a, b = live(f'{w}/old-live.json'), live(f'{w}/new-live.json')
    ok = a == b
    same &= ok
    print(f'selftest --live: {"equal" if ok else "DIFFERENT"} ({len(a["results"])} calls; {a["verdict"]})')
else:
    print('selftest --live: not run (no REF_LIVE)')
print('same as before' if same else 'NOT the same as before')
PY
cat "$W/same-as-before.txt"
tar czf "$P/same-as-before.tgz" -C "$W" --exclude='*-rec' --exclude='*-sample' .
