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


def _one_line(name, head, item, tail, mib):
  """Writes `name`: one line of about `mib` MiB, `head` + `item` repeated + `tail`, streamed."""
  def make(d):
    block = (item * max(1, (1 << 20) // len(item))).encode()
    with open(os.path.join(d, name), "wb") as f:
      f.write(head.encode())
      for _ in range(mib):
        f.write(block)
      f.write(tail.encode() + b"\n")
  return make


def _line_cases():
  """One line of a JSONL dataset, trace or shard file past the bound on one
  line (16 MiB by default, FRONTIER_MAX_LINE_MB): refused at that line,
  before the parse of it holds many times its bytes."""
  out = []
  pad = ('{"prompt": "hello", "output_len": 4, "pad": [', "0,", "0]}")
  out.append(Case("jsonl-one-line-70mib-default", SIM + ["--dataset", "jsonl", "--dataset-path", "{d}/big.jsonl"],
                  msg=r"big\.jsonl:1: a line longer than 16 MiB, the bound on one line of datasets.*FRONTIER_MAX_LINE_MB",
                  exit=(2,), make=_one_line("big.jsonl", *pad, 70), rss_mib=16 + 256, timeout_s=90))
  trace = ('{"timestamp": 0, "input_length": 8, "output_length": 2, "hash_ids": [', "0,", "0]}")
  out.append(Case("trace-one-line-70mib-default", SIM + ["--dataset", "trace", "--trace", "{d}/t.jsonl"],
                  msg=r"t\.jsonl:1: a line longer than 16 MiB, the bound on one line of traces", exit=(2,),
                  make=_one_line("t.jsonl", *trace, 70), rss_mib=16 + 256, timeout_s=90))
  # A line just under the bound is parsed whole: what its parse holds stays
  # within the file's bound + 256 MiB (measured 372 MiB for 16 MiB of small
  # numbers, the worst line).
  out.append(Case("jsonl-one-line-just-under-bound", SIM + ["--dataset", "jsonl", "--dataset-path", "{d}/u.jsonl",
                                                            "--num-prompts", "1"],
                  msg=r"", exit=(0,), make=_one_line("u.jsonl", *pad, 15), rss_mib=512, timeout_s=90))
  good = json.dumps({"prompt": "hello " * 20, "output_len": 4}) + "\n"

  def second_long(d):
    with open(os.path.join(d, "d.jsonl"), "w") as f:
      f.write(good)
    _one_line("tmp", *pad, 3)(d)
    with open(os.path.join(d, "tmp")) as src, open(os.path.join(d, "d.jsonl"), "a") as f:
      f.write(src.read())
      f.write(good)
  out.append(Case("jsonl-line-2-past-bound-1", SIM + ["--dataset", "jsonl", "--dataset-path", "{d}/d.jsonl"],
                  msg=r"d\.jsonl:2: a line longer than 1 MiB", exit=(2,), env={"FRONTIER_MAX_LINE_MB": "1"},
                  make=second_long, rss_mib=UP_FRONT, timeout_s=60))
  out.append(Case("trace-line-past-bound-2", SIM + ["--dataset", "trace", "--trace", "{d}/t.jsonl"],
                  msg=r"t\.jsonl:1: a line longer than 2 MiB", exit=(2,), env={"FRONTIER_MAX_LINE_MB": "2"},
                  make=_one_line("t.jsonl", *trace, 5), rss_mib=UP_FRONT, timeout_s=60))
  rec = ('{"id": 0, "ok": true, "scheduled_ns": 0, "sent_ns": 10, "first_token_ns": 500, "end_ns": 900, '
         '"prompt_tokens": 10, "output_tokens": 2, "requested_output_tokens": 2, "events": [', "[500, 0],", "[900, 1]]}")
  out.append(Case("merge-record-line-past-bound-1", merge_args(), msg=r"s0\.jsonl:1: a line longer than 1 MiB",
                  exit=(2,), env={"FRONTIER_MAX_LINE_MB": "1"},
                  make=lambda d: (_one_line("s0.jsonl", *rec, 4)(d), _write_meta(d)), rss_mib=UP_FRONT,
                  timeout_s=60))
  return out


def _trace_request_cases():
  """A trace's requests (turns and subagents), reused cyclically for the
  sessions asked for, against the bound on a run's requests (10,000,000):
  refused before the run plans or holds them."""
  out = []
  turns = json.dumps({"turns": [{"input_length": 8, "output_length": 2}] * 100}) + "\n"
  out.append(Case("trace-100-turns-x-200000-sessions", SIM + ["--dataset", "trace", "--trace", "{d}/t.jsonl",
                                                               "--num-prompts", "200000"],
                  msg=r"--num-prompts 200000: .*send 20000000 requests .*at most 10000000", exit=(2,),
                  files={"t.jsonl": turns}, rss_mib=UP_FRONT, timeout_s=30))
  sub = json.dumps({"turns": [{"input_length": 8, "output_length": 2,
                               "subagents": [{"input_length": 1, "output_length": 1}] * 99}]}) + "\n"
  out.append(Case("trace-99-subagents-x-100001-sessions", SIM + ["--dataset", "trace", "--trace", "{d}/t.jsonl",
                                                                  "--num-prompts", "100001"],
                  msg=r"--num-prompts 100001: .*send 10000100 requests", exit=(2,), files={"t.jsonl": sub},
                  rss_mib=UP_FRONT, timeout_s=30))
  # Agentic: one session of four lines (its turns), reused cyclically.
  two = "".join(json.dumps({"session_id": "a", "input_length": 8, "output_length": 2}) + "\n" for _ in range(4))
  out.append(Case("trace-agentic-4-turns-x-2500001", SIM + ["--dataset", "trace", "--trace", "{d}/t.jsonl",
                                                             "--num-prompts", "2500001"],
                  msg=r"--num-prompts 2500001: .*send 10000004 requests", exit=(2,), files={"t.jsonl": two},
                  rss_mib=UP_FRONT, timeout_s=30))
  return out


def _sharegpt_entry(i):
  return {"id": str(i), "conversations": [{"from": "human", "value": "tell me about item %d " % i + "x" * 200},
                                          {"from": "gpt", "value": "answer " * 60}]}


def _sharegpt(name, mib):
  """Writes a ShareGPT array of about `mib` MiB, streamed."""
  def make(d):
    with open(os.path.join(d, name), "w") as f:
      f.write("[")
      written, i = 0, 0
      while written < mib << 20:
        text = ("," if i else "") + json.dumps(_sharegpt_entry(i))
        f.write(text)
        written += len(text)
        i += 1
      f.write("]")
  return make


def _sharegpt_cases():
  """ShareGPT files are parsed as a stream, one entry held at a time, and
  only the conversations a run takes are kept."""
  out = []
  share = SIM + ["--dataset", "sharegpt", "--dataset-path"]
  # Within the bounds: 96 MiB of conversations, ten taken. The whole file
  # and its parse used to be held (about 4 x the file).
  out.append(Case("sharegpt-96mib-10-prompts", share + ["{d}/s.json", "--num-prompts", "10"], msg=r"", exit=(0,),
                  make=_sharegpt("s.json", 96), rss_mib=UP_FRONT, timeout_s=120))
  for mib, bound in [(9, 8), (24, 16)]:
    out.append(Case(f"sharegpt-{mib}mib-bound-{bound}", share + ["{d}/s.json"],
                    msg=rf"s\.json: larger than {bound} MiB", exit=(2,), env={"FRONTIER_MAX_INPUT_MB": str(bound)},
                    make=_sharegpt("s.json", mib), rss_mib=bound + 256, timeout_s=60))
  out.append(Case("sharegpt-dev-zero", share + ["/dev/zero"], msg=r"/dev/zero:1: not valid JSON", exit=(2,),
                  rss_mib=UP_FRONT, timeout_s=30))
  out.append(Case("sharegpt-not-an-array", share + ["{d}/s.json"], msg=r"s\.json:1: a ShareGPT file is a JSON array",
                  exit=(2,), files={"s.json": '{"conversations": []}'}, rss_mib=UP_FRONT, timeout_s=30))
  out.append(Case("sharegpt-deep-nesting", share + ["{d}/s.json"], msg=r"entry 0: nested deeper than 16 levels",
                  exit=(2,), files={"s.json": "[" * 1_000_000}, rss_mib=UP_FRONT, timeout_s=30))
  out.append(Case("sharegpt-entry-of-4m-values", share + ["{d}/s.json"],
                  msg=r"s\.json:1: entry 0: more than 100000 JSON values in one entry", exit=(2,),
                  make=_one_line("s.json", '[{"conversations": [', "0,", "0]}]", 8), rss_mib=UP_FRONT, timeout_s=30))
  out.append(Case("sharegpt-bad-entry-late", share + ["{d}/s.json", "--num-prompts", "1"],
                  msg=r"s\.json: entry 3: field \"conversations\" is missing",
                  exit=(2,), files={"s.json": json.dumps([_sharegpt_entry(i) for i in range(3)] + [{"x": 1}])},
                  rss_mib=UP_FRONT, timeout_s=30))
  return out


CASES = (_context_cases() + _scenario_cases() + _merge_cases() + _dataset_cases() + _trace_cases() +
         _sim_memory_cases() + _line_cases() + _trace_request_cases() + _sharegpt_cases())
