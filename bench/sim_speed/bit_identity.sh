#!/usr/bin/env bash
# bit_identity.sh: checks that a change to the simulator or the metrics leaves
# `frontier simulate`'s results byte-identical. Runs a fixed set of simulations
# that between them take every scheduler and metrics path (dense and MoE, MLA
# with whole and chunked prefill on three stacks, sliding windows, MTP,
# preemptions under a small KV cache, Poisson arrivals, TP2 x DP4,
# disaggregated prefill / decode, prefix caching with shared prefixes,
# multi-turn sessions and a trace, cancellations, explicit timeslices, a
# concurrency sweep) and keeps each one's printed report (with --explain on
# some: steps, batch sizes, preemptions, peak KV use), result JSON and
# per-request records (every token timestamp).
#
#   bench/sim_speed/bit_identity.sh run FRONTIER_BINARY DIR    # writes DIR/<case>.{out,json,jsonl}
#   bench/sim_speed/bit_identity.sh compare DIR_BEFORE DIR_AFTER
#
# Typical use: build the commit before the change, `run` its binary into one
# folder (copy the binary aside first), build the change, `run` into another,
# then `compare`. Only two fields are masked, both wall-clock provenance of
# the result JSON: "date" and "start_time_utc". Paths given to the binary are
# relative to DIR, so the command lines recorded in the results match.
# Exit status of compare: 0 when every file matches, 1 otherwise.
set -euo pipefail

usage() {
  echo "usage: $0 run FRONTIER_BINARY DIR | $0 compare DIR_BEFORE DIR_AFTER" >&2
  exit 2
}

[[ $# -eq 3 ]] || usage
mode=$1

if [[ $mode == compare ]]; then
  a=$2 b=$3 bad=0 n=0
  mask() { sed -E 's/"(date|start_time_utc)": *"[^"]*"/"\1": "MASKED"/g' "$1"; }
  for f in "$a"/*; do
    name=$(basename "$f")
    n=$((n + 1))
    if [[ ! -f $b/$name ]]; then
      echo "missing in $b: $name"
      bad=1
    elif ! cmp -s <(mask "$f") <(mask "$b/$name"); then
      echo "differs: $name"
      bad=1
    fi
  done
  [[ $bad -eq 0 ]] && echo "all $n files identical (date and start_time_utc masked)"
  exit $bad
fi

[[ $mode == run ]] || usage
bin=$(realpath "$2")
out=$3
repo=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
cd "$out"
export FRONTIER_DATA_DIR=$repo/data

sim() {
  local name=$1
  shift
  "$bin" simulate "$@" --result-json "$name.json" --requests-jsonl "$name.jsonl" >"$name.out" 2>&1 ||
    echo "exit $?" >>"$name.out"
}

# Dense, the speed benchmark's system, mixed lengths, an explicit window.
sim dense --explain --model llama-3.1-70b --hardware h200 --tp 8 --precision fp8 --num-prompts 600 \
  --max-concurrency 64 --input-len 1024 --output-len 256 --range-ratio 0.5 --timeslice 0.5 --seed 3
# MoE.
sim moe --model mixtral-8x7b --hardware h100-sxm --tp 2 --num-prompts 500 --max-concurrency 128 --output-len 200
# MLA on three stacks: chunked prompts apart from decodes, whole prompts mixed, chunked mixed.
for stack in sglang-cuda@0.4.3 trtllm@0.17 vllm-cuda@0.7.4; do
  sim "mla-${stack%@*}" --explain --model deepseek-r1 --hardware h200 --tp 8 --stack "$stack" --num-prompts 300 \
    --max-concurrency 64 --input-len 2048 --output-len 300 --range-ratio 0.3
done
# Whole prompts kept apart from decodes (vLLM V0 on ROCm).
sim whole-separate --model llama-3.1-70b --hardware mi300x --tp 8 --stack vllm-rocm@0.7.3 --num-prompts 300 \
  --max-concurrency 48 --output-len 150
# Sliding-window layers.
sim swa --explain --model gpt-oss-120b --hardware h200 --num-prompts 400 --max-concurrency 96 --input-len 3000 \
  --output-len 300 --range-ratio 0.4
# MTP with a fractional acceptance length.
sim mtp --explain --model deepseek-r1 --hardware h200 --tp 8 --spec-tokens 3 --acceptance 2.5 --num-prompts 300 \
  --max-concurrency 32 --output-len 400
# Preemptions: a small KV cache under a large batch of long answers.
sim preempt --explain --model llama-3.1-70b --hardware h100-sxm --tp 4 --gpu-memory-utilization 0.55 --num-prompts 400 \
  --max-concurrency 400 --input-len 2000 --output-len 1500
# Poisson arrivals.
sim poisson --model llama-3.1-8b --hardware h200 --num-prompts 1500 --request-rate 25 --burstiness 1 \
  --output-len 300 --range-ratio 0.5 --seed 7
# TP2 with DP4, and a warm-up.
sim tp2dp4 --model llama-3.1-70b --hardware h200 --gpus 8 --tp 2 --dp 4 --num-prompts 800 --warmup 100 \
  --max-concurrency 256 --output-len 256
# Disaggregated prefill / decode.
sim disagg --explain --model llama-3.1-70b --hardware h200 --prefill-workers 2 --prefill-tp 2 --decode-workers 1 \
  --decode-tp 4 --num-prompts 400 --max-concurrency 96 --input-len 3000 --output-len 200
# Prefix caching: groups sharing a system prompt, then a cache too small to keep them.
sim shared-prefix --model llama-3.1-8b --hardware h200 --dataset shared-prefix --gsp-num-groups 16 \
  --gsp-prompts-per-group 20 --max-concurrency 64
sim prefix-evict --explain --model llama-3.1-70b --hardware h100-sxm --tp 4 --gpu-memory-utilization 0.6 \
  --dataset shared-prefix --gsp-num-groups 64 --gsp-prompts-per-group 8 --gsp-system-prompt-len 8000 \
  --max-concurrency 128
# Sessions: multi-turn with think time, and a published trace.
sim multi-turn --model llama-3.1-8b --hardware h200 --dataset multi-turn --num-prompts 300 --mt-turns 4 \
  --mt-system-prompt-len 500 --think-time-ms 300 --max-concurrency 40
sim trace --model llama-3.1-70b --hardware h200 --tp 8 --precision fp8 --dataset trace \
  --trace "$repo/data/traces/mooncake_sample.jsonl" --num-prompts 200
# Cancellations.
sim cancel --model llama-3.1-8b --hardware h200 --num-prompts 600 --max-concurrency 64 --output-len 300 \
  --cancel-fraction 0.3 --cancel-after-tokens 40
# A concurrency sweep (SweepConcurrency, on the machine's threads).
sim sweep --model llama-3.1-70b --hardware h200 --tp 8 --precision fp8 --num-prompts 300 \
  --concurrency 1,8,64,256 --output-len 200
echo "wrote $(ls | wc -l) files to $out"
