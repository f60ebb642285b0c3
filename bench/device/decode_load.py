#!/usr/bin/env python3
"""A decode-attention load for measuring power: torch's scaled_dot_product_attention
at Llama-3.1-70B's head shapes (64 query heads, 8 KV heads of 128, BF16 KV),
one query token per sequence, for a fixed time. Prints the achieved bandwidth
(K and V read once per step), a peer figure for the probe's decode kernel.

    python3 decode_load.py SECONDS [BATCH] [CONTEXT]
"""
import sys
import time

import torch
import torch.nn.functional as F

seconds = float(sys.argv[1])
batch = int(sys.argv[2]) if len(sys.argv) > 2 else 64
context = int(sys.argv[3]) if len(sys.argv) > 3 else 4096
heads, kv_heads, dim = 64, 8, 128
q = torch.randn(batch, heads, 1, dim, device="cuda", dtype=torch.bfloat16)
k = torch.randn(batch, kv_heads, context, dim, device="cuda", dtype=torch.bfloat16)
v = torch.randn(batch, kv_heads, context, dim, device="cuda", dtype=torch.bfloat16)
step = lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
for _ in range(3):
    step()
torch.cuda.synchronize()
steps, t0 = 0, time.time()
start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
start.record()
while time.time() - t0 < seconds:
    for _ in range(20):
        step()
    steps += 20
    torch.cuda.synchronize()
stop.record()
stop.synchronize()
ms = start.elapsed_time(stop) / steps
gbps = 2 * batch * context * kv_heads * dim * 2 / (ms / 1e3) / 1e9
print(f"torch sdpa decode: batch {batch} x {context} tokens, {heads}/{kv_heads} heads: {ms * 1e3:.1f} us/step, "
      f"{gbps:.1f} GB/s over {steps} steps")
