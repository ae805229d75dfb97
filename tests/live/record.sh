#!/usr/bin/env bash
# record.sh BUILD_DIR — run the live suite (as root, about 5 minutes) with the perfwatchd of
# BUILD_DIR and, when every case passed, replace tests/fixtures/recordings/live-*: one recording per
# daemon run (live-drop.pwrec: case i; live-main.pwrec: cases a-h and j), one NAME.json per case with its
# window, expectations and replay flags, and live.conf; then check them with test_replay_recordings.
# A run with a failing or skipped case changes nothing: a recording must hold what its case expects.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tests=$(cd "$here/.." && pwd)
build=$(cd "${1:?usage: record.sh BUILD_DIR}" && pwd)
export PERFWATCHD="$build/daemon/perfwatchd" PW_FIXTURES="$tests/fixtures" PW_TESTS="$tests"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

LIVE_RECORD_DIR="$out" bash "$here/test_live_incidents.sh" || {
	echo "record.sh: the live suite did not pass (above): recordings left as they were" >&2
	exit 1
}
rec="$tests/fixtures/recordings"
rm -f "$rec"/live-*.json "$rec"/live-*.pwrec
cp "$out"/live-* "$rec/"
cp "$here/live.conf" "$rec/live.conf"
PW_SCRATCH="$out" bash "$tests/e2e/test_replay_recordings.sh"
