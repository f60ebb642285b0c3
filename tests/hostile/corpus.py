"""The hostile-input corpus: cases and the runner that judges them.

A case is one `frontier` command line built from hostile input: a value in
range whose combination is not, a file that lies, an outside program that
hangs. The runner starts it in a fresh folder and asserts what docs/limits.md
promises for every input:

  * the exit status is 1 or 2 (or the case's own `exit`), never 70 (an
    internal error) and never a signal;
  * standard error names the input (the case's `msg`, a regular expression);
  * the peak resident memory of the process stays within the case's bound;
  * it ends before its timeout;
  * a sanitizer build reports nothing.

Cases live in tests/hostile/cases/*.py, each a module with a list `CASES`;
the module's name (a_..., b_..., d_...) is the class of issue #29 it covers.
"""

import dataclasses
import os
import re
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

FileContent = Union[str, bytes, Tuple[Union[str, bytes], int]]


@dataclasses.dataclass
class Case:
  """One hostile command.

  name:     unique within its module; printed with the module's name.
  args:     frontier's arguments; "{d}" is replaced by the case's folder.
  msg:      regular expression that standard error must match (re.search,
            case-insensitive): the field or file the error names.
  exit:     accepted exit statuses.
  files:    name -> content written into the case's folder before the run
            (str, bytes, or (content, mode) for an executable script);
            a callable(folder) may write larger inputs itself.
  pre:      commands (frontier argument lists) run first, each must exit 0,
            e.g. to fill a database the case then reads.
  env:      extra environment; "{d}" is replaced; PATH entries may point
            at fake programs among `files`.
  rss_mib:  peak resident memory bound of the process, in MiB.
  timeout_s: wall-clock bound; a case past it is a hang. Generous: the
            suite runs on a machine whose two cores are shared.
  stdin:    bytes given on standard input (default: none, /dev/null).
  absent:   strings (secrets) that must appear nowhere: not in standard
            output or error, not in any file the run left in its folder.
  """

  name: str
  args: Sequence[str]
  msg: str
  exit: Tuple[int, ...] = (1, 2)
  files: Dict[str, FileContent] = dataclasses.field(default_factory=dict)
  make: Optional[Callable[[str], None]] = None
  pre: List[Sequence[str]] = dataclasses.field(default_factory=list)
  env: Dict[str, str] = dataclasses.field(default_factory=dict)
  rss_mib: float = 256
  timeout_s: float = 120
  stdin: Optional[bytes] = None
  absent: Sequence[str] = ()


@dataclasses.dataclass
class Outcome:
  case: Case
  group: str
  status: Optional[int]   # exit status, None for a signal or a hang
  signal: Optional[int]
  rss_mib: float
  seconds: float
  stderr: str
  problems: List[str]


def _subst(s: str, d: str) -> str:
  return s.replace("{d}", d)


