#!/usr/bin/env bash
# bench/device/carry.sh DEST: puts what bench/device/run.sh needs on a GPU
# machine that cannot build frontier (no libcurl, SQLite, ... headers) into
# DEST: bin/frontier and bin/libfrontier_probe_cuda.so (stripped, from
# build/src/cli), lib/ with the shared libraries `ldd` shows the binary needs
# (glibc's and libstdc++ stay: the machine's newer ones serve), data/, and
# the scripts. cuBLASLt and NCCL are not carried: they are large and the
# machine's CUDA or torch provides them (run.sh finds them).
#
#   bench/device/carry.sh /path/to/checkout/.devcarry   # then: cd .devcarry && bash bench/device/run.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DEST=${1:?usage: carry.sh DEST}
BIN=${FRONTIER_SRC_BIN:-$ROOT/build/src/cli/frontier}
rm -rf "$DEST"
mkdir -p "$DEST/bin" "$DEST/lib" "$DEST/bench/device"
cp "$ROOT"/bench/device/*.sh "$ROOT"/bench/device/*.py "$DEST/bench/device/"
cp -r "$ROOT/data" "$DEST/data"
strip -o "$DEST/bin/frontier" "$BIN"
strip -o "$DEST/bin/libfrontier_probe_cuda.so" "$(dirname "$BIN")/libfrontier_probe_cuda.so"
for l in $(ldd "$BIN" | awk '/=>/ {print $3}'); do
  case $(basename "$l") in
    libc.so*|libm.so*|libpthread*|libdl.so*|librt.so*|ld-linux*|libstdc++*|libgcc_s*|libresolv*) ;;
    *) cp -L "$l" "$DEST/lib/" ;;
  esac
done
du -sh "$DEST"
