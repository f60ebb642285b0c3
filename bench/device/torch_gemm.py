#!/usr/bin/env python3
"""Peer cross-check for `frontier probe`: the same GEMM shapes through torch.

Reads the probe's --result-json, times y = x @ W.T with torch.matmul (BF16)
and torch._scaled_mm (FP8 E4M3, BF16 output) at every (model, layer, M) the
probe timed, cycling through enough weight copies (>= 256 MiB) that weights
come from HBM as in the probe, and prints torch's TFLOP/s beside the probe's
tuned and default figures. Writes torch_gemm.json next to its input.

    python3 torch_gemm.py probe.json [out.json]
"""
import json
import sys
import time

import torch


def time_ms(fn, iters):
    for _ in range(2):
        fn(0)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for i in range(iters):
        fn(i + 2)
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / iters


def main():
    probe = json.load(open(sys.argv[1]))
    out_path = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1].replace(".json", "") + "_torch.json"
    iters = probe["options"].get("iterations", 10)
    rows = []
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}")
    print(f"{'model':14} {'layer':8} {'prec':5} {'M':>6} {'ours tuned':>10} {'ours dflt':>10} {'torch':>8} {'ours/torch':>10}")
    for g in probe["gemm"]:
        m, n, k, prec = g["m"], g["n"], g["k"], g["precision"]
        wbytes = n * k * (1 if prec == "fp8" else 2)
        copies = max(1, min(64, (256 << 20) // wbytes + 1))
        try:
            if prec == "bf16":
                ws = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16) for _ in range(copies)]
                x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
                fn = lambda i: torch.matmul(x, ws[i % copies].t())
            elif prec == "fp8":
                ws = [torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn) for _ in range(copies)]
                x = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
                one = torch.ones((), device="cuda")
                fn = lambda i: torch._scaled_mm(x, ws[i % copies].t(), scale_a=one, scale_b=one,
                                                out_dtype=torch.bfloat16)
            else:
                continue
            ms = time_ms(fn, iters)
        except Exception as e:  # one shape failing must not hide the rest
            print(f"{g['model']:14} {g['layer']:8} {prec:5} {m:>6} torch failed: {e}")
            continue
        tf = 2.0 * m * n * k / (ms / 1e3) / 1e12
        rows.append({"model": g["model"], "layer": g["layer"], "precision": prec, "m": m, "n": n, "k": k,
                     "torch_tflops": tf, "ours_tuned_tflops": g["tuned_tflops"],
                     "ours_default_tflops": g["default_tflops"], "peak_tflops": g["peak_tflops"]})
        print(f"{g['model']:14} {g['layer']:8} {prec:5} {m:>6} {g['tuned_tflops']:>10.1f} {g['default_tflops']:>10.1f}"
              f" {tf:>8.1f} {g['tuned_tflops'] / tf:>10.3f}")
        del ws
    for prec in ("bf16", "fp8"):
        sel = [r for r in rows if r["precision"] == prec]
        if sel:
            big = [r for r in sel if r["m"] >= 1024]
            best_t = max(r["torch_tflops"] for r in sel)
            best_o = max(r["ours_tuned_tflops"] for r in sel)
            ratio = sum(r["ours_tuned_tflops"] / r["torch_tflops"] for r in sel) / len(sel)
            print(f"summary {prec}: best ours {best_o:.1f} TF ({best_o / sel[0]['peak_tflops']:.1%} of peak), "
                  f"best torch {best_t:.1f} TF ({best_t / sel[0]['peak_tflops']:.1%}); mean ours/torch over "
                  f"{len(sel)} shapes {ratio:.3f}" + (f"; M>=1024: mean ours/torch "
                  f"{sum(r['ours_tuned_tflops'] / r['torch_tflops'] for r in big) / len(big):.3f}" if big else ""))
    json.dump(rows, open(out_path, "w"), indent=1)


if __name__ == "__main__":
    main()