def write_files(case: Case, d: str) -> None:
  for name, content in case.files.items():
    mode = None
    if isinstance(content, tuple):
      content, mode = content
    path = os.path.join(d, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = content.encode() if isinstance(content, str) else content
    with open(path, "wb") as f:
      f.write(data)
    if mode is not None:
      os.chmod(path, mode)
  if case.make is not None:
    case.make(d)


def _spawn(argv, d, env, stdin_bytes, out_path, err_path):
  """Starts argv in its own process group; returns the pid."""
  stdin_fd = os.open(os.devnull, os.O_RDONLY)
  if stdin_bytes is not None:
    p = os.path.join(d, ".stdin")
    with open(p, "wb") as f:
      f.write(stdin_bytes)
    os.close(stdin_fd)
    stdin_fd = os.open(p, os.O_RDONLY)
  out_fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
  err_fd = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
  pid = os.fork()
  if pid == 0:  # child
    try:
      os.setpgid(0, 0)
      os.chdir(d)
      os.dup2(stdin_fd, 0)
      os.dup2(out_fd, 1)
      os.dup2(err_fd, 2)
      os.execve(argv[0], argv, env)
    finally:
      os._exit(127)
  os.close(stdin_fd)
  os.close(out_fd)
  os.close(err_fd)
  return pid


def run_one(binary: str, case: Case, group: str, d: str, env_base: Dict[str, str],
            rss_scale: float, rss_extra_mib: float, time_scale: float) -> Outcome:
  os.makedirs(d, exist_ok=True)
  write_files(case, d)
  env = dict(env_base)
  for k, v in case.env.items():
    env[k] = _subst(v, d)
  problems: List[str] = []
  # Set-up commands: each must succeed.
  for i, pre in enumerate(case.pre):
    argv = [binary] + [_subst(a, d) for a in pre]
    pid = _spawn(argv, d, env, None, os.path.join(d, f".pre{i}.out"),
                 os.path.join(d, f".pre{i}.err"))
    _, st, _ = os.wait4(pid, 0)
    if not os.WIFEXITED(st) or os.WEXITSTATUS(st) != 0:
      with open(os.path.join(d, f".pre{i}.err"), errors="replace") as f:
        err = f.read()[-2000:]
      return Outcome(case, group, None, None, 0, 0, err,
                     [f"set-up command {' '.join(pre)} failed: {err.strip()}"])
  argv = [binary] + [_subst(a, d) for a in case.args]
  out_path = os.path.join(d, ".stdout")
  err_path = os.path.join(d, ".stderr")
  start = time.monotonic()
  pid = _spawn(argv, d, env, case.stdin, out_path, err_path)
  deadline = start + case.timeout_s * time_scale
  hung = False
  while True:
    wpid, st, ru = os.wait4(pid, os.WNOHANG)
    if wpid == pid:
      break
    if time.monotonic() > deadline:
      hung = True
      try:
        os.killpg(pid, 9)
      except ProcessLookupError:
        pass
      _, st, ru = os.wait4(pid, 0)
      break
    time.sleep(0.01)
  seconds = time.monotonic() - start
  rss_mib = ru.ru_maxrss / 1024.0
  with open(err_path, "rb") as f:
    stderr = f.read().decode("utf-8", errors="replace")
  status = os.WEXITSTATUS(st) if os.WIFEXITED(st) else None
  sig = os.WTERMSIG(st) if os.WIFSIGNALED(st) else None
  if hung:
    problems.append(f"no end within {case.timeout_s * time_scale:.0f} s (a hang)")
  elif sig is not None:
    problems.append(f"killed by signal {sig}")
  elif status == 70:
    problems.append("exit 70: an internal error on user input")
  elif status not in case.exit:
    problems.append(f"exit {status}, expected one of {list(case.exit)}")
  if "ERROR: AddressSanitizer" in stderr or "runtime error:" in stderr or \
     "ERROR: LeakSanitizer" in stderr:
    problems.append("the sanitizer reported an error")
  if not hung and not re.search(case.msg, stderr, re.IGNORECASE):
    problems.append(f"standard error does not match /{case.msg}/")
  bound = case.rss_mib * rss_scale + rss_extra_mib
  if rss_mib > bound:
    problems.append(f"peak RSS {rss_mib:.0f} MiB over its bound {bound:.0f} MiB")
  for secret in case.absent:
    where = _find_secret(d, secret.encode(), case)
    if where:
      problems.append(f"the secret {secret[:3]}... appears in {where}")
  return Outcome(case, group, status, sig, rss_mib, seconds, stderr, problems)


def _find_secret(d: str, secret: bytes, case: Case) -> str:
  """The first file under d (outputs included) that holds secret, or ""."""
  inputs = set(case.files)
  for root, _, names in os.walk(d):
    for n in names:
      path = os.path.join(root, n)
      rel = os.path.relpath(path, d)
      if rel in inputs or rel == ".stdin":
        continue
      try:
        with open(path, "rb") as f:
          if secret in f.read():
            return rel
      except OSError:
        continue
  return ""
