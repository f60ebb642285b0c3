#!/usr/bin/env python3
"""Reads MLPerf Inference v6.0's datacenter closed Llama 2 70B results on the
catalogued GPUs from a git clone of github.com/mlcommons/inference_results_v6.0
into data/published/mlperf-v6.0.json: tokens per second from each run's
mlperf_log_summary.txt (the Server sample rate from mlperf_log_detail.txt),
weight format from the run's measurements.json, software from the system
description and the AMD setup configs, engine limits from the submitters'
configs. Each row's source names the file at the clone's commit.

Usage: scripts/read-mlperf-v6.py PATH_TO_CLONE   (rewrites the output file;
then scripts/import-mlperf.py makes the validation records)
"""
import json
import os
import re
import subprocess
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data/published/mlperf-v6.0.json")
R = sys.argv[1] if len(sys.argv) > 1 else "."
COMMIT = subprocess.check_output(["git", "-C", R, "rev-parse", "HEAD"], text=True).strip()
UP = "https://github.com/mlcommons/inference_results_v6.0/blob/%s/" % COMMIT
FILES = subprocess.check_output(["git", "-C", R, "ls-tree", "-r", "HEAD", "--name-only"], text=True).split("\n")
def show(p):
    return subprocess.check_output(["git", "-C", R, "show", "HEAD:" + p], text=True)
def summary(sub, sysn, bench, scen):
    p = "closed/%s/results/%s/%s/%s/performance/run_1/mlperf_log_summary.txt" % (sub, sysn, bench, scen)
    t = show(p)
    d = {"path": p}
    if scen == "Offline":
        d["tokens"] = float(re.search(r"^Tokens per second\s*:\s*([\d.eE+]+)", t, re.M).group(1))
        d["samples"] = float(re.search(r"^Samples per second\s*:\s*([\d.eE+]+)", t, re.M).group(1))
        d["samples_src"] = "'Samples per second'"
        d["samples_exact"] = d["samples"]
    else:
        d["tokens"] = float(re.search(r"^Completed tokens per second\s*:\s*([\d.eE+]+)", t, re.M).group(1))
        d["samples"] = float(re.search(r"^Completed samples per second\s*:\s*([\d.eE+]+)", t, re.M).group(1))
        det = show(p.replace("mlperf_log_summary.txt", "mlperf_log_detail.txt"))
        m = re.search(r'"key": "result_completed_samples_per_sec", "value": ([\d.]+)', det)
        d["samples_exact"] = float(m.group(1))
        m1 = re.search(r"^ttft_latency \(ns\)\s*:\s*(\d+)", t, re.M); m2 = re.search(r"^tpot_latency \(ns\)\s*:\s*(\d+)", t, re.M)
        d["ttft_ms"] = int(m1.group(1)) // 1000000; d["tpot_ms"] = int(m2.group(1)) // 1000000
    d["valid"] = "Result is : VALID" in t
    return d
def measurement(sub, sysn, bench, scen):
    pre = "closed/%s/measurements/%s/%s/%s/" % (sub, sysn, bench, scen)
    for f in FILES:
        if f.startswith(pre) and f.endswith(".json"):
            try:
                return f, json.loads(show(f)).get("weight_data_types")
            except Exception:
                pass
    return None, None
def system(sub, sysn):
    p = "closed/%s/systems/%s.json" % (sub, sysn)
    return p, json.loads(show(p))
def yaml_fields(p):
    t = show(p); out = {}
    for k in ("tensor_parallel_size", "max_num_seqs", "max_num_batched_tokens", "gpu_memory_utilization", "quantization", "kv_cache_dtype", "enforce_eager", "model", "enable_chunked_prefill", "num_scheduler_steps"):
        m = re.search(r"^\s*%s:\s*(\S+)" % k, t, re.M)
        if m: out[k] = m.group(1)
    return out
PUB = "2026-03-26"
ROUND = "MLPerf Inference v6.0"
MIR = " (read from a mirror of github.com/mlcommons/inference_results_v6.0 at commit %s)" % COMMIT[:8]
AMD_BUILD = ("vLLM 0.14 preview for ROCm (base image rocm/vllm-dev:preview_0.14_7139802818885a4f4e5aff75e7de98c908135a14_20260113, "
             "VLLM_REV 11b6af528 with the submitters' llama2-70b patch, AITER 6af8b6874), ROCm 7.0.0")
