"""Shared by scripts/import-*.py: writes validation records made from
published figures (data/published/) into data/validation/."""
import json
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def write_records(out, about, records):
    """Writes {"about", "results"} to `out` (a path under the checkout) and says how many."""
    with open(out, "w") as f:
        f.write(json.dumps({"about": about, "results": records}, indent=1, ensure_ascii=False) + "\n")
    print("wrote %d records to %s" % (len(records), os.path.relpath(out, ROOT)))
