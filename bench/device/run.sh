#!/usr/bin/env bash
# bench/device/run.sh: frontier probe on one GPU machine, with a torch peer and
# measured power, in at most ~5 minutes on one H200. Every stage runs on its
# own (one failing does not stop the others) and logs to $OUT/<stage>.log;
# the summary at the end quotes each stage's figures.
#
#   OUT=/tmp/out bench/device/run.sh              # from a build tree: build/src/cli/frontier
#   PROBE_BACKEND=fake HARDWARE=h200 bench/device/run.sh   # the whole script without a GPU
#
# Where `frontier` comes from: $FRONTIER_BIN, else <root>/bin/frontier (a
# carried binary, with its shared libraries in <root>/lib), else
# <root>/build/src/cli/frontier, where <root> is two folders above this script.
# The CUDA module libfrontier_probe_cuda.so is looked for beside the binary;
# cuBLASLt and NCCL come from the machine (CUDA's lib64 or torch's wheels).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
BACKEND=${PROBE_BACKEND:-cuda}
HARDWARE=${HARDWARE:-h200}
MODELS=${MODELS:-llama-3.1-8b,llama-3.1-70b}
if [ -n "${FRONTIER_BIN:-}" ]; then BIN=$FRONTIER_BIN
elif [ -x "$ROOT/bin/frontier" ]; then BIN=$ROOT/bin/frontier
else BIN=$ROOT/build/src/cli/frontier; fi
[ -d "$ROOT/lib" ] && export LD_LIBRARY_PATH="$ROOT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -d "$ROOT/data" ] && export FRONTIER_DATA_DIR=${FRONTIER_DATA_DIR:-$ROOT/data}
# cuBLASLt and NCCL of the machine: CUDA's own, else the ones torch's wheels ship.
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
         $(python3 -c 'import nvidia, os; [print(os.path.join(p, d, "lib")) for p in nvidia.__path__ for d in sorted(os.listdir(p))]' 2>/dev/null); do
  if ls "$d"/libcublasLt.so* "$d"/libnccl.so* >/dev/null 2>&1; then export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$d"; fi
done
export BIN OUT BACKEND HARDWARE MODELS HERE
STATUS=()
stage() {  # stage NAME SECONDS COMMAND...: runs COMMAND (a function or a command line) in bash with a time limit
  local name=$1 limit=$2; shift 2
  echo "=== $name ($(date -u +%H:%M:%S))"
  local t0=$(date +%s)
  timeout --kill-after=5 "$limit" bash -c "$*" >"$OUT/$name.log" 2>&1
  local rc=$?
  cat "$OUT/$name.log"
  STATUS+=("$name: exit $rc after $(( $(date +%s) - t0 )) s")
}

env_stage() {
  echo "binary: $BIN"; echo "backend: $BACKEND"; echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
  nvidia-smi --query-gpu=name,driver_version,memory.total,power.limit,clocks.max.sm --format=csv 2>&1 || true
  ldd "$BIN" | grep -i "not found" && echo "frontier: missing libraries above"
  [ -f "$(dirname "$BIN")/libfrontier_probe_cuda.so" ] && ldd "$(dirname "$BIN")/libfrontier_probe_cuda.so" | grep -E "cublas|nccl|not found"
  "$BIN" version
}
export -f env_stage
stage env 30 env_stage

probe_stage() {
  "$BIN" probe --probe-backend "$BACKEND" --hardware "$HARDWARE" --model "$MODELS" \
    --tokens 16,64,256,1024,4096 --top-n 8 --iterations 10 --db "$OUT/probe.db" --result-json "$OUT/probe.json" &&
  "$BIN" calibrate --db "$OUT/probe.db" --probe 1 --out "$OUT/probe_override.json"
}
export -f probe_stage
stage probe 170 probe_stage

if [ "$BACKEND" != fake ] && python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  stage torch_gemm 100 python3 "$HERE/torch_gemm.py" "$OUT/probe.json" "$OUT/torch_gemm.json"
else
  STATUS+=("torch_gemm: skipped (no GPU torch or fake backend)")