ROWS = [
 # submitter, system dir, hardware, short name, scenarios, config kind
 ("AMD", "8xMI355X_2xEPYC_9575F", "mi355x", "8xmi355x-amd", ["Offline", "Server", "Interactive"], "amd355"),
 ("Dell", "8xMI355X_2xEPYC_9655", "mi355x", "8xmi355x-dell", ["Offline", "Server", "Interactive"], "amd355"),
 ("GigaComputing", "8xMI355X_2xEPYC-9575F", "mi355x", "8xmi355x-gigacomputing", ["Offline", "Server", "Interactive"], "amd355"),
 ("HPE", "HPE_ProLiant_XD685_MI355X_288GBx8", "mi355x", "8xmi355x-hpe", ["Offline", "Server", "Interactive"], "amd355"),
 ("ORACLE", "8xMI355X_2xEPYC_9575F", "mi355x", "8xmi355x-oracle", ["Offline", "Server", "Interactive"], "amd355"),
 ("Supermicro", "8xMI355X_2xEPYC-9575F", "mi355x", "8xmi355x-supermicro", ["Offline", "Server", "Interactive"], "amd355"),
 ("Dell", "8xMI300X_2xPlatinum_8470", "mi300x", "8xmi300x-dell", ["Offline", "Server"], "dell300"),
 ("HPE", "HPE_ProLiant_XD685_B200_SXM_192GBx8_TRT", "b200", "8xb200-hpe", ["Offline", "Server", "Interactive"], "hpeb200"),
 ("Supermicro", "SYS-822GS-NBRT_B200-SXM-180GB_TRT", "b200", "8xb200-supermicro", ["Offline", "Server"], "smcb200"),
 ("MangoBoost", "8xMI300X_2xEPYC_9534", "mi300x", "8xmi300x-mangoboost", ["Offline", "Server"], "llmboost"),
 ("MangoBoost", "8xMI325X_2xEPYC_9655", "mi325x", "8xmi325x-mangoboost", ["Offline", "Server"], "llmboost"),
 ("Dell_MangoBoost", "8xMI355X_2xEPYC_9965", "mi355x", "8xmi355x-dell-mangoboost", ["Offline", "Server"], "llmboost"),
 ("NVIDIA", "GB200-NVL72_GB200-186GB_aarch64x72_TRT", "gb200", "72xgb200", ["Offline", "Server", "Interactive"], "gb200x72"),
 ("AMD", "87xMI355X_22xEPYC_9575F", "mi355x", "87xmi355x-amd", ["Offline", "Server", "Interactive"], "amd355mn"),
]
def amd355_cfg(sub, scen):
    s = scen.lower()
    cands = ["closed/%s/src/llama2-70b-99/%s_mi355x.yaml" % (sub, s), "closed/%s/src/llama2-70b-99/%s_MI355X.yaml" % (sub, s)]
    for c in cands:
        if c in FILES: return c
    raise SystemExit("no config for %s %s" % (sub, scen))
def setup_cfg(sub):
    for n in ("vllm_gfx950.config", "vllm_gfx9xx.config"):
        p = "closed/%s/setup/llama2-70b-99/%s" % (sub, n)
        if p in FILES: return p
def nv_cfg(sub, sysdir, scen):
    p = "closed/%s/configs/%s/%s/llama2-70b.py" % (sub, sysdir, scen)
    return p if p in FILES else None
def nv_fields(p):
    t = show(p)
    # the 0.99 entry comes first in each file
    first = t.split("C.AccuracyTarget(0.999)")[0]
    g = lambda pat: (re.search(pat, first) or [None, None])[1]
    return {"tp": g(r"tensor_parallelism:\s*(\d+)"), "batch": g(r"'llama2-70b':\s*(\d+)"),
            "tokens": g(r"'max_num_tokens':\s*(\d+)"), "precision": g(r"precision:\s*'(\w+)'"),
            "qps": g(r"(?:offline_expected_qps|server_target_qps):\s*([\d.]+)"), "kv": g(r"'kv_cache_dtype':\s*'(\w+)'")}
