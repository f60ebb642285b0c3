#!/usr/bin/env python3
"""Turns InferenceX DeepSeek-R1 rows (data/published/inferencex-dsr1.json, copied
from InferenceX's published benchmark fixture, and inferencex-dsr1-history.json,
more concurrencies of the same runs) into validation records
(data/validation/inferencex-dsr1-2026.json) for `frontier validate` and
`frontier calibrate`.

Kept: single-engine runs (no disaggregation), no MTP (the draft acceptance
is not published), 1k/1k, 8k/1k and 1k/8k, of the builds a catalogued stack
version describes: SGLang v0.5.9 and v0.5.12 (CUDA and ROCm) and TensorRT-LLM
1.3.0rc14.

Each record also carries the deployment its run launched (memory fraction,
running-request cap, chunked-prefill size or token budget, KV-cache dtype,
context length, checkpoint), read from InferenceX's launch script and sweep
config at the commit the run used (COMMITS below: commit, script; the lines in
launch()), with the script's conditions on ISL, OSL, concurrency and TP. Every
cited line is checked to hold the value or the flag or variable it names.

Usage: scripts/import-inferencex.py   (rewrites the output file)
"""
import json
import os
import re
import subprocess

from published_records import ROOT, write_records

# A mirror of https://github.com/SemiAnalysisAI/InferenceX (git clone --mirror),
# where the sweep configs are read at each run's commit.
INFERENCEX_GIT = os.environ.get("INFERENCEX_GIT", "")


def subprocess_show(commit, path):
    if not INFERENCEX_GIT:
        raise SystemExit("set INFERENCEX_GIT to a clone of https://github.com/SemiAnalysisAI/InferenceX")
    return subprocess.run(["git", "-C", INFERENCEX_GIT, "show", "%s:%s" % (commit, path)], check=True,
                          capture_output=True, text=True).stdout

SRC = os.path.join(ROOT, "data/published/inferencex-dsr1.json")
# More concurrencies of the same runs, from the history fixture
# (scripts/read-inferencex-history.py): no image of their own, no mean latencies.
HISTORY = os.path.join(ROOT, "data/published/inferencex-dsr1-history.json")
OUT = os.path.join(ROOT, "data/validation/inferencex-dsr1-2026.json")

# (framework, version, vendor) -> catalogued stack version.
STACKS = {
    ("sglang", "v0.5.9", "nvidia"): "sglang-cuda@0.5.9",
    ("sglang", "v0.5.9", "amd"): "sglang-rocm@0.5.9",
    ("sglang", "v0.5.12", "nvidia"): "sglang-cuda@0.5.12",
    ("sglang", "v0.5.12", "amd"): "sglang-rocm@0.5.12",
    ("trt", "1.3.0rc14", "nvidia"): "trtllm@1.3",
}
VENDOR = {"h100": "nvidia", "h200": "nvidia", "b200": "nvidia", "gb200": "nvidia",
          "mi300x": "amd", "mi325x": "amd", "mi355x": "amd"}
CLIENT = ("InferenceX's client: the random dataset with --random-range-ratio 0.8 (lengths uniform in "
          "[0.8, 1.0] x ISL and OSL, mean 0.9 x), --num-prompts 10 x concurrency, --ignore-eos "
          "(https://github.com/jyothisambolu/InferenceMAX/blob/main/README.md, 'Benchmark Client Configuration')")


REPO = "https://github.com/SemiAnalysisAI/InferenceX/blob/"

