#!/usr/bin/env bash
# Install what building, running and testing perfwatch needs on Debian 12 (as root, or via sudo).
# Only missing packages are installed, so a prepared machine pays nothing.
set -euo pipefail

build_pkgs=(build-essential cmake pkg-config libmicrohttpd-dev libjansson-dev libsystemd-dev
	libinih-dev zlib1g-dev libdeflate-dev libcurl4-gnutls-dev libcrypt-dev libgnutls28-dev)
# The Debian package (`make deb`, tests/e2e/test_package.sh): dpkg-buildpackage, dh, lintian.
deb_pkgs=(dpkg-dev debhelper lintian)
# iproute2, iptables and util-linux (mkswap, swapon, fallocate): the live incidents (tests/live);
# chromium: the /ui test; faketime: the wall clock stepped under the daemon (test_faults_clock).
# netdata (bench only): bench/netdata.sh runs it beside perfwatchd.
test_pkgs=(check clang clang-format libclang-rt-14-dev curl jq python3 prometheus prometheus-alertmanager
	gzip openssl systemd iproute2 iptables util-linux chromium faketime "${deb_pkgs[@]}")
case "${1:-build}" in
build) pkgs=("${build_pkgs[@]}") ;;
test) pkgs=("${build_pkgs[@]}" "${test_pkgs[@]}") ;;
deb) pkgs=("${build_pkgs[@]}" "${deb_pkgs[@]}") ;;
bench) pkgs=("${build_pkgs[@]}" "${test_pkgs[@]}" prometheus-node-exporter wrk collectd-core libprotobuf-c1
	netdata) ;;
*) echo "usage: $0 [build|test|deb|bench]" >&2; exit 2 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# --no-install-recommends keeps prometheus from pulling a node exporter service we don't use.
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
