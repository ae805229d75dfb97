#!/usr/bin/env bash
# docs/architecture.md's module tables and the source tree agree: every .c file under lib/,
# exporters/ and daemon/ is named in a table row (its module in the first cell, `collect`, or the
# file itself in the row, `probe_procs.c`), and every module a first cell names has a source file.
source "$(dirname "$0")/lib.sh"
src=$(cd "$PW_TESTS/.." && pwd)

python3 - "$src" <<'PY' || pw_fail "docs/architecture.md's module tables and the source tree disagree"
import glob, os, re, sys

src = sys.argv[1]
doc = open(os.path.join(src, "docs", "architecture.md")).read()
rows = [line for line in doc.splitlines() if line.startswith("| `")]
first = {re.match(r"\| `([a-z0-9_]+)` \|", row).group(1) for row in rows if re.match(r"\| `([a-z0-9_]+)` \|", row)}
files_named = set(re.findall(r"`([a-z0-9_]+)\.c`", "\n".join(rows)))
bad = False
sources = set()
for folder in ("lib", "exporters", "daemon"):
    for path in sorted(glob.glob(os.path.join(src, folder, "*.c"))):
        module = os.path.basename(path)[:-2]
        sources.add(module)
        if module not in first and module not in files_named:
            print(f"{folder}/{module}.c: no row in docs/architecture.md's module tables")
            bad = True
for module in sorted(first):
    if not any(glob.glob(os.path.join(src, folder, module + ext))
               for folder in ("lib", "exporters", "daemon") for ext in (".c", ".h")):
        print(f"docs/architecture.md names module `{module}`, which has no file under lib/, exporters/ or daemon/")
        bad = True
sys.exit(1 if bad else 0)
PY
echo PASS