out = []
for sub, sysn, hw, short, scens, kind in ROWS:
    sp, sj = system(sub, sysn)
    for scen in scens:
        s = summary(sub, sysn, "llama2-70b-99", scen)
        try:
            s9 = summary(sub, sysn, "llama2-70b-99.9", scen)
            same = abs(s9["tokens"] - s["tokens"]) < 1e-6
        except subprocess.CalledProcessError:
            s9 = None; same = None
        mp = "closed/%s/results/%s/llama2-70b-99/%s/measurements.json" % (sub, sysn, scen)
        wdt = json.loads(show(mp)).get("weight_data_types") if mp in FILES else None
        sc = scen.lower()
        r = {"id": "mlperf6.0-llama2-%s-%s" % (sc, short), "published": PUB,
             "source": UP + s["path"] + MIR, "round": ROUND, "submitter": sub.replace("_", " + ") if sub == "Dell_MangoBoost" else sub,
             "system": "%s (%sx %s; %s)" % (sj.get("system_name"), sj.get("accelerators_per_node") if str(sj.get("number_of_nodes")) == "1" else "%s nodes x %s" % (sj.get("number_of_nodes"), sj.get("accelerators_per_node")), sj.get("accelerator_model_name"), sj.get("framework")),
             "model": "llama-2-70b", "hardware": hw,
             "gpus": int(sj["accelerators_per_node"]) * int(sj["number_of_nodes"]) if kind != "amd355mn" else 87}
        cfgnote = None
        if kind in ("amd355", "dell300"):
            cp = amd355_cfg(sub, scen) if kind == "amd355" else "closed/Dell/src_mi300x/llama2-70b-99/harness_llm/models/llama2-70b/%s_mi300x.yaml" % sc
            y = yaml_fields(cp)
            desc = UP + cp + " (vllm_engine_config: " + ", ".join("%s %s" % (k, v) for k, v in y.items() if k != "model") + "; model %s; one engine per GPU)" % y.get("model")
            r["tp"] = {"value": int(y["tensor_parallel_size"]), "source": desc}
            r["precision"] = wdt
            r["precision_source"] = "weight_data_types '%s' in %s" % (wdt, mp)
            if kind == "amd355":
                stp = setup_cfg(sub)
                r["software"] = {"value": AMD_BUILD, "source": "%s (VLLM_REV, AITER_REV, DOCKER_BASE_IMAGE); %s 'framework': '%s'" % (stp, sp, sj.get("framework"))}
            else:
                r["software"] = {"value": sj["framework"], "source": sp + " 'framework'"}
            r["max_num_seqs"] = {"value": int(y["max_num_seqs"]), "source": desc}
            r["max_num_batched_tokens"] = {"value": int(y["max_num_batched_tokens"]), "source": desc}
            if y.get("enforce_eager") == "True":
                r["enforce_eager"] = {"value": True, "source": desc}
        elif kind in ("hpeb200", "smcb200"):
            cdir = {"hpeb200": "HPE_ProLiant_XD685_B200_SXM_192GBx8", "smcb200": "SYS-822GS-NBRT_B200-SXM-180GB"}[kind]
            cp = nv_cfg(sub, cdir, scen); f = nv_fields(cp)
            desc = UP + cp + " (Custom harness, accuracy 0.99, MaxP entry: tensor_parallelism %s, gpu_batch_size %s, runtime max_num_tokens %s, precision %s, kv_cache_dtype %s, %s %s)" % (f["tp"], f["batch"], f["tokens"], f["precision"], f["kv"], "offline_expected_qps" if scen == "Offline" else "server_target_qps", f["qps"])
            r["tp"] = {"value": int(f["tp"]), "source": desc}
            r["precision"] = wdt
            r["precision_source"] = "weight_data_types '%s' in %s" % (wdt, mp)
            if kind == "hpeb200":
                r["software"] = {"value": "TensorRT 10.11, CUDA 13.0; TensorRT-LLM commit 18c0333e", "source": sp + " 'framework'; TensorRT-LLM commit from TRTLLM_HASH in closed/HPE/TRT_10_11_Makefiles/Makefile.build"}
            else:
                r["software"] = {"value": "TensorRT 10.14, CUDA 13.1; TensorRT-LLM of NVIDIA's v6.0 submission (feat/1.2-mlpinf)", "source": sp + " 'framework'; the TensorRT-LLM branch from closed/NVIDIA/systems/GB200-NVL72_GB200-186GB_aarch64x72_TRT.json 'framework' (closed/Supermicro/Makefile.build takes the hash of the checkout it builds, so the commit is not recorded)"}
            r["max_num_seqs"] = {"value": int(f["batch"]), "source": desc}
            r["max_num_batched_tokens"] = {"value": int(f["tokens"]), "source": desc}
        else:
            r["tp"] = {"value": None, "source": {"llmboost": "MangoBoost's LLMBoost engine: no catalogued stack, its configuration not read",
                                                 "gb200x72": UP + "closed/NVIDIA/configs/GB200-NVL72_GB200-186GB_aarch64x72/%s/llama2-70b.py sets no tensor or pipeline parallelism (the harness's defaults, isl_load_balancing over 72 GPUs on 18 nodes, max_concurrency 2048): not read" % scen,
                                                 "amd355mn": "11 nodes, 87 GPUs (closed/AMD/src/llama2-70b-99/%s_mi355x_mn.yaml): multi-node, not simulated" % sc}[kind]}
            r["precision"] = wdt
            r["precision_source"] = "weight_data_types '%s' in %s" % (wdt, mp)
            r["software"] = {"value": sj.get("framework"), "source": sp + " 'framework'"}
        r["workload"] = {"dataset": "openorca-mlperf", "output_mean": {"value": round(s["tokens"] / s["samples_exact"], 2),
            "source": "tokens per second over samples per second in the same run: %s / %s (%s)" % (s["tokens"], s["samples_exact"],
              "'Samples per second' in the run's summary" if scen == "Offline" else "result_completed_samples_per_sec in the run's mlperf_log_detail.txt; the summary rounds it to %s" % s["samples"])}}
        r["scenario"] = sc
        r["metric"] = "output_tokens_per_s"
        r["value"] = {"value": s["tokens"], "source": ("'Tokens per second'" if scen == "Offline" else "'Completed tokens per second'") + " in the run's summary"}
        r["samples_per_s"] = {"value": s["samples"], "source": ("'Samples per second'" if scen == "Offline" else "'Completed samples per second'") + " in the run's summary"}
        r["result_valid"] = {"value": s["valid"], "source": "'Result is : VALID' in the run's summary"}
        if scen != "Offline":
            r["ttft_p99_limit_ms"] = s["ttft_ms"]; r["tpot_p99_limit_ms"] = s["tpot_ms"]
            r["limits_source"] = "'ttft_latency (ns)' and 'tpot_latency (ns)' in the run's summary" + (" (the loadgen scenario is Server, MLPerf's Interactive latency class)" if scen == "Interactive" else "")
        if s9 is not None:
            r["notes"] = "the llama2-70b-99.9 result of the same system and scenario reports %s tokens/s (%s)" % (s9["tokens"], "the same run's log" if same else "a different figure")
        out.append(r)