fi

power_stage() {
  local port=18731
  "$BIN" serve --profile fixed --ttft-ms 20 --itl-ms 5 --port $port >"$OUT/serve.log" 2>&1 &
  local serve=$!
  sleep 1
  local bench=("$BIN" bench --base-url http://127.0.0.1:$port --model fixed --input-len 128 --output-len 256
               --max-concurrency 8 --power "${POWER:-nvml}")
  echo "--- GPU idle (the server is frontier's timing stand-in)"
  "${bench[@]}" --num-prompts 16 --result-json "$OUT/bench_idle.json"
  if [ "$BACKEND" != fake ] && python3 -c 'import torch' 2>/dev/null; then
    echo "--- while a decode-attention load runs (torch sdpa, Llama-3.1-70B heads)"
    python3 "$HERE/decode_load.py" 20 &
    local load=$!
    sleep 4
    "${bench[@]}" --num-prompts 64 --result-json "$OUT/bench_decode.json"
    wait $load
  fi
  kill $serve 2>/dev/null; wait $serve 2>/dev/null
  return 0
}
export -f power_stage
stage power 75 power_stage

echo "=== summary"
for s in "${STATUS[@]}"; do echo "stage $s"; done
python3 - "$OUT" <<'PY' || true
import json, os, sys
out = sys.argv[1]
def load(name):
    try: return json.load(open(os.path.join(out, name)))
    except Exception: return None
p = load("probe.json")
if p:
    print(f"device {p['device']['name']} ({p['device']['library_versions']}) vs catalog {p['hardware']}")
    for prec in ("bf16", "fp8", "fp4"):
        g = [x for x in p["gemm"] if x["precision"] == prec]
        if not g: continue
        best = max(g, key=lambda x: x["tuned_fraction_of_peak"])
        big = [x for x in g if x["m"] >= 1024]
        gain = sum(x["default_seconds"] / x["tuned_seconds"] - 1 for x in g) / len(g)
        print(f"GEMM {prec}: best {best['tuned_tflops']:.1f} TF = {best['tuned_fraction_of_peak']:.1%} of peak "
              f"({best['model']} {best['layer']} M={best['m']}); M>=1024 mean "
              f"{sum(x['tuned_fraction_of_peak'] for x in big) / max(len(big), 1):.1%}; tuned vs default mean gain {gain:.1%}")
    for s in p["stream"]:
        print(f"HBM {s['kernel']}: {s['gbps']:.0f} GB/s = {s['fraction_of_peak']:.1%} of peak")
    for d in p["decode"]:
        print(f"decode attention {d['model']}: {d['gbps']:.0f} GB/s = {d['fraction_of_peak']:.1%} of HBM peak, "
              f"max |err| {d['max_abs_error']:.2g}")
    for n in p["notes"]: print("note:", n)
t = load("torch_gemm.json")
if t:
    for prec in ("bf16", "fp8"):
        sel = [r for r in t if r["precision"] == prec]
        if sel:
            print(f"torch {prec}: best {max(r['torch_tflops'] for r in sel):.1f} TF; mean ours/torch "
                  f"{sum(r['ours_tuned_tflops'] / r['torch_tflops'] for r in sel) / len(sel):.3f} over {len(sel)} shapes")
for name in ("bench_idle.json", "bench_decode.json"):
    b = load(name)
    e = (b or {}).get("energy")
    if e: print(f"{name}: {e.get('source')} mean {e.get('mean_power_w', 0):.1f} W, peak {e.get('peak_power_w', 0):.1f} W, "
                f"{e.get('joules', e.get('energy_j', 0))} J")
    elif b is not None: print(f"{name}: no energy block")
PY
# PACK=1: one archive of everything under $OUT (the device tool returns at most 8 files).
if [ "${PACK:-0}" = 1 ]; then
  (cd "$OUT" && tar czf /tmp/device-out.tgz . && find . -mindepth 1 -delete && mv /tmp/device-out.tgz .)
  echo "packed $OUT/device-out.tgz"
fi