# The commit each group of runs launched from: the pull request (merged to
# main) that set the sweep config's image to the record's build, or for runs
# after that the main commit of the run's date; the launch script and the
# config at that commit are what the Actions run executed.
#   key: (hardware, stack, fp4?) -> (commit, script, config file, config line of `model:`)
COMMITS = {
    ("h200", "sglang-cuda@0.5.9", False): ("12ba0ae07289e3212840f8f59913ddee97b07f73", "dsr1_fp8_h200.sh", "nvidia", 2025),
    ("h200", "sglang-cuda@0.5.12", False): ("aa2df9534e6dc963516d8d7950042ae7e752d109", "dsr1_fp8_h200.sh", "nvidia", 2638),
    ("h200", "trtllm@1.3", False): ("8c5128a95a084a1981f7c639cd664a9c524ab166", "dsr1_fp8_h200_trt.sh", "nvidia", 3164),
    ("b200", "sglang-cuda@0.5.12", False): ("6a4fe2a1272bcd6c9df8ea6539f593088ba90437", "dsr1_fp8_b200.sh", "nvidia", 1961),
    ("b200", "sglang-cuda@0.5.12", True): ("6a4fe2a1272bcd6c9df8ea6539f593088ba90437", "dsr1_fp4_b200.sh", "nvidia", 1674),
    ("b200", "trtllm@1.3", False): ("e43ae2f1b3251d9995d788eb31f602fa4836d975", "dsr1_fp8_b200_trt.sh", "nvidia", 2780),
    ("b200", "trtllm@1.3", True): ("0d8d1f93de663930eddaaa3304d9f870e485e507", "dsr1_fp4_b200_trt.sh", "nvidia", 1877),
    ("mi300x", "sglang-rocm@0.5.9", False): ("f267602ff7825dc02eaf81f512f50f380d6d39f9", "dsr1_fp8_mi300x.sh", "amd", 77),
    ("mi325x", "sglang-rocm@0.5.9", False): ("f267602ff7825dc02eaf81f512f50f380d6d39f9", "dsr1_fp8_mi325x.sh", "amd", 99),
    ("mi300x", "sglang-rocm@0.5.12", False): ("e6212e9e46a71b4f823a9c8552acd138f56506c5", "dsr1_fp8_mi300x.sh", "amd", 70),
    ("mi325x", "sglang-rocm@0.5.12", False): ("57b5dbd57c99fa5e0bceafb3865b2bc0ec2a2f92", "dsr1_fp8_mi325x.sh", "amd", 89),
    ("mi355x", "sglang-rocm@0.5.12", False): ("bfad6df76985d1bf9ae20e914a5f81862bd3397c", "dsr1_fp8_mi355x.sh", "amd", 131),
    ("mi355x", "sglang-rocm@0.5.12", True): ("d5767dd7527ff1d9aac199d58bdb0facfa39fe3f", "fixed_seq_len/dsr1_fp4_mi355x.sh", "amd", 3),
}

# The checkpoint a run's MODEL names -> the catalog entry that models it.
CHECKPOINTS = {
    "deepseek-ai/DeepSeek-R1-0528": "deepseek-r1",
    "nvidia/DeepSeek-R1-0528-FP4-V2": "deepseek-r1-0528-nvfp4-v2",
    "amd/DeepSeek-R1-0528-MXFP4-Preview": "deepseek-r1-0528-mxfp4",
}
SGLANG_AUTO_KV = ("SGLang's --kv-cache-dtype auto (not set by the script) keeps the model's dtype, BF16, unless the "
                  "checkpoint's quantization config names an FP8 KV cache (model_runner.py, configure_kv_cache_dtype); "
                  "DeepSeek-R1-0528's quantization_config (fp8, 128x128 blocks) names none")


def check_lines(commit, script_path, fields):
    """Fails unless every cited line of the launch script holds the value, or a flag or
    variable the citation names: a line number that drifted, or a rule that reads the
    wrong script, stops the import instead of writing a wrong source."""
    text = subprocess_show(commit, script_path).splitlines()
    for field, (value, line, what) in fields.items():
        if line is None:
            continue
        tokens = [str(value)] + re.findall(r"[A-Z][A-Z_]{3,}", what) + re.findall(r"--[\w-]+", what)
        for n in str(line).split(", "):
            held = text[int(n) - 1] if 0 < int(n) <= len(text) else ""
            if not any(t in held for t in tokens):
                raise SystemExit("%s:%s line %s holds none of %s for %s = %s (%s): fix the rule or the line in "
                                 "scripts/import-inferencex.py" % (commit[:12], script_path, n, tokens, field, value, what))


