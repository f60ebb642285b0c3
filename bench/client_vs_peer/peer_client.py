#!/usr/bin/python3
"""The peer client of bench/client_vs_peer: streams OpenAI completions the way
vLLM's `bench serve` measures them (one aiohttp ClientSession, an
asyncio.Semaphore as the concurrency cap, `response.content.iter_any()`, and
time.perf_counter() taken when a chunk is parsed), and prints one JSON line:

  {"completed": N, "failed": N, "output_tokens": N, "ttft_ms": [...], "tpot_ms": [...]}

Its own CPU time is read by the caller (wait4 on this process). Run with
Debian's /usr/bin/python3 and python3-aiohttp (scripts/bootstrap installs it).
"""
import argparse
import asyncio
import json
import sys
import time

import aiohttp


async def one_request(session, url, body, sem, out):
    async with sem:
        st = time.perf_counter()
        ttft = 0.0
        most_recent = st
        tokens = 0
        ok = False
        try:
            async with session.post(url, json=body) as response:
                if response.status != 200:
                    out["failed"] += 1
                    return
                buf = b""
                async for chunk_bytes in response.content.iter_any():
                    buf += chunk_bytes
                    while b"\n\n" in buf:
                        message, buf = buf.split(b"\n\n", 1)
                        message = message.strip()
                        if not message:
                            continue
                        chunk = message.decode("utf-8").removeprefix("data: ")
                        if chunk == "[DONE]":
                            ok = True
                            continue
                        data = json.loads(chunk)
                        choices = data.get("choices")
                        if choices and choices[0].get("text"):
                            timestamp = time.perf_counter()
                            if tokens == 0:
                                ttft = timestamp - st
                            most_recent = timestamp
                            tokens += 1
        except aiohttp.ClientError:
            ok = False
        if not ok or tokens == 0:
            out["failed"] += 1
            return
        out["completed"] += 1
        out["output_tokens"] += tokens
        out["ttft_ms"].append(ttft * 1e3)
        if tokens > 1:
            out["tpot_ms"].append((most_recent - st - ttft) / (tokens - 1) * 1e3)


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--base-url", required=True)
    p.add_argument("--model", default="fixed")
    p.add_argument("--num-prompts", type=int, required=True)
    p.add_argument("--max-concurrency", type=int, required=True)
    p.add_argument("--output-len", type=int, required=True)
    a = p.parse_args()
    url = a.base_url.rstrip("/") + "/v1/completions"
    out = {"completed": 0, "failed": 0, "output_tokens": 0, "ttft_ms": [], "tpot_ms": []}
    sem = asyncio.Semaphore(a.max_concurrency)
    # As vLLM's benchmark: one session, keep-alive, no connection limit of its own.
    connector = aiohttp.TCPConnector(limit=0, limit_per_host=0, keepalive_timeout=60)
    timeout = aiohttp.ClientTimeout(total=6 * 60 * 60)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        tasks = []
        for i in range(a.num_prompts):
            body = {"model": a.model, "prompt": [1 + (i + j) % 1000 for j in range(16)],
                    "max_tokens": a.output_len, "ignore_eos": True, "stream": True,
                    "stream_options": {"include_usage": True}}
            tasks.append(asyncio.create_task(one_request(session, url, body, sem, out)))
        await asyncio.gather(*tasks)
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    asyncio.run(main())
