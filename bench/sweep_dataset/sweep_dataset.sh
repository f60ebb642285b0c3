#!/usr/bin/env bash
# sweep_dataset: how long a simulated sweep spends on a large file dataset.
# Generates a ~120 MB JSONL of 100,000 prompts (about 300 tokens each) in a
# scratch folder, then times `frontier sweep` of an 8-point concurrency plan
# (1..128, num_prompts 512, Llama-3.1-8B on one H100) over it, and the same
# plan over random prompts (the simulation alone), and one `frontier simulate`
# point over the file, each the best of 3 runs. Given several binaries (a
# build before a change and after), times each on the same file. Prints
# figures; not a test.
#
#   bench/sweep_dataset/sweep_dataset.sh [FRONTIER ...]   (default build/src/cli/frontier)
set -euo pipefail
[ $# -gt 0 ] || set -- build/src/cli/frontier
dir=$(mktemp -d "${TMPDIR:-/tmp}/sweep_dataset.XXXXXX")
trap 'rm -rf "$dir"' EXIT

python3 - "$dir/prompts.jsonl" <<'PY'
import json, random, sys
rng = random.Random(7)
words = ["token", "model", "prefill", "decode", "cache", "batch", "kernel", "memory",
         "latency", "throughput", "request", "server", "engine", "tensor", "parallel"]
with open(sys.argv[1], "w") as f:
    for i in range(100_000):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(140, 200)))
        f.write(json.dumps({"prompt": f"{i}: {text}", "output_len": rng.randint(64, 256)}) + "\n")
PY

plan() {  # $1: the workload line
  cat <<YAML
name: sweep-dataset
systems:
  - {name: h100-8b, hardware: h100-sxm, gpus: 1, sim: {model: llama-3.1-8b, tp: 1}}
workloads:
  - $1
load:
  concurrency: [1, 2, 4, 8, 16, 32, 64, 128]
  num_prompts: 512
YAML
}
plan "{name: file, dataset: jsonl, path: prompts.jsonl}" > "$dir/jsonl.yaml"
plan "{name: random, dataset: random, input_len: 300, output_len: 160}" > "$dir/random.yaml"

best() {  # the least of 3 wall times, in seconds, of the command given
  local best="" t0 t1
  for _ in 1 2 3; do
    rm -f "$dir"/*.db*
    t0=$(date +%s.%N)
    "$@" > /dev/null 2> "$dir/log" || { cat "$dir/log"; exit 1; }
    t1=$(date +%s.%N)
    best=$(python3 -c "t = $t1 - $t0; b = '$best'; print(f'{min(t, float(b)) if b else t:.2f}')")
  done
  echo "$best"
}
echo "file: $(du -m "$dir/prompts.jsonl" | cut -f1) MB, $(wc -l < "$dir/prompts.jsonl") prompts"
for frontier in "$@"; do
  echo "$frontier:"
  echo "  8-point sweep, jsonl dataset:  $(best "$frontier" sweep "$dir/jsonl.yaml" --db "$dir/jsonl.db" --quiet) s"
  echo "  8-point sweep, random dataset: $(best "$frontier" sweep "$dir/random.yaml" --db "$dir/random.db" --quiet) s"
  echo "  one simulate point, jsonl:     $(best "$frontier" simulate --hardware h100-sxm --model llama-3.1-8b \
    --dataset jsonl --dataset-path "$dir/prompts.jsonl" --num-prompts 512 --max-concurrency 8) s"
done