def launch(r, stack):
    """The deployment fields of one run: {field: (value, line, what the script says)} plus the checkpoint."""
    hw, isl, osl, conc, tp = r["hardware"], r["isl"], r["osl"], r["concurrency"], r["tp"]
    fp4 = r["precision"] == "fp4"
    key = (hw, stack, fp4)
    commit, script, vendor, model_line = COMMITS[key]
    f = {}
    if hw == "h200" and stack.startswith("sglang"):
        # 1k/1k one launch line, every other length the other.
        if isl == 1024 and osl == 1024:
            f["max_num_seqs"] = (512, 40 if stack.endswith("0.5.12") else 34, "--max-running-requests 512")
            f["max_num_batched_tokens"] = (32768, 41 if stack.endswith("0.5.12") else 35, "--chunked-prefill-size 32768")
            f["gpu_memory_utilization"] = (0.82, 41 if stack.endswith("0.5.12") else 35, "--mem-fraction-static 0.82")
        else:
            f["max_num_seqs"] = (256, 49 if stack.endswith("0.5.12") else 43, "--max-running-requests 256")
            f["max_num_batched_tokens"] = (32768, 50 if stack.endswith("0.5.12") else 44, "--chunked-prefill-size 32768")
            f["gpu_memory_utilization"] = (0.82, 50 if stack.endswith("0.5.12") else 44, "--mem-fraction-static 0.82")
        f["kv_precision"] = ("bf16", None, SGLANG_AUTO_KV)
    elif hw == "b200" and stack.startswith("sglang") and not fp4:
        if tp == 8:
            f["max_num_seqs"] = (128, 38, "MAX_RUNNING_REQUESTS=128 (TP 8), passed as --max-running-requests")
            f["gpu_memory_utilization"] = (0.82, 41, "MEM_FRAC_STATIC=0.82 (TP 8), passed as --mem-fraction-static")
            f["max_num_batched_tokens"] = (32768, 42, "CHUNKED_PREFILL_SIZE=32768 (TP 8), passed as --chunked-prefill-size")
        else:
            f["max_num_seqs"] = (32, 52, "MAX_RUNNING_REQUESTS=32 (TP 4), passed as --max-running-requests")
            f["gpu_memory_utilization"] = (0.95, 55, "MEM_FRAC_STATIC=0.95 (TP 4), passed as --mem-fraction-static")
            f["max_num_batched_tokens"] = (8192, 56, "CHUNKED_PREFILL_SIZE=8192 (TP 4), passed as --chunked-prefill-size")
        f["kv_precision"] = ("fp8", 78, "--kv-cache-dtype fp8_e4m3")
    elif hw == "b200" and stack.startswith("sglang"):
        f["max_num_seqs"] = (256, 45, "--max-running-requests 256")
        f["gpu_memory_utilization"] = (0.85, 45, "--mem-fraction-static 0.85")
        f["kv_precision"] = ("fp8", 45, "--kv-cache-dtype fp8_e4m3")
        f["max_num_batched_tokens"] = (16384, 46, "--chunked-prefill-size 16384")
    elif stack == "trtllm@1.3":
        # max_num_tokens = max(ceil64(CONC + ISL + 64), 8192); max_seq_len = max(ISL + OSL + 256, 8192)
        # (MAX_MODEL_LEN is isl + osl + 256 from utils/matrix_logic/generate_sweep_configs.py).
        tokens = max((conc + isl + 64 + 63) // 64 * 64, 8192)
        seq = max(isl + osl + 256, 8192)
        lines = {("h200", False): (42, 41, (63, 65), (64, 78)),
                 ("b200", False): (33, 62, (91, 93), (92, 122)),
                 ("b200", True): (55, 54, (76, 78), (77, 104))}[(hw, fp4)]
        frac, frac_line = 0.8, lines[0]
        if hw == "h200":
            frac = 0.75
        elif not fp4 and isl == 8192 and osl == 1024 and tp == 4:
            frac, frac_line = 0.75, 45
        f["gpu_memory_utilization"] = (frac, frac_line, "kv_cache_config.free_gpu_memory_fraction %g" % frac)
        f["kv_precision"] = ("fp8", lines[1], "kv_cache_config.dtype: fp8")
        f["max_num_batched_tokens"] = (tokens, "%d, %d" % lines[2],
                                       "MAX_NUM_TOKENS = max(ceil64(CONC + ISL + 64), 8192) = %d, passed as "
                                       "--max_num_tokens" % tokens)
        f["max_model_len"] = (seq, "%d, %d" % lines[3],
                              "MAX_MODEL_LEN = max(ISL + OSL + 256, 8192) = %d, passed as --max_seq_len" % seq)
    else:  # SGLang on ROCm
        lines = {("mi300x", "sglang-rocm@0.5.9"): (43, 45, 48), ("mi325x", "sglang-rocm@0.5.9"): (33, 35, 38),
                 ("mi300x", "sglang-rocm@0.5.12"): (51, 53, 56), ("mi325x", "sglang-rocm@0.5.12"): (42, 44, 47),
                 ("mi355x", "fp8"): (46, 45, 49), ("mi355x", "fp4"): (45, None, 51)}
        k = (hw, stack) if hw != "mi355x" else (hw, "fp4" if fp4 else "fp8")
        mem, chunk, kv = lines[k]
        size = 131072 if hw != "mi355x" else 196608
        what = "--chunked-prefill-size %d" % size
        if fp4:
            # PREFILL_SIZE=196608 (line 23), set to 32768 (line 26) when ISL is 8192, OSL 1024 and
            # CONC above 32 (lines 24-25); passed as --chunked-prefill-size=$PREFILL_SIZE (line 44).
            if isl == 8192 and osl == 1024 and conc > 32:
                size, chunk = 32768, "26, 44"
                what = "PREFILL_SIZE=32768 at ISL 8192, OSL 1024 and CONC %d > 32 (196608 otherwise)" % conc
            else:
                chunk = "23, 44"
                what = "PREFILL_SIZE=196608 (32768 only at ISL 8192, OSL 1024 above CONC 32)"
            what += ", passed as --chunked-prefill-size=$PREFILL_SIZE"
        f["gpu_memory_utilization"] = (0.8, mem, "--mem-fraction-static 0.8")
        f["max_num_batched_tokens"] = (size, chunk, what)
        f["kv_precision"] = ("fp8", kv, "--kv-cache-dtype fp8_e4m3")
    script_path = "benchmarks/single_node/" + script
    check_lines(commit, script_path, f)
    out = {}
    for field, (value, line, what) in f.items():
        first = str(line).split(",")[0]
        where = REPO + commit + "/" + script_path + ("#L" + first if line else "")
        lines = ("lines " + str(line).replace(", ", " and ")) if "," in str(line) else "line %s" % line
        out[field] = {"value": value, "source": ("%s (%s, %s)" % (what, where, lines)) if line else
                      "%s; the launch script %s sets no KV-cache dtype" % (what, where)}
    cfg = ".github/configs/%s-master.yaml" % vendor
    return out, commit, script_path, cfg, model_line


def main():
    rows = json.load(open(SRC))["results"] + json.load(open(HISTORY))["results"]
    out = []
    for r in rows:
        vendor = VENDOR.get(r["hardware"])
        stack = STACKS.get((r["framework"], r["framework_version"], vendor))
        if stack is None or r["mtp"] or r["disagg"] or (r["isl"], r["osl"]) not in ((1024, 1024), (8192, 1024), (1024, 8192)):
            continue
        gpus = r["gpus"]
        fields, commit, script_path, cfg, model_line = launch(r, stack)
        # The checkpoint: the sweep config's `model:` at the run's commit.
        cfg_text = subprocess_show(commit, cfg)
        checkpoint = cfg_text.splitlines()[model_line - 1].split("model:")[1].strip()
        history = "image_from" in r
        image = r["image"] if history else r["raw"]["image"]
        rec = {
            "id": r["id"],
            "published": r["published"],
            "source": r["source"] + "; run " + r["raw"]["run_url"],
            "submitter": "SemiAnalysis (InferenceX)",
            "system": "%dx %s (%s, image %s)" % (gpus, r["hardware"].upper(), r["framework"], image),
            "model": CHECKPOINTS[checkpoint],
            "checkpoint": {"value": checkpoint,
                           "source": "the sweep config's model: (%s%s/%s#L%d), loaded by %s%s/%s" % (
                               REPO, commit, cfg, model_line, REPO, commit, script_path)},
            "hardware": "h100-sxm" if r["hardware"] == "h100" else r["hardware"],
            "gpus": gpus,
            "tp": r["tp"],
            # The checkpoint's own formats (the catalog entry's precision and ffn_precision).
            "precision": "native",
            "stack": stack,
            "workload": {
                "input_len": round(0.9 * r["isl"]),
                "output_len": round(0.9 * r["osl"]),
                # [0.8, 1.0] x ISL is [(1 - r) L, (1 + r) L] for L = 0.9 ISL, r = 1/9.
                "range_ratio": round(1 / 9, 4),
                "num_prompts": 10 * r["concurrency"],
            },
            "scenario": "closed_loop",
            "concurrency": r["concurrency"],
            "metric": "output_tokens_per_s",
            "value": {
                "value": round(r["output_tput_per_gpu"] * gpus, 3),
                "source": "output_tput_per_gpu x %d GPUs (the %sfixture's per-GPU output throughput)" % (
                    gpus, "history " if history else ""),
            },
        }
        if not history:
            rec["mean_tpot_ms"] = {"value": round(r["raw"]["metrics"]["mean_tpot"] * 1000, 4),
                                   "source": "metrics.mean_tpot (seconds) x 1000"}
            rec["mean_ttft_ms"] = {"value": round(r["raw"]["metrics"]["mean_ttft"] * 1000, 3),
                                   "source": "metrics.mean_ttft (seconds) x 1000"}
        rec["notes"] = "lengths: " + CLIENT + ", drawn alike (range_ratio 1/9 about the mean)." + (
            " The history fixture gives no image (the run's image is that of " + r["image_from"] + ") and no "
            "mean latencies." if history else "")
        rec.update(fields)
        if r["ep"] > 1:
            rec["ep"] = r["ep"]
        if r["dp_attention"]:
            rec["attention_dp"] = True
        out.append(rec)
    write_records(OUT, ("DeepSeek-R1-0528 serving runs published by InferenceX (SemiAnalysis), 2026, as validation "
                        "records: made by scripts/import-inferencex.py from data/published/inferencex-dsr1.json and "
                        "inferencex-dsr1-history.json. "
                        "Rows on H200, MI300X and MI325X may be fitted; rows on B200 and MI355X never are."), out)


if __name__ == "__main__":
    main()
