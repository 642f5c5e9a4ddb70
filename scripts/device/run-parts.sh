#!/usr/bin/env bash
# One device call running several parts of scripts/device/split-k-learn.sh one after another,
# each with its own timeout and pack folder under $OUT (so that a part cut short loses only
# itself), and, with VALIDATE=1, `mmaemu validate-release` of a carried release archive first.
#   scripts/device/run-parts.sh NAME:SECONDS:PART[:VAR=VALUE+VAR=VALUE...] ...
# e.g. run-parts.sh conform:200:conform:CONFORM_CALLS=100 ctl:80:m
# Expects .device/mmaemu.xz (a stripped, xz-packed mmaemu) carried with the call.
set -u
cd .device && xz -dkf mmaemu.xz && chmod +x mmaemu && cd ..
nvidia-smi -L
ldd .device/mmaemu
export TMPDIR=/dev/shm
if [ -n "${VALIDATE:-}" ] && ls .device/mmaemu-*.tar.gz > /dev/null 2>&1; then
  R=$PWD
  (cd "$OUT" && timeout 300 "$R/.device/mmaemu" validate-release "$R"/.device/mmaemu-*.tar.gz \
    --conform-calls "${VALIDATE_CALLS:-20}" > validate-release.out 2>&1
  echo "rc=$?" >> validate-release.out
  tail -n 16 validate-release.out)
fi
for spec in "$@"; do
  IFS=: read -r name t part envs <<< "$spec"
  echo "== $name ($part, $envs) $(date +%T)"
  # shellcheck disable=SC2046  # the VAR=VALUE words are meant to split
  env $(echo "$envs" | tr '+' ' ') timeout "$t" bash scripts/device/split-k-learn.sh "/dev/shm/w-$name" "$OUT/$name" "$part"
  echo "== $name done rc=$? $(date +%T)"
done