about = ("MLPerf Inference v6.0 (results published 2026-03-26, the 'Publishing Results' commit ab33b214 of github.com/mlcommons/inference_results_v6.0) "
         "datacenter closed-division Llama 2 70B results on the catalogued GPUs: tokens per second read from each run's mlperf_log_summary.txt "
         "in github.com/mlcommons/inference_results_v6.0 (mirror at commit %s), engine limits from the submitters' configs; "
         "rows are under 'unvetted_results' so that data/validation's loader does not read them (scripts/import-mlperf.py makes the records). "
         "Each row is the llama2-70b-99 result; the llama2-70b-99.9 results are the same runs (each row's notes). Rows with tp null are catalogued but not "
         "simulated (no catalogued stack, or a multi-node deployment whose parallelism the configs do not give)." % COMMIT[:8])
json.dump({"about": about, "unvetted_results": out}, open(OUT, "w"), indent=2, ensure_ascii=False)
open(OUT, "a").write("\n")
print('wrote %d rows to data/published/mlperf-v6.0.json' % len(out))
for r in out:
    print(r["id"], r["hardware"], r["gpus"], r["precision"], r["tp"]["value"], r.get("max_num_seqs", {}).get("value"), r.get("max_num_batched_tokens", {}).get("value"), r["value"]["value"], r["workload"]["output_mean"]["value"], r["result_valid"]["value"], r.get("ttft_p99_limit_ms"), r.get("tpot_p99_limit_ms"), r.get("notes", "")[-30:])
