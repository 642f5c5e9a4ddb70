# Sourced by the device evidence scripts (resident-evidence.sh, h4-tma-evidence.sh) after they
# set OUT: unpacks the carried builds in .device/, names them, records the GPU, and defines step.
(cd .device && for f in mmaemu resident_call_test; do xz -dkf $f.xz && chmod +x $f; done)
M=.device/mmaemu
LT=${CUBLASLT:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcublasLt.so.13}
step() {  # name, command...: output to OUT/name.out with the exit status
  local name=$1
  shift
  "$@" > "$OUT/$name.out" 2>&1
  echo "rc=$?" >> "$OUT/$name.out"
  echo "$name: $(tail -n 2 "$OUT/$name.out" | tr '\n' ' ')"
}
nvidia-smi -L > "$OUT/info.txt" 2>&1
$M info >> "$OUT/info.txt" 2>&1
