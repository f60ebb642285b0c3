"""Class H: outside programs that hang or lie (issue #29), the Slurm part.

Fake sbatch, squeue, scontrol, sacct and scancel scripts on PATH: each case
has one that hangs, prints a state Slurm does not have, or answers nonsense.
The sweep must end (with slurm.tool_timeout_s small), name the tool, the job
and the state, and never poll forever.
"""
from corpus import Case

_PLAN = """name: fake
systems:
  - {name: s1, hardware: h200, gpus: 8, sim: {model: llama-3.1-70b, tp: 8}}
workloads:
  - {name: w, input_len: 16, output_len: 4}
load: {concurrency: [1]}
executor: slurm
slurm: {time: "00:10:00", tool_timeout_s: 0.5, poll_s: 0.1}
"""

# The tools that behave, unless a case replaces one.
_OK = {
    "sbatch": 'if [ "$1" = --version ]; then echo "slurm 23.02"; exit 0; fi\necho 4242',
    "squeue": "echo RUNNING",
    "scontrol": "exit 1",
    "sacct": "exit 0",
    "scancel": "exit 0",
}


def _tools(**over):
  files = {"p.yaml": _PLAN}
  for name, body in {**_OK, **over}.items():
    files[f"bin/{name}"] = ("#!/bin/sh\n" + body + "\n", 0o755)
  return files


_ENV = {"PATH": "{d}/bin:/usr/bin:/bin"}
_SWEEP = ["sweep", "{d}/p.yaml", "--db", "{d}/r.db"]

_HANG = "sleep 60"
_CASES = [
    # sbatch
    ("sbatch-hangs", dict(sbatch=_HANG), r"sbatch did not finish within 0\.5 s \(slurm\.tool_timeout_s\)", (1,)),
    ("sbatch-submit-hangs", dict(sbatch='if [ "$1" = --version ]; then exit 0; fi\nsleep 60'),
     r"sbatch did not finish within 0\.5 s", (1,)),
    ("sbatch-prints-nonsense", dict(sbatch='if [ "$1" = --version ]; then exit 0; fi\necho "job forty-two"'),
     r"sbatch refused the job of system s1", (1,)),
    ("sbatch-prints-nothing", dict(sbatch='if [ "$1" = --version ]; then exit 0; fi\nexit 0'),
     r"sbatch refused the job of system s1", (1,)),
    ("sbatch-fails", dict(sbatch='if [ "$1" = --version ]; then exit 0; fi\necho "Invalid partition" >&2; exit 1'),
     r"sbatch refused the job of system s1: Invalid partition", (1,)),
    ("sbatch-version-fails", dict(sbatch="exit 3"), r"cannot run sbatch", (1,)),
    ("sbatch-hangs-ignoring-term", dict(sbatch="trap '' TERM\nsleep 60"), r"sbatch did not finish within", (1,)),
    ("sbatch-child-keeps-pipe", dict(sbatch='(sleep 60) &\nif [ "$1" = --version ]; then exit 0; fi\necho 4242'),
     r"sbatch|unknown job state|RUNNING|did not finish", (1,)),
    # squeue
    ("squeue-unknown-state", dict(squeue="echo BANANA"), r"job 4242: squeue printed the unknown job state 'BANANA'",
     (1,)),
    ("squeue-lowercase-state", dict(squeue="echo running"), r"unknown job state 'running'", (1,)),
    ("squeue-escape-state", dict(squeue=r"printf 'RUN\033]0;pwned\007NING\n'"), r"unknown job state 'RUN\\x1b", (1,)),
    ("squeue-number-state", dict(squeue="echo 12345"), r"unknown job state '12345'", (1,)),
    ("squeue-long-state", dict(squeue="head -c 100000 /dev/zero | tr '\\0' 'A'; echo"), r"unknown job state 'AAAA",
     (1,)),
    ("squeue-hangs", dict(squeue=_HANG), r"job 4242: squeue did not finish within 0\.5 s .* at 3 polls running", (1,)),
    ("squeue-hangs-ignoring-term", dict(squeue="trap '' TERM INT\nsleep 60"), r"squeue did not finish", (1,)),
    ("squeue-then-scontrol-hangs", dict(squeue="exit 0", scontrol=_HANG), r"job 4242: scontrol did not finish", (1,)),
    ("squeue-then-sacct-hangs", dict(squeue="exit 0", scontrol="exit 1", sacct=_HANG),
     r"job 4242: sacct did not finish", (1,)),
    ("scontrol-unknown-state", dict(squeue="exit 0", scontrol="echo 'JobId=4242 JobState=WEIRD Reason=None'"),
     r"scontrol printed the unknown job state 'WEIRD'", (1,)),
    ("sacct-unknown-state", dict(squeue="exit 0", scontrol="exit 1", sacct="echo ZOMBIE"),
     r"sacct printed the unknown job state 'ZOMBIE'", (1,)),
    ("unknown-state-scancel-hangs", dict(squeue="echo BANANA", scancel=_HANG), r"unknown job state 'BANANA'", (1,)),
    # SIGTERM while polling ends the sweep, 130, even when the jobs never end
    ("sigterm-while-polling", dict(squeue='kill -TERM $PPID; echo RUNNING'), r"\bcancel\b.*job 4242", (130,)),
    ("sigterm-scancel-hangs", dict(squeue='kill -TERM $PPID; echo RUNNING', scancel=_HANG), r"\bcancel\b.*job 4242", (130,)),
    ("sigterm-squeue-hangs", dict(squeue='kill -TERM $PPID; sleep 60'), r"\bcancel\b.*job 4242", (130,)),
    ("sigint-while-polling", dict(squeue='kill -INT $PPID; echo PENDING'), r"\bcancel\b.*job 4242", (130,)),
]

CASES = [Case(name, _SWEEP, msg=msg, exit=ex, files=_tools(**over), env=_ENV, timeout_s=20)
         for name, over, msg, ex in _CASES]

# The plan's timeouts are bounded like every other field.
_DEFAULTS = {"tool_timeout_s": "tool_timeout_s: 0.5", "poll_s": "poll_s: 0.1"}
for key, value in [("tool_timeout_s", "0"), ("tool_timeout_s", "1e9"), ("tool_timeout_s", "soon"),
                   ("poll_s", "-1"), ("poll_s", "0")]:
  plan = _PLAN.replace(_DEFAULTS[key], f"{key}: {value}")
  CASES.append(Case(f"plan-{key}-{value}", _SWEEP, msg=rf"slurm\.{key}: must be a number in \[0\.1, 3600\]",
                    exit=(2,), files={"p.yaml": plan}))
