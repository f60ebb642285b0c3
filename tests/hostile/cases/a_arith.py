"""Class A: no internal error (exit 70) on user input (issue #29).

Each value is in range on its own; its sum or product with another is not:
shard records whose times are at the end of int64, arrival schedules that run
past 1e9 s, scenario counts and durations whose products overflow. Each must
be exit 1 or 2 naming the input, decided before anything is sized by it.
"""
import json
import os

from corpus import Case

INT64_MAX = 2**63 - 1
INT64_MIN = -2**63

SIM = ["simulate", "--model", "llama-3.1-8b", "--hardware", "h100"]
SLO = ["--slo", "ttft_p99:2000"]


def _record(i, **over):
  r = {"id": i, "ok": True, "scheduled_ns": i * 1000, "sent_ns": i * 1000,
       "first_token_ns": i * 1000 + 500, "end_ns": i * 1000 + 900,
       "prompt_tokens": 8, "output_tokens": 2,
       "events": [[i * 1000 + 500, 1], [i * 1000 + 900, 1]]}
  r.update(over)
  return r


def _meta(index, count, **over):
  m = {"shard_index": index, "shard_count": count, "shard_from": "--shard", "host": "h",
       "clock_offset_ns": 0, "clock_offset_bound_ns": 0 if index == 0 else 1000, "clock_rtt_ns": 2000,
       "start_unix_ns": 1700000000000000000, "schedule": {"request_rate": "inf"},
       "run": {"model": "m", "num_gpus": 1}}
  m.update(over)
  return m


def shards(records0=None, meta0=None, count=1, raw0=None):
  """A merge of `count` shards; shard 0 holds records0 (or raw JSONL text raw0)."""
  def make(d):
    for k in range(count):
      path = os.path.join(d, f"s{k}.jsonl")
      with open(path, "w") as f:
        if k == 0 and raw0 is not None:
          f.write(raw0)
        else:
          recs = records0 if (k == 0 and records0 is not None) else \
              [_record(i) for i in range(k, 8, count)]
          for r in recs:
            f.write(json.dumps(r) + "\n")
      meta = _meta(k, count) if (k > 0 or meta0 is None) else meta0
      with open(path + ".shard.json", "w") as f:
        f.write(meta if isinstance(meta, str) else json.dumps(meta))
  return make


def merge_args(count=1):
  return ["bench", "merge"] + [f"{{d}}/s{k}.jsonl" for k in range(count)]


def _merge_time_cases():
  out = []
  fields = [("end", "end_ns"), ("sent", "sent_ns"), ("sched", "scheduled_ns"), ("first", "first_token_ns")]
  values = [("int64max", INT64_MAX), ("int64min", INT64_MIN), ("past-1e18", 10**18 + 1),
            ("neg-past-1e18", -10**18 - 1)]
  for fname, field in fields:
    for vname, v in values:
      out.append(Case(f"merge-{fname}-{vname}", merge_args(),
                      msg=rf"s0\.jsonl:3: .*{field}",
                      make=shards(records0=[_record(0), _record(1), _record(2, **{field: v})]),
                      rss_mib=300, timeout_s=30))
  # Not 64-bit integers at all: a float past int64, an unsigned past it, a string.
  for vname, raw in [("1e300", "1e300"), ("2pow63", str(2**63)), ("2pow64", str(2**64)),
                     ("neg-1e300", "-1e300"), ("string", '"9223372036854775807"')]:
    text = json.dumps(_record(0)) + "\n" + json.dumps(_record(1)).replace(
        '"end_ns": 1900', f'"end_ns": {raw}') + "\n"
    out.append(Case(f"merge-end-{vname}", merge_args(), msg=r"s0\.jsonl:2: .*end_ns",
                    make=shards(raw0=text), rss_mib=300, timeout_s=30))
  out.append(Case("merge-event-int64max", merge_args(), msg=r"s0\.jsonl:1: .*events",
                  make=shards(records0=[_record(0, events=[[INT64_MAX, 1]])]), rss_mib=300, timeout_s=30))
  out.append(Case("merge-event-1e300", merge_args(), msg=r"s0\.jsonl:1: .*events",
                  make=shards(raw0='{"id": 0, "ok": true, "scheduled_ns": 0, "sent_ns": 0, "first_token_ns": 5, '
                              '"end_ns": 9, "output_tokens": 1, "events": [[1e300, 1]]}\n'),
                  rss_mib=300, timeout_s=30))
  # The row: one record ends at INT64_MAX among good ones, over two shards.
  out.append(Case("merge-two-shards-end-int64max", merge_args(2), msg=r"s0\.jsonl:\d+: .*end_ns",
                  make=shards(records0=[_record(0), _record(2, end_ns=INT64_MAX)], count=2),
                  rss_mib=300, timeout_s=30))
  return out


