#!/usr/bin/env python3
"""sdproto.py — the systemd side of perfwatchd's protocols, for tests on machines where systemd is
not PID 1 (containers, CI). Three roles:

  notify SOCKET OUT     a NOTIFY_SOCKET: each datagram becomes lines "MONOTONIC_SECONDS KEY=VALUE"
                        in OUT (one per assignment), flushed as they arrive.
  journal SOCKET OUT    a journald native socket (/run/systemd/journal/socket protocol): each record
                        becomes one JSON object per line in OUT.
  activate PORTFILE -- CMD...
                        socket activation: listen on 127.0.0.1:0, write the port to PORTFILE, pass
                        the socket as fd 3 with LISTEN_FDS=1 and LISTEN_PID=<CMD's pid>, exec CMD.
  freeze PID THREAD SECONDS
                        a hung thread: stop only the thread named THREAD of PID (ptrace seize +
                        interrupt) for SECONDS, then let it go; prints "FROM TO" in time.monotonic()
                        seconds (the clock `notify` stamps with). Exit 3 when ptrace is not allowed.

The listeners exit on SIGTERM.
"""
import json
import os
import signal
import socket
import struct
import sys
import time


def bind_dgram(path):
    if os.path.exists(path):
        os.unlink(path)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    return s


def notify(path, out):
    s = bind_dgram(path)
    with open(out, "a", buffering=1) as f:
        while True:
            data = s.recv(65536)
            now = time.monotonic()
            for line in data.decode("utf-8", "replace").split("\n"):
                if line:
                    f.write(f"{now:.6f} {line}\n")


def parse_journal(data):
    """The native protocol: KEY=VALUE\\n, or KEY\\n<le64 size>VALUE\\n for binary-safe values."""
    fields, i = {}, 0
    while i < len(data):
        nl = data.index(b"\n", i)
        line = data[i:nl]
        if b"=" in line:
            k, v = line.split(b"=", 1)
            i = nl + 1
        else:
            k = line
            (size,) = struct.unpack_from("<Q", data, nl + 1)
            v = data[nl + 9 : nl + 9 + size]
            i = nl + 9 + size + 1
        fields[k.decode()] = v.decode("utf-8", "replace")
    return fields


def journal(path, out):
    s = bind_dgram(path)
    with open(out, "a", buffering=1) as f:
        while True:
            data = s.recv(1 << 20)
            f.write(json.dumps(parse_journal(data)) + "\n")


def activate(portfile, cmd):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    with open(portfile + ".tmp", "w") as f:
        f.write(f"{s.getsockname()[1]}\n")
    os.rename(portfile + ".tmp", portfile)
    if s.fileno() != 3:
        os.dup2(s.fileno(), 3)  # dup2 clears close-on-exec on fd 3
    else:
        os.set_inheritable(3, True)
    env = dict(os.environ, LISTEN_FDS="1", LISTEN_PID=str(os.getpid()))
    os.execvpe(cmd[0], cmd, env)  # the same pid: LISTEN_PID stays true


def freeze(pid, thread, seconds):
    import ctypes

    tids = [int(t) for t in os.listdir(f"/proc/{pid}/task")
            if open(f"/proc/{pid}/task/{t}/comm").read().strip() == thread]
    if not tids:
        sys.exit(f"no thread {thread} in {pid}")
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    PTRACE_SEIZE, PTRACE_INTERRUPT, PTRACE_DETACH = 0x4206, 0x4207, 17
    if libc.ptrace(PTRACE_SEIZE, tids[0], None, None) != 0:
        print(f"ptrace: {os.strerror(ctypes.get_errno())}", file=sys.stderr)
        sys.exit(3)
    libc.ptrace(PTRACE_INTERRUPT, tids[0], None, None)
    os.waitpid(tids[0], 0x40000000)  # __WALL: the thread has stopped
    start = time.monotonic()
    time.sleep(seconds)
    end = time.monotonic()
    libc.ptrace(PTRACE_DETACH, tids[0], None, None)
    print(f"{start:.6f} {end:.6f}")


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    role = sys.argv[1]
    if role == "notify":
        notify(sys.argv[2], sys.argv[3])
    elif role == "journal":
        journal(sys.argv[2], sys.argv[3])
    elif role == "freeze":
        freeze(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]))
    elif role == "activate":
        assert sys.argv[3] == "--"
        activate(sys.argv[2], sys.argv[4:])
    else:
        sys.exit(f"unknown role {role}")


if __name__ == "__main__":
    main()
