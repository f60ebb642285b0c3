#!/usr/bin/env python3
"""Reads the rows of InferenceX's benchmark history fixture that complete the
runs data/published/inferencex-dsr1.json already holds, into
data/published/inferencex-dsr1-history.json.

InferenceX-app's end-to-end fixtures come in two files taken from the same
production API: benchmarks.json (the latest run of each configuration, with
the container image) and benchmarks-history.json (earlier runs too, and more
concurrencies of the same runs, but no image and no mean latencies). A
history row is kept here when the latest-run fixture holds a row of the same
GitHub Actions run, GPU, framework, precision, parallelism, MTP and
disaggregation: the run launched one image per such configuration, so that
row names the build. Disaggregated rows are left out. Rows the latest-run fixture already holds are not
repeated; the script checks that their throughput is the same in both files.

Usage: scripts/read-inferencex-history.py HISTORY_JSON
  HISTORY_JSON: packages/app/cypress/fixtures/api/benchmarks-history.json of
  InferenceX-app at commit 528c4146b8f502fcbce8df7870a935a970cbae25 (the
  commit data/published/inferencex-dsr1.json was read at; the vngcloud fork
  carries it: git show 528c414:packages/app/cypress/fixtures/api/benchmarks-history.json)
"""
import json
import os
import sys

from published_records import ROOT

COMMIT = "528c4146b8f502fcbce8df7870a935a970cbae25"
URL = ("https://github.com/vngcloud/InferenceX-app/blob/%s/packages/app/cypress/fixtures/api/"
       "benchmarks-history.json" % COMMIT)
LATEST = os.path.join(ROOT, "data/published/inferencex-dsr1.json")
OUT = os.path.join(ROOT, "data/published/inferencex-dsr1-history.json")


def config(run_url, hw, framework, precision, tp, ep, dp_attention, mtp, disagg):
    return (run_url, hw, framework, precision, tp, ep, dp_attention, mtp, disagg)


def row_id(r, version):
    """The id scheme of data/published/inferencex-dsr1.json (its 'fields')."""
    parts = ["inferencex", r["model"], r["hardware"], r["framework"] + (version or ""), r["precision"],
             "tp%d" % r["decode_tp"]]
    if r["decode_ep"] > 1:
        parts.append("ep%d" % r["decode_ep"])
    if r["decode_dp_attention"]:
        parts.append("dpattn")
    if r["spec_method"] == "mtp":
        parts.append("mtp")
    if r["disagg"]:
        parts.append("disagg-p%dd%d" % (r["num_prefill_gpu"], r["num_decode_gpu"]))
    parts.append("%dk%dk" % (r["isl"] // 1024, r["osl"] // 1024))
    parts.append("c%d" % r["conc"])
    return "-".join(parts)


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    history = json.load(open(sys.argv[1]))
    latest = json.load(open(LATEST))["results"]
    builds, seen = {}, {}
    for r in latest:
        key = config(r["raw"]["run_url"], r["hardware"], r["framework"], r["precision"], r["tp"], r["ep"],
                     r["dp_attention"], r["mtp"], r["disagg"])
        builds.setdefault(key, r)
        seen[key + (r["isl"], r["osl"], r["concurrency"])] = r
    out = []
    for index, h in enumerate(history):
        key = config(h["run_url"], h["hardware"], h["framework"], h["precision"], h["decode_tp"], h["decode_ep"],
                     h["decode_dp_attention"], h["spec_method"] == "mtp", h["disagg"])
        # Disaggregated rows are left out: the fixture holds several runs of one
        # such configuration, and the id scheme does not tell them apart.
        if key not in builds or h["disagg"]:
            continue
        same = seen.get(key + (h["isl"], h["osl"], h["conc"]))
        if same is not None:
            if same["output_tput_per_gpu"] != h["metrics"].get("output_tput_per_gpu"):
                raise SystemExit("entry %d differs from %s" % (index, same["id"]))
            continue
        build = builds[key]
        version = build["framework_version"]
        gpus = build["gpus"]
        m = h["metrics"]
        rid = row_id(h, version)
        out.append({
            "id": rid,
            "published": h["date"],
            "source": "%s (InferenceX benchmarks-history.json, entry index %d)" % (URL, index),
            "model": h["model"],
            "hardware": h["hardware"],
            "framework": h["framework"],
            "framework_version": version,
            "image": build["raw"]["image"],
            "image_from": "%s: the same Actions run, GPU, framework, precision and parallelism" % build["id"],
            "precision": h["precision"],
            "tp": h["decode_tp"],
            "ep": h["decode_ep"],
            "dp_attention": h["decode_dp_attention"],
            "mtp": h["spec_method"] == "mtp",
            "disagg": h["disagg"],
            "gpus": gpus,
            "isl": h["isl"],
            "osl": h["osl"],
            "concurrency": h["conc"],
            "tput_per_gpu": m.get("tput_per_gpu"),
            "output_tput_per_gpu": m.get("output_tput_per_gpu"),
            "median_tpot_ms": m["median_tpot"] * 1000 if "median_tpot" in m else None,
            "median_ttft_ms": m["median_ttft"] * 1000 if "median_ttft" in m else None,
            "interactivity": m.get("median_intvty"),
            "raw": h,
        })
    ids = [r["id"] for r in out] + [r["id"] for r in latest]
    if len(set(ids)) != len(ids):
        raise SystemExit("duplicate ids")
    about = ("Rows of InferenceX's benchmark history fixture (InferenceX-app packages/app/cypress/fixtures/api/"
             "benchmarks-history.json at commit %s, read from the vngcloud/InferenceX-app fork) that complete the "
             "runs data/published/inferencex-dsr1.json holds: more concurrencies of the same GitHub Actions runs. "
             "The history fixture gives no image and no mean latencies; each row gives the image of the latest-run "
             "row of the same run and configuration (image, image_from). Made by scripts/read-inferencex-history.py; "
             "fields as in data/published/inferencex-dsr1.json, raw is the history entry as read." % COMMIT)
    with open(OUT, "w") as f:
        f.write(json.dumps({"about": about, "results": out}, indent=1, ensure_ascii=False) + "\n")
    print("wrote %d rows to %s" % (len(out), os.path.relpath(OUT, ROOT)))


if __name__ == "__main__":
    main()