def _merge_meta_cases():
  out = []
  for vname, v in [("int64max", INT64_MAX), ("zero", 0), ("negative", -1), ("past-1e6", 1_000_001),
                   ("1e300", 1e300), ("string", "two")]:
    out.append(Case(f"merge-shard-count-{vname}", merge_args(), msg=r"s0\.jsonl\.shard\.json: shard_count",
                    make=shards(meta0=_meta(0, 1, shard_count=v)), rss_mib=300, timeout_s=30))
  for vname, v in [("equal-count", 1), ("negative", -1), ("int64max", INT64_MAX)]:
    out.append(Case(f"merge-shard-index-{vname}", merge_args(), msg=r"s0\.jsonl\.shard\.json: shard_index",
                    make=shards(meta0=_meta(0, 1, shard_index=v)), rss_mib=300, timeout_s=30))
  for field in ["clock_offset_ns", "clock_offset_bound_ns"]:
    for vname, v in [("1e300", 1e300), ("int64max", INT64_MAX)]:
      out.append(Case(f"merge-{field}-{vname}", merge_args(), msg=rf"s0\.jsonl\.shard\.json: {field}",
                      make=shards(meta0=_meta(0, 1, **{field: v})), rss_mib=300, timeout_s=30))
  return out


def _schedule_cases():
  out = []
  # Arrival times past 1e9 s: a tiny rate with many prompts, a regular
  # (large-burstiness) tiny rate; the schedule is judged before it is stored.
  for name, rate, n, burst in [("rate-1e-9", "1e-9", "10", None), ("rate-1e-6-many", "1e-6", "2000", None),
                               ("rate-1e-300", "1e-300", "2", None), ("rate-min-double", "5e-324", "2", None),
                               ("burstiness-1e6", "1e-8", "100", "1e6"), ("burstiness-1e6-rate-1e-5", "1e-5", "20000", "1e6")]:
    args = SIM + ["--request-rate", rate, "--num-prompts", n, "--input-len", "8", "--output-len", "2"]
    if burst:
      args += ["--burstiness", burst]
    out.append(Case(f"sim-schedule-{name}", args, msg=r"--request-rate .*--num-prompts", rss_mib=300, timeout_s=30))
  return out


def _scenario_cases():
  out = []
  for scen, extra in [("server", ["--target-qps", "1"] + SLO), ("interactive", ["--target-qps", "1"] + SLO),
                      ("offline", [])]:
    for vname, v in [("99999999999", "99999999999"), ("int64max", str(INT64_MAX)), ("past-1e7", "10000001"),
                     ("negative", "-1")]:
      out.append(Case(f"scenario-{scen}-min-query-count-{vname}",
                      SIM + ["--scenario", scen, "--min-query-count", v] + extra,
                      msg=r"--min-query-count", rss_mib=300, timeout_s=30))
  for vname, v in [("1e10", "1e10"), ("1e308", "1e308"), ("inf", "inf"), ("nan", "nan"), ("negative", "-5"),
                   ("past-1e9", "1000000001")]:
    out.append(Case(f"scenario-server-min-duration-{vname}",
                    SIM + ["--scenario", "server", "--target-qps", "1", "--min-duration", v] + SLO,
                    msg=r"--min-duration", rss_mib=300, timeout_s=30))
  # Products: qps x duration past the bound on a run's requests.
  out.append(Case("scenario-server-qps-x-duration", SIM + ["--scenario", "server", "--target-qps", "1e9",
                                                         "--min-duration", "1e9"] + SLO,
                  msg=r"--target-qps .*--min-duration", rss_mib=300, timeout_s=30))
  out.append(Case("scenario-offline-qps-x-duration", SIM + ["--scenario", "offline", "--target-qps", "1e6",
                                                          "--min-duration", "1e3"],
                  msg=r"--target-qps .*--min-duration", rss_mib=300, timeout_s=30))
  out.append(Case("scenario-offline-count-plus-warmup", SIM + ["--scenario", "offline", "--min-query-count",
                                                             "10000000", "--warmup", "1"],
                  msg=r"--warmup", rss_mib=300, timeout_s=30))
  return out


def _trace_cases():
  out = []
  # A trace whose last arrival is at 1e12 ms (1e9 s), reused for more
  # sessions than it holds: the second round would start past the bound.
  trace = "".join(json.dumps({"timestamp": t, "input_length": 8, "output_length": 2}) + "\n"
                  for t in [0, 1e12])
  out.append(Case("trace-reused-past-1e9-s", SIM + ["--dataset", "trace", "--trace", "{d}/t.jsonl",
                                                    "--num-prompts", "3"],
                  msg=r"arrival times.*--num-prompts", files={"t.jsonl": trace}, rss_mib=300, timeout_s=30))
  for vname, v in [("int64max", str(INT64_MAX)), ("1e300", "1e300"), ("negative", "-1")]:
    out.append(Case(f"trace-timestamp-{vname}", SIM + ["--dataset", "trace", "--trace", "{d}/t.jsonl"],
                    msg=r"t\.jsonl:1: .*timestamp",
                    files={"t.jsonl": '{"timestamp": %s, "input_length": 8, "output_length": 2}\n' % v},
                    rss_mib=300, timeout_s=30))
  return out


CASES = _merge_time_cases() + _merge_meta_cases() + _schedule_cases() + _scenario_cases() + _trace_cases()
