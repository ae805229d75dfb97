#!/usr/bin/env python3
"""smaps.py — where a process's resident memory goes, from /proc/PID/smaps.

Groups mappings by what backs them (a file's base name, [heap], [stack], anonymous) and prints,
per group, Rss, Pss, Private_Clean, Private_Dirty, Shared_Clean, Shared_Dirty and Anonymous in KiB,
largest Rss first, then totals split into anonymous and file-backed. Anonymous mappings are split
further by size class (a 8 MiB+4 KiB pair is a thread stack and its guard; 64 MiB-aligned
reservations are glibc malloc arenas), which is what tells heap, arenas, stacks and our rings apart.

Usage: smaps.py PID [--tsv] [--top N]
  --tsv   one line per group, tab-separated, for scripts
"""
import argparse
import collections
import os
import sys

FIELDS = ["Rss", "Pss", "Private_Clean", "Private_Dirty", "Shared_Clean", "Shared_Dirty", "Anonymous"]


def parse(pid):
    maps = []
    cur = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if "-" in parts[0] and not parts[0].endswith(":"):
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                cur = {"lo": lo, "hi": hi, "perms": parts[1], "path": " ".join(parts[5:]) if len(parts) > 5 else ""}
                cur.update({k: 0 for k in FIELDS})
                maps.append(cur)
            elif parts[0].rstrip(":") in FIELDS and cur is not None:
                cur[parts[0].rstrip(":")] = int(parts[1])
    return maps


def classify(m, prev):
    path = m["path"]
    size_kib = (m["hi"] - m["lo"]) // 1024
    if path.startswith("/"):
        return os.path.basename(path)
    if path:
        return path  # [heap], [stack], [vdso], [vvar] ...
    if m["perms"].startswith("---"):
        return "anon: guard/reserved (no access)"
    # An rw anonymous mapping right after a no-access page is a thread stack (glibc puts the guard
    # below the stack) or the used part of a malloc arena (its reserve follows it).
    if prev is not None and prev["hi"] == m["lo"] and prev["perms"].startswith("---") and not prev["path"]:
        return f"anon: after guard ({size_kib} KiB: thread stack or arena)"
    return f"anon: rw {size_kib} KiB"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pid")
    ap.add_argument("--tsv", action="store_true")
    ap.add_argument("--top", type=int, default=30)
    a = ap.parse_args()
    maps = parse(a.pid)
    groups = collections.OrderedDict()
    prev = None
    for m in maps:
        key = classify(m, prev)
        g = groups.setdefault(key, {k: 0 for k in FIELDS} | {"maps": 0})
        for k in FIELDS:
            g[k] += m[k]
        g["maps"] += 1
        prev = m
    rows = sorted(groups.items(), key=lambda kv: -kv[1]["Rss"])
    anon = sum(m["Rss"] for m in maps if not m["path"].startswith("/"))
    file_ = sum(m["Rss"] for m in maps if m["path"].startswith("/"))
    if a.tsv:
        print("group\tmaps\t" + "\t".join(FIELDS))
        for name, g in rows:
            print(f"{name}\t{g['maps']}\t" + "\t".join(str(g[k]) for k in FIELDS))
        return
    print(f"{'mapping (KiB)':44} {'Rss':>6} {'Pss':>6} {'PrivCl':>6} {'PrivDi':>6} {'ShCl':>6} {'ShDi':>6} {'Anon':>6}")
    for name, g in rows[: a.top]:
        if g["Rss"] == 0:
            continue
        print(f"{name[:44]:44} " + " ".join(f"{g[k]:6d}" for k in FIELDS))
    tot = {k: sum(m[k] for m in maps) for k in FIELDS}
    print(f"{'TOTAL':44} " + " ".join(f"{tot[k]:6d}" for k in FIELDS))
    print(f"file-backed Rss {file_} KiB (private {sum(m['Private_Clean'] + m['Private_Dirty'] for m in maps if m['path'].startswith('/'))}), "
          f"anonymous/other Rss {anon} KiB")


if __name__ == "__main__":
    sys.exit(main())
