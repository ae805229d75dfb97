#!/usr/bin/env bash
# Every config example in the docs is one perfwatchd accepts: each ```ini block of README.md and
# docs/*.md, each example of the man page whose first line is a section header (.EX ... .EE, such
# as "[perfwatchd]" or "[auth]"), and contrib/perfwatchd.conf as shipped go through
# `perfwatchd --config FILE --check-config`. A refusal names the doc file and line it came from.
#
# The rule for writers: a ```ini block is a whole perfwatchd config file, section header included,
# with comments on lines of their own (a '#' after a value is part of the value). Anything else in
# INI syntax gets another fence language (a systemd drop-in is ```systemd). Placeholders such as
# "$2y$10$..." for a bcrypt hash are refused like any bad value: give a real one.
#
# Files an example names (state-dir, record, tls-cert/tls-key, *_file, header_file.NAME) are made
# in a scratch root and the value rewritten to point there (a relative *_file is a systemd
# credential: made in the scratch $CREDENTIALS_DIRECTORY), so an example is checked for what it
# says, not for what this machine holds. Line numbers do not move.
source "$(dirname "$0")/lib.sh"
src=$(cd "$PW_TESTS/.." && pwd)

rc=0
python3 - "$src" "$PERFWATCHD" "$PW_WORK" <<'PY' || rc=$?
import glob, os, re, shutil, subprocess, sys

src, perfwatchd, work = sys.argv[1:]
MIN_BLOCKS = 8  # README 2, docs/*.md 3, the man page 2, contrib 1 when this test was written

def markdown_blocks(path):
    """(line of the opening fence, text) of each ```ini block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        m = re.match(r"^\s*```\s*(\S*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        lang, start = m.group(1), i + 1
        j = i + 1
        while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
            j += 1
        if lang == "ini":
            blocks.append((start, "\n".join(lines[i + 1:j]) + "\n"))
        i = j + 1
    return blocks

ROFF = [("\\-", "-"), ("\\(aq", "'"), ("\\(dq", '"'), ("\\(em", "-"), ("\\&", ""), ("\\e", "\\")]

def man_blocks(path):
    """(line of .EX, text) of each example whose first line is an INI section header."""
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        if lines[i].strip() != ".EX":
            i += 1
            continue
        start, body = i + 1, []
        i += 1
        while i < len(lines) and lines[i].strip() != ".EE":
            text = lines[i]
            for a, b in ROFF:
                text = text.replace(a, b)
            body.append("" if text.startswith(".") else text)  # a request: keep the numbering
            i += 1
        first = next((l for l in body if l.strip()), "")
        if first.lstrip().startswith("["):
            blocks.append((start, "\n".join(body) + "\n"))
    return blocks

blocks = []  # (doc path relative to src, line of the block's first line - 1, text)
for doc in ["README.md"] + sorted(os.path.relpath(p, src) for p in glob.glob(os.path.join(src, "docs", "*.md"))):
    blocks += [(doc, start, text) for start, text in markdown_blocks(os.path.join(src, doc))]
blocks += [("docs/perfwatchd.8", start, text)
           for start, text in man_blocks(os.path.join(src, "docs", "perfwatchd.8"))]
blocks.append(("contrib/perfwatchd.conf", 0, open(os.path.join(src, "contrib", "perfwatchd.conf")).read()))

root = os.path.join(work, "root")          # absolute paths of the examples, under here
creds = os.path.join(work, "credentials")  # $CREDENTIALS_DIRECTORY for relative *_file keys
os.makedirs(creds, exist_ok=True)
tls_pair = {}

def tls_files():
    """A self-signed certificate and its key, made once."""
    if not tls_pair:
        cert, key = os.path.join(work, "cert.pem"), os.path.join(work, "key.pem")
        if not shutil.which("openssl"):
            print("SKIP: an example names tls-cert/tls-key and openssl is missing", file=sys.stderr)
            sys.exit(77)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-subj", "/CN=localhost", "-keyout", key, "-out", cert],
                       check=True, capture_output=True)
        tls_pair.update({"tls-cert": cert, "tls-key": key})
    return tls_pair

def sandboxed(key, value):
    """The value to check instead of an example's path, with what it names made."""
    key = key.lower()
    if key in ("tls-cert", "tls-key"):
        return tls_files()[key]
    if key == "state-dir":
        path = root + os.path.abspath(value)
        os.makedirs(path, mode=0o700, exist_ok=True)
        return path
    if key == "record":
        path = root + os.path.abspath(value)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return path
    if key.endswith("_file") and key != "ca_file" or key.startswith("header_file."):
        path = os.path.join(creds, value) if not value.startswith("/") else root + value
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:  # a URL for url_file, a token or password for the rest
            f.write("https://hooks.example.com/from-a-file\n" if key == "url_file" else "s3cret\n")
        os.chmod(path, 0o600)
        return path
    return value

def rewrite(text):
    out = []
    for line in text.split("\n"):
        m = re.match(r"^(\s*)([^#;\[\s][^=]*?)(\s*=\s*)(.*?)\s*$", line)
        if m and m.group(4):
            value = sandboxed(m.group(2), m.group(4))
            line = m.group(1) + m.group(2) + m.group(3) + value
        out.append(line)
    return "\n".join(out)

env = dict(os.environ, CREDENTIALS_DIRECTORY=creds)
failures, counts = [], {}
for n, (doc, base, text) in enumerate(blocks):
    counts[doc] = counts.get(doc, 0) + 1
    conf = os.path.join(work, "example%d.conf" % n)
    with open(conf, "w") as f:
        f.write(rewrite(text))
    r = subprocess.run([perfwatchd, "--config", conf, "--check-config"], env=env,
                       capture_output=True, text=True)
    said = (r.stdout + r.stderr).strip()
    if r.returncode == 0 and "configuration OK" in said:
        continue
    m = re.search(re.escape(conf) + r":(\d+): (.*)", said)
    if m:
        where, why = base + int(m.group(1)), m.group(2)
    else:
        where, why = base, said.replace(conf, "the example")
    failures.append("%s:%d: refused by perfwatchd --check-config (exit %d): %s"
                    % (doc, where, r.returncode, why))

for f in failures:
    print("FAIL:", f, file=sys.stderr)
print("%d config examples checked: %s" % (len(blocks), ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
if len(blocks) < MIN_BLOCKS:
    print("FAIL: only %d config examples found, expected at least %d: did the fences or the man page's "
          ".EX blocks change?" % (len(blocks), MIN_BLOCKS), file=sys.stderr)
    sys.exit(1)
for doc in ("README.md", "docs/perfwatchd.8"):
    if not counts.get(doc):
        print("FAIL: no config example found in %s" % doc, file=sys.stderr)
        sys.exit(1)
sys.exit(1 if failures else 0)
PY
[ "$rc" != 77 ] || pw_skip "an example needs openssl for its TLS files"
[ "$rc" = 0 ] || pw_fail "a config example in the docs is refused, or too few were found (above)"
echo "PASS: every config example in README.md, docs/ and contrib/perfwatchd.conf is accepted"
