"""Class F: outside text is printed escaped (issue #29).

A model name or a file name carrying terminal control sequences (ESC, BEL,
CSI) is printed escaped, never raw: the raw sequence appears in no output.
"""
from corpus import Case

TITLE = "\x1b]0;owned\x07"
CLEAR = "\x1b[2J\x1b[H"
REFUSED = "http://127.0.0.1:1"

CASES = []
for tag, seq in (("osc-title", TITLE), ("csi-clear", CLEAR), ("bel", "\x07x\x07"),
                 ("c1-csi", "\u009b2J")):
  CASES += [
      Case(f"bench-model-{tag}",
           ["bench", "--base-url", REFUSED, "--model", "m" + seq, "--num-prompts", "2",
            "--input-len", "4", "--output-len", "2"],
           msg=r"fail|refused|connect", absent=[seq]),
      Case(f"plan-missing-{tag}", ["sweep", "{d}/plan" + seq + ".yaml"], msg=r"plan",
           absent=[seq]),
      Case(f"simulate-model-{tag}", ["simulate", "--model", "x" + seq, "--hardware", "h100-sxm"],
           msg=r"model", absent=[seq]),
  ]

# A sweep's progress lines and failure details print the plan's names
# (systems, workloads, model ids) and messages that quote them: escaped, as
# `db ls` does. A C1 code point passes the plan's check on names (C0 and DEL)
# and must still print escaped. The database keeps the names as given, so the
# check is on standard error: no raw control character anywhere in it.
_SWEEP_PLAN = """name: p
systems:
  - name: "s{sys}"
    hardware: h200
    gpus: 8
    sim: {{model: "{model}", tp: 8}}
workloads:
  - {{name: "w{wl}", input_len: 16, output_len: 4}}
load: {{concurrency: [1]}}
"""
_NO_RAW = r"\A(?![\s\S]*[\x07\x1b\u0080-\u009f])[\s\S]*"
for tag, sys_seq, wl, model, want_exit, want in (
    ("system-c1-csi", "\\u009b2J", "", "llama-3.1-8b", (0,), r"s\\u009b2J .*done"),
    ("workload-c1-osc", "", "\\u009d0;owned\\u009c", "llama-3.1-8b", (0,), r"w\\u009d0;owned\\u009c.*done"),
    ("model-osc-title", "\\u009b2J", "", "llama\\e]0;owned\\a", (1,),
     r"s\\u009b2J .*broken.*unknown model 'llama\\x1b\]0;owned\\x07'"),
    ("model-csi-clear", "", "", "m\\e[2J\\e[H", (1,), r"broken.*unknown model 'm\\x1b\[2J\\x1b\[H'"),
):
  CASES.append(Case(f"sweep-progress-{tag}", ["sweep", "{d}/p.yaml", "--db", "{d}/r.db"], msg=_NO_RAW + want,
                    exit=want_exit, files={"p.yaml": _SWEEP_PLAN.format(sys=sys_seq, model=model, wl=wl)},
                    timeout_s=60))
