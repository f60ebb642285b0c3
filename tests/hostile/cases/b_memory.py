"""Class B: memory is judged from the inputs before it is spent (issue #29).

Each case asks for more than a documented bound: requests longer than the
model's context, scenarios past the bound on a run's requests, a shard count
of a billion, dataset, trace and shard files past the input bound (lowered
with FRONTIER_MAX_INPUT_MB so the files stay small), a simulation past its
memory bound. Each must end with exit 1 or 2 naming the input, and with its
peak resident memory within the bound it promises + 256 MiB (300 MiB for
what is refused before anything is allocated).
"""
import json
import os

from corpus import Case
from cases.a_arith import merge_args, shards, _meta, _record  # noqa: F401  (shared writers)

SIM = ["simulate", "--model", "llama-3.1-8b", "--hardware", "h100"]
SLO = ["--slo", "ttft_p99:2000"]
UP_FRONT = 300  # MiB: refused before the input sizes anything


def _lines(name, line, mib):
  """Writes `name` of about `mib` MiB by repeating `line`, streamed."""
  def make(d):
    block = (line * max(1, (1 << 20) // len(line))).encode()
    with open(os.path.join(d, name), "wb") as f:
      written = 0
      while written < mib << 20:
        f.write(block)
        written += len(block)
  return make


def _context_cases():
  out = []
  rows = [
      ("issue-10m-prompts", "llama-3.1-8b", ["--input-len", "10000000", "--num-prompts", "100"], r"--input-len 10000000"),
      ("input-just-past", "llama-3.1-8b", ["--input-len", "131072", "--output-len", "1"], r"--input-len 131072"),
      ("output-10m", "llama-3.1-8b", ["--input-len", "8", "--output-len", "10000000"], r"--output-len 10000000"),
      ("output-just-past", "llama-3.1-8b", ["--input-len", "1", "--output-len", "131072"], r"--output-len 131072"),
      ("prefix-past", "llama-3.1-8b", ["--input-len", "100", "--prefix-len", "131000"], r"--prefix-len 131000"),
      ("range-ratio-shortest-past", "llama-3.1-8b", ["--input-len", "10000000", "--range-ratio", "0.9"],
       r"--range-ratio"),
      ("max-num-prompts", "llama-3.1-8b", ["--input-len", "10000000", "--num-prompts", "100", "--output-len",
                                           "10000000"], r"--input-len 10000000"),
      ("llama2-70b-4k", "llama-2-70b", ["--tp", "8", "--input-len", "4000", "--output-len", "200"], r"max context of 4096"),
      ("mixtral", "mixtral-8x7b", ["--tp", "4", "--input-len", "10000000", "--num-prompts", "100"], r"--input-len 10000000"),
      ("sweep", "llama-3.1-8b", ["--input-len", "200000", "--num-prompts", "100", "--concurrency", "1,2,4"],
       r"--input-len 200000"),
      ("scenario-offline", "llama-3.1-8b", ["--input-len", "200000", "--scenario", "offline", "--min-query-count",
                                            "10"], r"--input-len 200000"),
      ("qwen3-output", "qwen3-235b-a22b", ["--tp", "8", "--input-len", "100", "--output-len", "10000000"],
       r"--output-len 10000000"),
  ]
  for name, model, args, msg in rows:
    out.append(Case(f"context-{name}", ["simulate", "--model", model, "--hardware", "h100"] + args, msg=msg,
                    exit=(2,), rss_mib=UP_FRONT, timeout_s=30))
  return out


def _scenario_cases():
  out = []
  for scen, extra in [("server", ["--target-qps", "1"] + SLO), ("interactive", ["--target-qps", "1"] + SLO),
                      ("offline", ["--target-qps", "1"])]:
    out.append(Case(f"scenario-{scen}-min-duration-1e9", SIM + ["--scenario", scen, "--min-duration", "1e9"] + extra,
                    msg=r"--min-duration", exit=(2,), rss_mib=UP_FRONT, timeout_s=30))
    out.append(Case(f"scenario-{scen}-min-query-count-1e11",
                    SIM + ["--scenario", scen, "--min-query-count", "99999999999"] + extra,
                    msg=r"--min-query-count", exit=(2,), rss_mib=UP_FRONT, timeout_s=30))
  out.append(Case("scenario-server-qps-1e4-duration-1e4", SIM + ["--scenario", "server", "--target-qps", "1e4",
                                                               "--min-duration", "1e4"] + SLO,
                  msg=r"--target-qps", exit=(2,), rss_mib=UP_FRONT, timeout_s=30))
  out.append(Case("scenario-bench-server-1e9", ["bench", "--model", "m", "--base-url", "http://127.0.0.1:9",
                                                "--scenario", "server", "--target-qps", "1",
                                                "--min-duration", "1e9"] + SLO,
                  msg=r"--min-duration", exit=(2,), rss_mib=UP_FRONT, timeout_s=30))
  return out


def _merge_cases():
  out = []
  for name, v in [("1e9", 10**9), ("just-past", 1_000_001), ("int64max", 2**63 - 1)]:
    out.append(Case(f"merge-shard-count-{name}", merge_args(), msg=r"shard_count", exit=(2,),
                    make=shards(meta0=_meta(0, v)), rss_mib=UP_FRONT, timeout_s=30))
  # At the bound: a million shards named by one file, the rest missing.
  out.append(Case("merge-shard-count-1e6-one-file", merge_args(), msg=r"999999 in all\) of 1000000 missing",
                  exit=(2,), make=shards(meta0=_meta(0, 1_000_000)), rss_mib=UP_FRONT, timeout_s=30))
  # Records past the input bound (8 MiB here): streamed, refused at the bound.
  rec = json.dumps(_record(0)) + "\n"
  for mib in (9, 24):
    out.append(Case(f"merge-records-{mib}mib-bound-8", merge_args(), msg=r"s0\.jsonl: larger than 8 MiB",
                    exit=(2,), env={"FRONTIER_MAX_INPUT_MB": "8"},
                    make=lambda d, mib=mib: (_lines("s0.jsonl", rec, mib)(d), _write_meta(d)),
                    rss_mib=8 + 256, timeout_s=60))
  return out


def _write_meta(d):
  with open(os.path.join(d, "s0.jsonl.shard.json"), "w") as f:
    f.write(json.dumps(_meta(0, 1)))


def _dataset_cases():
  out = []
  line = json.dumps({"prompt": "hello " * 20, "output_len": 4}) + "\n"
  for mib, bound in [(9, 8), (40, 8), (20, 16)]:
    out.append(Case(f"jsonl-{mib}mib-bound-{bound}",
                    SIM + ["--dataset", "jsonl", "--dataset-path", "{d}/big.jsonl", "--num-prompts", "10000000"],
                    msg=rf"big\.jsonl: larger than {bound} MiB", exit=(2,), env={"FRONTIER_MAX_INPUT_MB": str(bound)},
                    make=_lines("big.jsonl", line, mib), rss_mib=bound + 256, timeout_s=60))
  # One line with no end: the reader stops at the bound, however long the line.
  out.append(Case("jsonl-dev-zero-bound-16", SIM + ["--dataset", "jsonl", "--dataset-path", "/dev/zero"],
                  msg=r"/dev/zero: larger than 16 MiB", exit=(2,), env={"FRONTIER_MAX_INPUT_MB": "16"},
                  rss_mib=16 + 256, timeout_s=60))
  out.append(Case("jsonl-one-long-line-bound-8",
                  SIM + ["--dataset", "jsonl", "--dataset-path", "{d}/long.jsonl"],
                  msg=r"long\.jsonl: larger than 8 MiB", exit=(2,), env={"FRONTIER_MAX_INPUT_MB": "8"},
                  make=_lines("long.jsonl", "x" * 4096, 12), rss_mib=8 + 256, timeout_s=60))
  return out


def _trace_cases():
  out = []
  line = json.dumps({"timestamp": 0, "input_length": 8, "output_length": 2}) + "\n"
  for mib, bound in [(9, 8), (30, 8), (20, 16)]:
    out.append(Case(f"trace-{mib}mib-bound-{bound}", SIM + ["--dataset", "trace", "--trace", "{d}/big.jsonl"],
                    msg=rf"big\.jsonl: larger than {bound} MiB", exit=(2,), env={"FRONTIER_MAX_INPUT_MB": str(bound)},
                    make=_lines("big.jsonl", line, mib), rss_mib=bound + 256, timeout_s=60))
  out.append(Case("trace-dev-zero-bound-16", SIM + ["--dataset", "trace", "--trace", "/dev/zero"],
                  msg=r"/dev/zero: larger than 16 MiB", exit=(2,), env={"FRONTIER_MAX_INPUT_MB": "16"},
                  rss_mib=16 + 256, timeout_s=60))
  # Records counted: hash ids take 8 bytes each held, about 2 in the file,
  # so a 5 MiB trace under the 8 MiB file bound holds more than 8 MiB.
  dense = json.dumps({"timestamp": 0, "input_length": 4000, "output_length": 2}).replace(
      "}", ', "hash_ids": [' + ",".join(["1"] * 4000) + "]}") + "\n"
  out.append(Case("trace-hash-ids-held-past-bound-8", SIM + ["--dataset", "trace", "--trace", "{d}/dense.jsonl",
                                                              "--trace-block-tokens", "1"],
                  msg=r"dense\.jsonl:\d+: .*more than 8 MiB", exit=(2,), env={"FRONTIER_MAX_INPUT_MB": "8"},
                  make=_lines("dense.jsonl", dense, 5), rss_mib=8 + 256, timeout_s=60))
  # Prompt tokens: 101 requests of 10 M tokens pass the 1e9 tokens a run holds.
  big = "".join(json.dumps({"timestamp": i, "input_length": 10_000_000, "output_length": 2}) + "\n"
                for i in range(101))
  out.append(Case("trace-prompt-tokens-past-1e9", SIM + ["--dataset", "trace", "--trace", "{d}/t.jsonl"],
                  msg=r"t\.jsonl:101: .*1000000000 tokens", exit=(2,), files={"t.jsonl": big},
                  rss_mib=UP_FRONT, timeout_s=30))
  return out


def _sim_memory_cases():
  out = []
  for mb in (16, 32, 64):
    out.append(Case(f"sim-duration-1e9-max-memory-{mb}", SIM + ["--duration", "1e9", "--max-concurrency", "4",
                                                               "--max-memory-mb", str(mb)],
                    msg=r"--max-memory-mb", exit=(1,), rss_mib=mb + 256, timeout_s=60))
  out.append(Case("sim-duration-1e9-max-requests", SIM + ["--duration", "1e9", "--max-concurrency", "4",
                                                          "--max-requests", "2000"],
                  msg=r"--max-requests", exit=(1,), rss_mib=UP_FRONT, timeout_s=60))
  return out


CASES = (_context_cases() + _scenario_cases() + _merge_cases() + _dataset_cases() + _trace_cases() +
         _sim_memory_cases())
