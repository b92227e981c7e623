#!/usr/bin/env bash
# ci/lib/make_libtorch_chroot.sh RELEASE -- a Debian chroot with libtorch-dev RELEASE and the
# project's build tools, under build/libtorch-RELEASE/root (called by ci/setup.sh
# --with-libtorch RELEASE). Idempotent: a finished chroot (its `ready` file) is left alone; a
# half-made one is completed. Needs root and debootstrap.
#
# The archive is the one this machine's apt already uses (read from its sources), so nothing
# is fetched from anywhere else. sid's Release file is a dated snapshot, hence
# Acquire::Check-Valid-Until=false for apt inside the chroot.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$repo/ci/lib/libtorch_releases.sh"

release="${1:?usage: make_libtorch_chroot.sh RELEASE}"
suite="$(libtorch_suite "$release")" || { echo "make_libtorch_chroot: unknown release $release (known: $(libtorch_known_releases))" >&2; exit 2; }
[[ -n "$suite" ]] || { echo "make_libtorch_chroot: libtorch $release is the host's own (ci/setup.sh --with-libtorch)" >&2; exit 2; }
root="$(libtorch_chroot_dir "$repo" "$release")"
ready="$(dirname "$root")/ready"

# What the chroot needs: libtorch, a compiler, the build and test tools, python3 for the CI
# tool, valgrind for instruction counts; then the sanitizer and libFuzzer runtimes of the
# suite's default clang (versioned names: trixie has no unversioned libfuzzer-dev).
PACKAGES=(libtorch-dev g++ clang llvm cmake ninja-build libgtest-dev libgmock-dev librapidcheck-dev
          python3 python3-pytest python3-jsonschema git ca-certificates valgrind)

log() { printf 'libtorch %s chroot: %s\n' "$release" "$*"; }

if [[ -f "$ready" ]]; then
  log "ready ($(cat "$ready")) at ${root#"$repo"/}"
  exit 0
fi

mirror_of_host() {
  # deb822 sources first (Debian 12's default), then the one-line format.
  local uri
  uri="$(grep -h -m1 -E '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | head -n1 || true)"
  [[ -n "$uri" ]] || uri="$(grep -h -m1 -E '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | head -n1 || true)"
  [[ -n "$uri" ]] || { echo "make_libtorch_chroot: no Debian archive in this machine's apt sources" >&2; return 1; }
  echo "$uri"
}

command -v debootstrap >/dev/null || { echo "make_libtorch_chroot: debootstrap is missing (ci/setup.sh installs it)" >&2; exit 1; }
[[ "$(id -u)" -eq 0 ]] || { echo "make_libtorch_chroot: needs root (debootstrap, chroot)" >&2; exit 1; }

if [[ ! -x "$root/usr/bin/apt-get" ]]; then
  mirror="$(mirror_of_host)"
  log "debootstrap --variant=minbase $suite (archive of this machine's apt)"
  rm -rf "$root"
  mkdir -p "$root"
  debootstrap --variant=minbase "$suite" "$root" "$mirror" > "$(dirname "$root")/debootstrap.log" 2>&1 \
    || { echo "make_libtorch_chroot: debootstrap failed; see $(dirname "$root")/debootstrap.log" >&2; exit 1; }
fi

apt_in_chroot() {
  chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get -q -o Acquire::Check-Valid-Until=false "$@" < /dev/null
}
log "apt-get install ${PACKAGES[*]}"
apt_in_chroot update > /dev/null
install_in_chroot() {
  apt_in_chroot install -y --no-install-recommends "$@" >> "$(dirname "$root")/apt.log" 2>&1 \
    || { echo "make_libtorch_chroot: apt-get install failed; see $(dirname "$root")/apt.log" >&2; exit 1; }
}
install_in_chroot "${PACKAGES[@]}"
clang_major="$(chroot "$root" clang++ -dumpversion | cut -d. -f1)"
log "apt-get install libclang-rt-$clang_major-dev libfuzzer-$clang_major-dev"
install_in_chroot "libclang-rt-$clang_major-dev" "libfuzzer-$clang_major-dev"

# shellcheck disable=SC2016  # dpkg-query's own format
version="$(chroot "$root" dpkg-query -W -f='${Version}' libtorch-dev)"
case "$version" in
  "$release".*) ;;
  *) echo "make_libtorch_chroot: $suite's libtorch-dev is $version, not $release.x" >&2; exit 1 ;;
esac
echo "libtorch-dev $version, $(chroot "$root" clang++ --version | head -n1), $(chroot "$root" g++ --version | head -n1)" > "$ready"
log "ready ($(cat "$ready"))"
