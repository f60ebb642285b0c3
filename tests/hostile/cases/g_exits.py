"""Class G: exit codes and messages name the input (issue #29).

Each error names the file, the line or record, and the field; a library's
own exception text (nlohmann, yaml-cpp, std::stod) never stands alone.
"""
import json

from corpus import Case

CASES = [
    Case("input-len-zero", ["simulate", "--model", "llama-3.1-8b", "--hardware", "h200", "--input-len", "0"],
         msg=r"--input-len"),
    Case("plan-is-dev-zero", ["sweep", "/dev/zero"], msg=r"/dev/zero: larger than"),
    Case("plan-missing", ["sweep", "{d}/nope.yaml"], msg=r"nope\.yaml"),
    Case("merge-missing-shard", ["bench", "merge", "{d}/none.jsonl"], msg=r"none\.jsonl"),
]

# ---- plans: a key given twice, at each level, is an error naming both lines ----

_PLAN = """name: p
systems:
  - name: s1
    hardware: h200
    gpus: 8
    sim: {model: llama-3.1-70b, tp: 8}
workloads:
  - {name: w, input_len: 16, output_len: 4}
load: {concurrency: [1]}
"""

_DUPLICATES = [
    ("top-name", _PLAN + "name: q\n", r"p\.yaml:10: name: the key is given twice \(first at line 1\)"),
    ("top-load", _PLAN + "load: {concurrency: [2]}\n", r"p\.yaml:10: load: the key is given twice"),
    ("system-gpus", _PLAN.replace("    gpus: 8\n", "    gpus: 8\n    gpus: 16\n"),
     r"p\.yaml:6: systems\[0\]\.gpus: the key is given twice \(first at line 5\)"),
    ("system-name", _PLAN.replace("    hardware: h200\n", "    hardware: h200\n    name: s2\n"),
     r"systems\[0\]\.name: the key is given twice"),
    ("sim-tp", _PLAN.replace("tp: 8}", "tp: 8, tp: 1}"), r"systems\[0\]\.sim\.tp: the key is given twice"),
    ("workload-input-len", _PLAN.replace("input_len: 16,", "input_len: 16, input_len: 9,"),
     r"workloads\[0\]\.input_len: the key is given twice"),
    ("load-concurrency", _PLAN.replace("load: {concurrency: [1]}", "load: {concurrency: [1], concurrency: [2]}"),
     r"load\.concurrency: the key is given twice"),
    ("slurm-time", _PLAN + "executor: slurm\nslurm: {time: '01:00:00', time: '02:00:00'}\n",
     r"slurm\.time: the key is given twice"),
    ("slo", _PLAN + "slo:\n  ttft_ms: 100\n  ttft_ms: 200\n", r"p\.yaml:12: slo\.ttft_ms: the key is given twice"),
    ("launch-command", _PLAN.replace("    gpus: 8\n", "    gpus: 8\n    launch: {command: a, command: b}\n"),
     r"systems\[0\]\.launch\.command: the key is given twice"),
    ("quoted-and-plain", _PLAN + "'name': q\n", r"name: the key is given twice"),
]
for name, text, want in _DUPLICATES:
  CASES.append(Case(f"plan-duplicate-{name}", ["sweep", "{d}/p.yaml", "--db", "{d}/r.db"], msg=want, exit=(2,),
                    files={"p.yaml": text}))

# ---- names with control characters ----

_CONTROL = [
    ("plan-name-esc", _PLAN.replace("name: p\n", 'name: "p\\e]0;pwned\\a"\n'), r"p\.yaml:1: name: must not contain control"),
    ("system-name-bel", _PLAN.replace("  - name: s1", '  - name: "s\\a1"'), r"systems\[0\]\.name: must not contain control"),
    ("workload-name-nl", _PLAN.replace("{name: w,", '{name: "w\\nx",'), r"workloads\[0\]\.name: must not contain control"),
    ("system-name-del", _PLAN.replace("  - name: s1", '  - name: "s\\x7f1"'), r"systems\[0\]\.name: must not contain control"),
    ("plan-name-csi", _PLAN.replace("name: p\n", 'name: "\\e[2J"\n'), r"name: must not contain control characters, got '\\x1b"),
]
for name, text, want in _CONTROL:
  CASES.append(Case(f"control-{name}", ["sweep", "{d}/p.yaml", "--db", "{d}/r.db"], msg=want, exit=(2,),
                    files={"p.yaml": text}))

