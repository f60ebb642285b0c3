#!/usr/bin/env python3
"""Turns InferenceX DeepSeek-R1 rows (data/published/inferencex-dsr1.json, copied
from InferenceX's published benchmark fixture) into validation records
(data/validation/inferencex-dsr1-2026.json) for `frontier validate` and
`frontier calibrate`.

Kept: single-engine runs (no disaggregation), no MTP (the draft acceptance
is not published), 1k/1k, 8k/1k and 1k/8k, of the builds a catalogued stack
version describes: SGLang v0.5.9 and v0.5.12 (CUDA and ROCm) and TensorRT-LLM
1.3.0rc14.

Usage: scripts/import-inferencex.py   (rewrites the output file)
"""
import json
import os

from published_records import ROOT, write_records

SRC = os.path.join(ROOT, "data/published/inferencex-dsr1.json")
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


def main():
    src = json.load(open(SRC))
    out = []
    for r in src["results"]:
        vendor = VENDOR.get(r["hardware"])
        stack = STACKS.get((r["framework"], r["framework_version"], vendor))
        if stack is None or r["mtp"] or r["disagg"] or (r["isl"], r["osl"]) not in ((1024, 1024), (8192, 1024), (1024, 8192)):
            continue
        gpus = r["gpus"]
        rec = {
            "id": r["id"],
            "published": r["published"],
            "source": r["source"] + "; run " + r["raw"]["run_url"],
            "submitter": "SemiAnalysis (InferenceX)",
            "system": "%dx %s (%s, image %s)" % (gpus, r["hardware"].upper(), r["framework"], r["raw"]["image"]),
            "model": "deepseek-r1",
            "hardware": "h100-sxm" if r["hardware"] == "h100" else r["hardware"],
            "gpus": gpus,
            "tp": r["tp"],
            "precision": "native" if r["precision"] == "fp8" else "fp4",
            "stack": stack,
            "workload": {
                "input_len": round(0.9 * r["isl"]),
                "output_len": round(0.9 * r["osl"]),
                "num_prompts": 10 * r["concurrency"],
            },
            "scenario": "closed_loop",
            "concurrency": r["concurrency"],
            "metric": "output_tokens_per_s",
            "value": {
                "value": round(r["output_tput_per_gpu"] * gpus, 3),
                "source": "output_tput_per_gpu x %d GPUs (the fixture's per-GPU output throughput)" % gpus,
            },
            "mean_tpot_ms": {"value": round(r["raw"]["metrics"]["mean_tpot"] * 1000, 4),
                             "source": "metrics.mean_tpot (seconds) x 1000"},
            "mean_ttft_ms": {"value": round(r["raw"]["metrics"]["mean_ttft"] * 1000, 3),
                             "source": "metrics.mean_ttft (seconds) x 1000"},
            "notes": "lengths: the means of " + CLIENT + "; the fixed lengths stand in for the uniform draw.",
        }
        if r["ep"] > 1:
            rec["ep"] = r["ep"]
        if r["dp_attention"]:
            rec["attention_dp"] = True
        out.append(rec)
    write_records(OUT, ("DeepSeek-R1-0528 serving runs published by InferenceX (SemiAnalysis), 2026, as validation "
                        "records: made by scripts/import-inferencex.py from data/published/inferencex-dsr1.json. "
                        "Rows on H200, MI300X and MI325X may be fitted; rows on B200 and MI355X never are."), out)


if __name__ == "__main__":
    main()
