"""Class D: nonsense is never stored, and one bad row never hides a database (issue #29).

Checked on the way in: `db import` of a value outside its bound, a forged
`bench merge` shard, a catalog's published value. Tolerant on the way out: a
database with one bad row (written by hand, as an older frontier might have)
is still listed, exported and reported, with a warning naming the row.
"""
import copy
import json
import os
import sqlite3
import subprocess
import sys

from corpus import Case

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.abspath(os.path.join(_HERE, "..", "..", ".."))
_EXPORT = os.path.join(_REPO, "src", "store", "testdata", "export_v6.json")
_VLLM = os.path.join(_REPO, "src", "store", "testdata", "vllm_bench_serve.json")


def _bin():
  """The frontier binary the runner was given (--bin), for set-up steps that must edit a database."""
  argv = sys.argv
  for i, a in enumerate(argv):
    if a == "--bin" and i + 1 < len(argv):
      return os.path.abspath(argv[i + 1])
    if a.startswith("--bin="):
      return os.path.abspath(a[len("--bin="):])
  return os.environ.get("FRONTIER_BIN", "frontier")


def _export():
  with open(_EXPORT) as f:
    return json.load(f)


def _two_runs():
  """The test export with a second, good run beside the first."""
  d = _export()
  second = copy.deepcopy(d["runs"][0])
  second["id"] = 2
  second["system"] = "b200"
  second["label"] = "nightly/b200#2"
  for p in second["points"]:
    p["id"] = 2
  d["runs"].append(second)
  return d


# ---- db import: each stored field outside its bound (nothing stored) ----

def _import_point(field, value):
  d = _export()
  d["runs"][0]["points"][0][field] = value
  return json.dumps(d)


_POINT_FIELDS = [
    ("num_gpus", 0), ("num_gpus", 2000000), ("completed", -1), ("failed", -5),
    ("total_input_tokens", 10**16), ("total_output_tokens", -1),
    ("output_throughput", 8.5e11), ("request_throughput", 1e308), ("total_token_throughput", -1.0),
    ("tput_per_gpu", 1e10), ("interactivity", 1e12), ("mean_ttft_ms", 1e308), ("p99_tpot_ms", -3.0),
    ("mean_e2el_ms", 1e10), ("duration", -1.0), ("repetition", -1), ("attempts", 0),
    ("load_value", 1e300), ("energy_j", 1e18), ("tokens_per_joule", 1e10), ("mean_power_w", 1e9),
]

CASES = []
for field, value in _POINT_FIELDS:
  CASES.append(Case(f"import-{field}-{value}", ["db", "import", "--db", "{d}/r.db", "{d}/bad.json"],
                    msg=field.replace("_", "_"), exit=(2,),
                    files={"bad.json": _import_point(field, value)}, timeout_s=20))


def _vllm(field, value):
  with open(_VLLM) as f:
    d = json.load(f)
  d[field] = value
  return json.dumps(d)


for field, value in [("output_throughput", 8.5e11), ("completed", 9), ("total_output_tokens", -1),
                     ("mean_ttft_ms", 1e308), ("duration", -2.0)]:
  CASES.append(Case(f"import-vllm-{field}", ["db", "import", "--db", "{d}/r.db", "--gpus", "1", "{d}/v.json"],
                    msg=field, exit=(2,), files={"v.json": _vllm(field, value)}, timeout_s=20))


# ---- a database with one bad row: still listed, exported and reported ----

