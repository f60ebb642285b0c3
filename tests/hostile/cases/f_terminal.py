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
