"""Class G: exit codes and messages name the input (issue #29)."""
from corpus import Case

CASES = [
    Case("input-len-zero", ["simulate", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--input-len", "0"], msg=r"--input-len"),
    Case("plan-is-dev-zero", ["sweep", "/dev/zero"], msg=r"/dev/zero: larger than"),
    Case("plan-missing", ["sweep", "{d}/nope.yaml"], msg=r"nope\.yaml"),
    Case("merge-missing-shard", ["bench", "merge", "{d}/none.jsonl"], msg=r"none\.jsonl"),
]