def _db_with_bad_row(column, value):
  def make(d):
    with open(os.path.join(d, "good.json"), "w") as f:
      json.dump(_two_runs(), f)
    subprocess.run([_bin(), "db", "import", "--db", os.path.join(d, "r.db"), os.path.join(d, "good.json")],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    con = sqlite3.connect(os.path.join(d, "r.db"))
    con.execute(f"UPDATE points SET {column} = ? WHERE id = 1", (value,))
    con.commit()
    con.close()
  return make


_BAD_ROWS = [("output_throughput", 8.5e11), ("num_gpus", 0), ("completed", -1), ("total_output_tokens", 10**17),
             ("mean_ttft_ms", 1e308), ("attempts", 0)]
for column, value in _BAD_ROWS:
  want = r"points row 1 \(run 1\): " + column
  for verb in (["db", "ls"], ["db", "export", "-o", "{d}/out.json"], ["report", "-q", "-o", "{d}/r.html"]):
    CASES.append(Case(f"bad-row-{column}-{verb[1] if verb[0] == 'db' else verb[0]}",
                      verb + ["--db", "{d}/r.db"], msg=want, exit=(0,), make=_db_with_bad_row(column, value),
                      timeout_s=30))


# ---- bench merge: forged shard records ----

def _rec(i, **kw):
  t = i if isinstance(i, int) else 0
  r = {"id": i, "ok": True, "scheduled_ns": 1000 * abs(t), "sent_ns": 1000 * abs(t) + 10,
       "first_token_ns": 1000 * abs(t) + 500, "end_ns": 1000 * abs(t) + 900, "prompt_tokens": 10, "output_tokens": 2,
       "requested_output_tokens": 2, "events": [[1000 * abs(t) + 500, 1], [1000 * abs(t) + 900, 1]]}
  r.update(kw)
  return r


def _meta(index, count=2, **kw):
  m = {"shard_index": index, "shard_count": count, "shard_from": "--shard", "host": "h",
       "clock_offset_ns": 0 if index == 0 else 1500, "clock_offset_bound_ns": 0 if index == 0 else 300,
       "clock_rtt_ns": 600, "start_unix_ns": 1, "schedule": {"num_prompts": 4, "request_rate": "inf",
                                                              "burstiness": 1.0, "max_concurrency": None, "seed": 0},
       "run": {"base_url": "http://127.0.0.1:1", "endpoint": "/v1/completions", "model": "m", "served_model": "m",
               "num_gpus": 1, "start_time_utc": "2026-01-01T00:00:00Z"}}
  m.update(kw)
  return m


def _shards(recs0=None, recs1=None, meta0=None, meta1=None):
  recs0 = recs0 if recs0 is not None else [_rec(0), _rec(2)]
  recs1 = recs1 if recs1 is not None else [_rec(1), _rec(3)]
  return {
      "s0.jsonl": "".join(json.dumps(r) + "\n" for r in recs0),
      "s1.jsonl": "".join(json.dumps(r) + "\n" for r in recs1),
      "s0.jsonl.shard.json": json.dumps(meta0 or _meta(0)),
      "s1.jsonl.shard.json": json.dumps(meta1 or _meta(1)),
  }


_MERGE = ["bench", "merge", "{d}/s0.jsonl", "{d}/s1.jsonl"]
_FORGED = [
    ("negative-output-tokens", dict(recs1=[_rec(1, output_tokens=-5), _rec(3)]), r"s1\.jsonl:1: .*output_tokens"),
    ("negative-prompt-tokens", dict(recs0=[_rec(0, prompt_tokens=-1), _rec(2)]), r"s0\.jsonl:1: .*prompt_tokens"),
    ("huge-output-tokens", dict(recs0=[_rec(0), _rec(2, output_tokens=2**40)]), r"s0\.jsonl:2: .*output_tokens"),
    ("negative-event-tokens", dict(recs0=[_rec(0, events=[[500, -3]]), _rec(2)]), r"events\[0\]\.tokens"),
    ("missing-request", dict(recs0=[_rec(2)]), r"s0\.jsonl: request 0 is missing"),
    ("missing-middle", dict(recs1=[_rec(3)]), r"s1\.jsonl: request 1 is missing"),
    ("id-beyond-schedule", dict(recs0=[_rec(0), _rec(2), _rec(4)]), r"s0\.jsonl:3: request 4: the id is outside"),
    ("id-twice", dict(recs0=[_rec(0), _rec(2), _rec(0)]), r"request 0 appears twice"),
    ("id-of-other-shard", dict(recs0=[_rec(0), _rec(1)]), r"request 1 does not belong to shard 0"),
    ("id-string", dict(recs0=[_rec("zero"), _rec(2)]), r"s0\.jsonl:1: request record: id must be"),
    ("id-negative", dict(recs0=[_rec(-2), _rec(2)]), r"s0\.jsonl:1: request record: id must be"),
    ("end-int64-max", dict(recs0=[_rec(0, end_ns=2**63 - 1), _rec(2)]), r"s0\.jsonl:1: .*end_ns"),
    ("end-before-sent", dict(recs0=[_rec(0, end_ns=5, first_token_ns=-1), _rec(2)]), r"end_ns 5 is before sent_ns"),
    ("first-token-after-end", dict(recs0=[_rec(0, first_token_ns=10**6), _rec(2)]), r"first_token_ns 1000000 is outside"),
    ("sent-negative", dict(recs0=[_rec(0, sent_ns=-10**12), _rec(2)]), r"s0\.jsonl:1: .*sent_ns"),
    ("event-time-1e300", dict(recs0=[_rec(0, events=[[1e300, 1]]), _rec(2)]), r"events\[0\]\.t_ns"),
    ("offset-bound-1e300", dict(meta1=_meta(1, clock_offset_bound_ns=1e300)), r"s1\.jsonl\.shard\.json: clock_offset_bound_ns"),
    ("offset-7e15", dict(meta1=_meta(1, clock_offset_ns=7400000000000000)), r"s1\.jsonl\.shard\.json: clock_offset_ns"),
    ("offset-negative-bound", dict(meta1=_meta(1, clock_offset_bound_ns=-1)), r"clock_offset_bound_ns"),
    ("offset-string", dict(meta1=_meta(1, clock_offset_ns="soon")), r"clock_offset_ns must be an integer"),
    ("shard0-offset", dict(meta0=_meta(0, clock_offset_ns=99)), r"shard 0 is the reference clock"),
    ("count-1e9", dict(meta0=_meta(0, count=10**9), meta1=_meta(1, count=10**9)), r"shard_count must be an integer"),
    ("count-differs", dict(meta1=_meta(1, count=3)), r"not the same run"),
    ("index-float", dict(meta1=_meta(1, shard_index=0.5)), r"shard_index must be an integer"),
    ("index-beyond", dict(meta1=_meta(1, shard_index=7)), r"shard_index must be an integer in \[0, 1\]"),
    ("num-gpus-zero", dict(meta0=_meta(0, run={"num_gpus": 0})), r"run: num_gpus must be"),
    ("model-not-string", dict(meta0=_meta(0, run={"model": [1, 2]})), r"run: model"),
    ("ok-missing", dict(recs0=[{k: v for k, v in _rec(0).items() if k != "ok"}, _rec(2)]), r"field 'ok' is missing"),
]
for name, kw, want in _FORGED:
  CASES.append(Case(f"merge-{name}", _MERGE, msg=want, exit=(2,), files=_shards(**kw)))


# ---- published values in the validation catalog ----

def _catalog(mutate):
  def make(d):
    data = os.path.join(d, "data")
    os.makedirs(os.path.join(data, "validation"))
    src = os.path.join(_REPO, "data")
    for entry in os.listdir(src):
      if entry != "validation":
        os.symlink(os.path.join(src, entry), os.path.join(data, entry))
    with open(os.path.join(src, "validation", "mlperf-v5.0.json")) as f:
      doc = json.load(f)
    doc["results"] = doc["results"][:1]
    mutate(doc["results"][0])
    with open(os.path.join(data, "validation", "mlperf-v5.0.json"), "w") as f:
      json.dump(doc, f)
    if os.path.exists(os.path.join(src, "validation", "datasets.json")):
      os.symlink(os.path.join(src, "validation", "datasets.json"), os.path.join(data, "validation", "datasets.json"))
  return make


def _set(field, value):
  def mutate(r):
    r[field] = value
  return mutate


for field, value in [("value", 1e308), ("value", -5), ("value", 0), ("value", 2e9), ("median_tpot_ms", 1e308),
                     ("mean_ttft_ms", -1)]:
  for verb in (["validate"], ["calibrate", "--stack", "trtllm@2025.04", "--dry-run", "--no-loo"]):
    CASES.append(Case(f"published-{field}-{value}-{verb[0]}", verb, msg=r"mlperf-v5\.0\.json.*" + field,
                      make=_catalog(_set(field, value)), env={"FRONTIER_DATA_DIR": "{d}/data"}, timeout_s=60))


# ---- db copy of a database with damaged rows: the copy says what it lacks ----
# The reader skips a damaged row (named in a warning); the copy cannot carry
# it, so it names the run, counts the rows it skipped by table and exits 1.

_COPY_PLAN = """name: p
systems:
  - name: s1
    hardware: h200
    gpus: 8
    sim: {model: llama-3.1-8b, tp: 8}
workloads:
  - {name: w, input_len: 16, output_len: 4}
load: {concurrency: [1, 2], num_prompts: 4}
"""


def _swept_db_with_bad_rows(sql):
  def make(d):
    with open(os.path.join(d, "p.yaml"), "w") as f:
      f.write(_COPY_PLAN)
    subprocess.run([_bin(), "sweep", os.path.join(d, "p.yaml"), "--db", os.path.join(d, "r.db"), "-q"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    con = sqlite3.connect(os.path.join(d, "r.db"))
    con.executescript(sql)
    con.commit()
    con.close()
  return make


_COPY_DAMAGE = [
    ("points-row", "UPDATE points SET num_gpus = 0 WHERE id = 1;",
     r"points row 1 \(run 1\): num_gpus[\s\S]*run 1 of .*r\.db: 1 points rows and 0 requests rows were skipped"),
    ("requests-rows", "UPDATE requests SET output_tokens = -1 WHERE point_id = 2 AND idx IN (0, 1);",
     r"requests row 0 of point 2[\s\S]*run 1 of .*r\.db: 0 points rows and 2 requests rows were skipped"),
    ("both", "UPDATE points SET completed = -1 WHERE id = 2; UPDATE requests SET prompt_tokens = -5 WHERE point_id = 1;",
     r"the copy is incomplete: 1 points rows and 4 requests rows of .*r\.db could not be read \(exit 1\)"),
]
for name, sql, want in _COPY_DAMAGE:
  CASES.append(Case(f"copy-damaged-{name}", ["db", "copy", "--from", "{d}/r.db", "--to", "{d}/c.db"], msg=want,
                    exit=(1,), make=_swept_db_with_bad_rows(sql), timeout_s=60))
CASES.append(Case("copy-damaged-imported-points-row", ["db", "copy", "--from", "{d}/r.db", "--to", "{d}/c.db"],
                  msg=r"run 1 of .*r\.db: 1 points rows and 0 requests rows were skipped as damaged",
                  exit=(1,), make=_db_with_bad_row("output_throughput", 8.5e11), timeout_s=30))
