"""Class E: secrets never leave the process (issue #29).

Each case gives frontier a password, an API key or an authorization header
that it must use and never print, store or export: the runner greps standard
output, standard error and every file the run left for it (`absent`).
"""
from corpus import Case

PW = "pw-Zq8xKv31"
KEY = "sk-live-7Hn2Wq0pLm"
TOK = "tok-Bv4Rc9Ys2E"
REFUSED = "http://127.0.0.1:1"   # nothing listens on port 1: every request is refused

_bench = ["bench", "--base-url", REFUSED, "--model", "m", "--num-prompts", "3",
          "--input-len", "8", "--output-len", "4", "--result-json", "{d}/r.json",
          "--requests-jsonl", "{d}/req.jsonl"]

CASES = []
for scheme in ("postgresql", "postgres", "PostgreSQL", "POSTGRES"):
  CASES.append(Case(f"simulate-db-url-{scheme}",
                    ["simulate", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--num-prompts", "5", "--db",
                     f"{scheme}://alice:{PW}@127.0.0.1:1/results"],
                    msg=r"127\.0\.0\.1|database|postgres", absent=[PW]))
CASES += [
    Case("db-url-password-param",
         ["simulate", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--num-prompts", "5", "--db",
          f"postgresql://127.0.0.1:1/results?user=alice&password={PW}"],
         msg=r"database|postgres", absent=[PW]),
    Case("db-ls-url-password", ["db", "ls", "--db", f"postgresql://bob:{PW}@127.0.0.1:1/x"],
         msg=r"database|postgres", absent=[PW]),
    Case("bench-api-key", _bench + ["--api-key", KEY], msg=r"fail|refused|connect",
         absent=[KEY]),
    Case("bench-api-key-env", _bench, msg=r"fail|refused|connect",
         env={"OPENAI_API_KEY": KEY}, absent=[KEY]),
    Case("bench-authorization-header", _bench + ["--header", f"Authorization: Bearer {TOK}"],
         msg=r"fail|refused|connect", absent=[TOK]),
    Case("bench-x-api-key-header", _bench + ["--header", f"X-Api-Key: {TOK}"],
         msg=r"fail|refused|connect", absent=[TOK]),
    Case("bench-lowercase-auth-header", _bench + ["--header", f"authorization: {TOK}"],
         msg=r"fail|refused|connect", absent=[TOK]),
    Case("bench-all-three-with-db",
         _bench + ["--api-key", KEY, "--header", f"Authorization: Bearer {TOK}",
                   "--db", f"postgresql://carol:{PW}@127.0.0.1:1/r"],
         msg=r"database|postgres|fail", absent=[KEY, TOK, PW]),
    Case("sweep-db-password", ["sweep", "{d}/plan.yaml", "--db", f"postgresql://dave:{PW}@127.0.0.1:1/r"],
         msg=r"database|postgres",
         files={"plan.yaml": (
             "name: s\nsystems:\n  - name: s\n    hardware: h100-sxm\n    gpus: 1\n"
             "    sim: {model: llama-3.1-8b, tp: 1}\nworkloads:\n  - name: w\n    input_len: 8\n"
             "    output_len: 4\nload:\n  concurrency: [1]\n  num_prompts: 4\n")},
         absent=[PW]),
]
