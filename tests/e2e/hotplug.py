#!/usr/bin/env python3
"""Rewrite a fixture tree's /proc files as if CPU N went offline (its cpuN line and its column in
/proc/interrupts and /proc/softirqs gone) and update sysfs online; in place, like the kernel.
Usage: hotplug.py offline TREE CPU"""
import os
import sys


def rewrite(path, text):
    data = text.encode()
    fd = os.open(path, os.O_WRONLY)
    os.pwrite(fd, data, 0)
    os.ftruncate(fd, len(data))
    os.close(fd)


def drop_column(path, cpu):
    lines = open(path).read().splitlines()
    header = lines[0].split()
    col = header.index("CPU%d" % cpu)
    out = ["".join("%-11s" % h for i, h in enumerate(header) if i != col)]
    for line in lines[1:]:
        name, rest = line.split(":", 1)
        fields = rest.split()
        if len(fields) > col and fields[col].isdigit():
            del fields[col]
        out.append("%s: %s" % (name, " ".join(fields)))
    rewrite(path, "\n".join(out) + "\n")


def offline(tree, cpu):
    stat = [l for l in open(tree + "/proc/stat").read().splitlines(True) if not l.startswith("cpu%d " % cpu)]
    rewrite(tree + "/proc/stat", "".join(stat))
    drop_column(tree + "/proc/interrupts", cpu)
    drop_column(tree + "/proc/softirqs", cpu)
    online = open(tree + "/sys/devices/system/cpu/online").read().strip()
    ids = [i for i in range(int(online.split("-")[1]) + 1) if i != cpu]
    rewrite(tree + "/sys/devices/system/cpu/online", ",".join(str(i) for i in ids) + "\n")


if __name__ == "__main__":
    offline(sys.argv[2], int(sys.argv[3]))