# ---- bench merge: every message names the file, the line and the field ----

_REC = {"id": 0, "ok": True, "scheduled_ns": 0, "sent_ns": 10, "first_token_ns": 500, "end_ns": 900,
        "prompt_tokens": 10, "output_tokens": 1, "events": [[500, 1]]}
_META = {"shard_index": 0, "shard_count": 1, "host": "h", "clock_offset_ns": 0, "clock_offset_bound_ns": 0,
         "schedule": {"num_prompts": 1}, "run": {"num_gpus": 1}}


def _merge_files(rec=None, meta=None, line=None):
  return {"s.jsonl": (line if line is not None else json.dumps(rec or _REC)) + "\n",
          "s.jsonl.shard.json": meta if isinstance(meta, str) else json.dumps(meta or _META)}


def _with(d, **kw):
  out = dict(d)
  out.update(kw)
  return out


_MERGE = [
    ("meta-too-large", _merge_files(meta=json.dumps(_with(_META, pad="x" * (2 << 20)))),
     r"s\.jsonl\.shard\.json: larger than"),
    ("meta-not-json", _merge_files(meta="{not json"), r"s\.jsonl\.shard\.json: not a shard description"),
    ("meta-array", _merge_files(meta="[1, 2]"), r"s\.jsonl\.shard\.json: not a shard description"),
    ("meta-index-string", _merge_files(meta=_with(_META, shard_index="zero")),
     r"s\.jsonl\.shard\.json: shard_index must be an integer"),
    ("meta-count-missing", _merge_files(meta={k: v for k, v in _META.items() if k != "shard_count"}),
     r"s\.jsonl\.shard\.json: field 'shard_count' is missing"),
    ("meta-schedule-list", _merge_files(meta=_with(_META, schedule=[1])), r"schedule must be a JSON object"),
    ("meta-num-prompts-string", _merge_files(meta=_with(_META, schedule={"num_prompts": "many"})),
     r"schedule: num_prompts must be"),
    ("record-not-json", _merge_files(line='{"id": 0, "ok": tru'), r"s\.jsonl:1: not JSON"),
    ("record-ok-string", _merge_files(rec=_with(_REC, ok="yes")), r"s\.jsonl:1: request record: ok"),
    ("record-sent-string", _merge_files(rec=_with(_REC, sent_ns="later")), r"s\.jsonl:1: request record: sent_ns"),
    ("record-events-object", _merge_files(rec=_with(_REC, events={"a": 1})), r"s\.jsonl:1: request record: events"),
    ("record-event-short", _merge_files(rec=_with(_REC, events=[[500]])), r"s\.jsonl:1: request record: events\[0\]"),
    ("record-http-status", _merge_files(rec=_with(_REC, http_status=70000)), r"s\.jsonl:1: request record: http_status"),
    ("record-failure-number", _merge_files(rec=_with(_REC, failure=7)), r"s\.jsonl:1: request record: failure"),
    ("record-timings-string", _merge_files(rec=_with(_REC, server_timings={"prompt_ms": "x"})),
     r"server_timings: prompt_ms"),
    ("record-not-object", _merge_files(line="[1, 2, 3]"), r"s\.jsonl:1: request record: not a JSON object"),
]
for name, files, want in _MERGE:
  CASES.append(Case(f"merge-{name}", ["bench", "merge", "{d}/s.jsonl"], msg=want, exit=(2,), files=files))
