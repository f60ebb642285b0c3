#!/usr/bin/env python3
"""Turns the MLPerf Inference v5.1 and v6.0 rows read from the submitters'
logs (data/published/mlperf-v5.1.json, mlperf-v6.0.json) into validation
records (data/validation/mlperf-v5.1.json, mlperf-v6.0.json) for `frontier
validate` and `frontier calibrate`: each row gets the catalogued stack version that describes its
build, wrapped fields the loader reads, and MLPerf's Interactive scenario
becomes a Server run under its tighter limits (450 ms TTFT, 40 ms TPOT at the
99th percentile; LoadGen runs it as Server).

Kept: Llama 2 70B and Mixtral 8x7B (the datasets data/validation/datasets.json
has), every system with a configuration found (tp known).

Usage: scripts/import-mlperf.py   (rewrites both output files)
"""
import json
import os

from published_records import ROOT, write_records

ROUNDS = {
    "v5.1": ("MLPerf Inference v5.1 datacenter closed results (published 2025-09-09), Llama 2 70B and "
             "Mixtral 8x7B, made by scripts/import-mlperf.py from data/published/mlperf-v5.1.json (read "
             "from each run's mlperf_log_summary.txt and the submitters' configs). Rows on H200, H200 NVL, "
             "MI300X and MI325X may be fitted; rows on B200 and GB200 never are."),
    "v6.0": ("MLPerf Inference v6.0 datacenter closed results (published 2026-03-26), Llama 2 70B on one "
             "node of 8 GPUs, made by scripts/import-mlperf.py from data/published/mlperf-v6.0.json (read "
             "from each run's mlperf_log_summary.txt and the submitters' configs). Rows on MI300X may be "
             "fitted; rows on B200 and MI355X never are."),
}


# Rows left out, with why.
SKIP = {
    "mlperf5.1-llama2-interactive-8xmi325x":
        "its system lists vLLM 0.6.5 (ROCm 6.3.1), but the only MI325X Interactive configuration published "
        "(interactive_mi325x.yaml) sets VLLM_USE_V1=1, which 0.6.5 does not have: the deployment it ran is not known",
}


def stack_of(software):
    if software.startswith("TensorRT 10.14"):
        return "trtllm@2026.03"
    if software.startswith("vLLM 0.14 preview"):
        return "vllm-rocm@0.14"
    if software.startswith("TensorRT 10.11"):
        return "trtllm@2025.09"
    if software.startswith("vLLM 0.9.0.2"):
        return "vllm-rocm@0.9"
    if software.startswith("vLLM 0.6.5"):
        return "vllm-rocm@0.6.5"
    raise SystemExit("no catalogued stack for software '%s'" % software)


def convert(version):
    src = json.load(open(os.path.join(ROOT, "data/published/mlperf-%s.json" % version)))
    out = []
    for r in src["unvetted_results"]:
        if r["model"] not in ("llama-2-70b", "mixtral-8x7b"):
            continue
        if r["id"] in SKIP:
            print("left out %s: %s" % (r["id"], SKIP[r["id"]]))
            continue
        tp = r.get("tp") or {}
        if tp.get("value") is None:
            print("left out %s: %s" % (r["id"], tp.get("source", "no configuration found")))
            continue
        rec = {k: r[k] for k in ("id", "published", "source", "round", "submitter", "system", "model",
                                 "hardware", "gpus", "precision") if k in r}
        rec["tp"] = tp["value"]
        rec["stack"] = stack_of(r["software"]["value"])
        for k in ("max_num_seqs", "max_num_batched_tokens"):
            if (r.get(k) or {}).get("value") is not None:
                rec[k] = r[k]
        if (r.get("enforce_eager") or {}).get("value") is True:
            rec["enforce_eager"] = True
        rec["workload"] = r["workload"]
        rec["scenario"] = "server" if r["scenario"] == "interactive" else r["scenario"]
        rec["metric"] = r["metric"]
        rec["value"] = r["value"]
        if rec["scenario"] == "server":
            rec["ttft_p99_limit_ms"] = r["ttft_p99_limit_ms"]
            rec["tpot_p99_limit_ms"] = r["tpot_p99_limit_ms"]
        notes = ["software: " + r["software"]["value"] + " (" + r["software"]["source"] + ")"]
        if r["scenario"] == "interactive":
            notes.append("MLPerf Interactive: LoadGen's Server scenario under 450 ms / 40 ms p99 limits")
        if r.get("notes"):
            notes.append(r["notes"])
        rec["notes"] = "; ".join(notes)
        out.append(rec)
    write_records(os.path.join(ROOT, "data/validation/mlperf-%s.json" % version), ROUNDS[version], out)


def main():
    for version in ROUNDS:
        convert(version)


if __name__ == "__main__":
    main()
