#!/usr/bin/env python3
"""Runs the hostile-input corpus (tests/hostile/cases) against a frontier binary.

Usage: run_corpus.py --bin PATH [--sanitize] [--jobs N] [--only REGEX] [--work DIR]

Prints one line per case (status, exit, peak RSS, time), then the counts per
class and the largest peak RSS; exits 1 if any case broke its promise.
A sanitizer build gets three times the memory bound plus 512 MiB (shadow
memory and quarantine) and five times the timeout.
"""

import argparse
import concurrent.futures
import importlib.util
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402


def load_cases(folder):
  groups = []
  for fn in sorted(os.listdir(folder)):
    if not fn.endswith(".py") or fn.startswith("_"):
      continue
    name = fn[:-3]
    spec = importlib.util.spec_from_file_location(f"cases_{name}", os.path.join(folder, fn))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    groups.append((name, list(mod.CASES)))
  return groups


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("--bin", required=True)
  ap.add_argument("--sanitize", default="OFF")
  ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
  ap.add_argument("--only", default="")
  ap.add_argument("--work", default="")
  ap.add_argument("--keep", action="store_true", help="keep each case's folder")
  a = ap.parse_args()
  a.bin = os.path.abspath(a.bin)
  sanitize = a.sanitize.upper() in ("ON", "1", "TRUE", "YES")
  here = os.path.dirname(os.path.abspath(__file__))
  groups = load_cases(os.path.join(here, "cases"))
  work = a.work or tempfile.mkdtemp(prefix="frontier-hostile-")
  env = {k: v for k, v in os.environ.items()}
  env["HOME"] = os.path.join(work, "home")
  os.makedirs(env["HOME"], exist_ok=True)
  env.setdefault("FRONTIER_DATA_DIR", "")
  if not env["FRONTIER_DATA_DIR"]:
    del env["FRONTIER_DATA_DIR"]
  # A sanitizer's own report must never look like exit 1 or 2.
  env["ASAN_OPTIONS"] = "exitcode=86:detect_leaks=1:allocator_may_return_null=1"
  env["UBSAN_OPTIONS"] = "exitcode=87:halt_on_error=1:print_stacktrace=1"
  rss_scale, rss_extra, time_scale = (3.0, 512.0, 5.0) if sanitize else (1.0, 0.0, 1.0)

  jobs = []
  seen = set()
  for group, cases in groups:
    for i, c in enumerate(cases):
      key = f"{group}/{c.name}"
      if key in seen:
        print(f"duplicate case name {key}", file=sys.stderr)
        return 2
      seen.add(key)
      if a.only and not re.search(a.only, key):
        continue
      jobs.append((group, c, os.path.join(work, group, f"{i:03d}")))

  failures = []
  outcomes = []
  with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
    futs = {ex.submit(corpus.run_one, a.bin, c, g, d, env, rss_scale, rss_extra, time_scale):
            (g, c) for g, c, d in jobs}
    for f in concurrent.futures.as_completed(futs):
      o = f.result()
      outcomes.append(o)
      tag = "ok  " if not o.problems else "FAIL"
      print(f"{tag} {o.group}/{o.case.name}: exit {o.status}, {o.rss_mib:.0f} MiB, "
            f"{o.seconds:.2f} s", flush=True)
      if o.problems:
        failures.append(o)
        for p in o.problems:
          print(f"       {p}")
        tail = o.stderr.strip().splitlines()[-3:]
        for line in tail:
          print(f"       | {line[:300]}")
  print()
  by_group = {}
  for o in outcomes:
    t = by_group.setdefault(o.group, [0, 0])
    t[0] += 1
    t[1] += 0 if o.problems else 1
  for g in sorted(by_group):
    print(f"class {g}: {by_group[g][1]}/{by_group[g][0]} cases kept their promise")
  top = sorted(outcomes, key=lambda o: -o.rss_mib)[:5]
  print("largest peak RSS: " + ", ".join(
      f"{o.group}/{o.case.name} {o.rss_mib:.0f} MiB (bound {o.case.rss_mib:.0f})" for o in top))
  print(f"{len(outcomes) - len(failures)}/{len(outcomes)} cases passed")
  if not a.keep and not a.work:
    shutil.rmtree(work, ignore_errors=True)
  return 1 if failures else 0


if __name__ == "__main__":
  sys.exit(main())
