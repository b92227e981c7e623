#!/usr/bin/env bash
# ci/setup.sh -- install everything this project needs on Debian 12 (bookworm).
#
# Idempotent and fast: asks dpkg which packages are missing and runs
# `apt-get update` + `apt-get install` only for those. Works as root; otherwise
# uses sudo if available (non-interactively when there is no terminal).
# Then checks the tool versions the build relies on (cmake >= 3.25).
#
#   ci/setup.sh --with-libtorch   also libtorch-dev (PyTorch 1.13.1's c10/ATen headers and
#                                 libraries, ~30 MB): the c10 harness (preset full-c10,
#                                 DISPATCH_WITH_LIBTORCH; ci/nightly.sh --system c10)
#   ci/setup.sh --with-libtorch RELEASE
#                                 RELEASE 1.13 is the same; 2.6 (Debian trixie) and 2.14 (sid)
#                                 make a Debian chroot with that libtorch-dev and a compiler under
#                                 build/libtorch-RELEASE/ (debootstrap; ~2 min and ~2.5 GB), where
#                                 ci/c10.sh --libtorch RELEASE builds and runs the c10 harness.
set -euo pipefail

PACKAGES=(
  clang-14 libclang-rt-14-dev libfuzzer-14-dev llvm-14   # clang, sanitizer/fuzzer runtimes, llvm-symbolizer/-profdata/-cov
  g++ g++-12                                             # release presets (g++ is 12 on bookworm)
  cmake ninja-build                                      # CMakePresets.json v6 needs cmake >= 3.25
  libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
  zlib1g-dev                                             # bench/workloads: the recordings are gzip'd
  afl++ valgrind git python3 python3-pytest             # python3-pytest: ci/tests (ctest label ci)
  python3-jsonschema                                     # ci/tests/test_sarif.py validates report.sarif (SARIF 2.1.0)
  ccache                                                 # the canary copies share their unchanged objects
)

log() { printf 'setup: %s\n' "$*"; }

source "$(dirname "${BASH_SOURCE[0]}")/lib/libtorch_releases.sh"
chroot_releases=()
while (($# > 0)); do
  case "$1" in
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --with-libtorch)
      release=1.13
      if (($# > 1)) && [[ "$2" != --* ]]; then release="$2"; shift; fi
      if ! suite="$(libtorch_suite "$release")"; then
        log "ERROR: unknown libtorch release $release (known: $(libtorch_known_releases))" >&2; exit 2
      fi
      if [[ -z "$suite" ]]; then PACKAGES+=(libtorch-dev); else PACKAGES+=(debootstrap); chroot_releases+=("$release"); fi
      ;;
    *) log "ERROR: unknown argument $1 (known: --with-libtorch [RELEASE])" >&2; exit 2 ;;
  esac
  shift
done

missing=()
for pkg in "${PACKAGES[@]}"; do
  status="$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)"
  [[ "$status" == "installed" ]] || missing+=("$pkg")
done

as_root=()
if [[ "$(id -u)" -ne 0 ]] && command -v sudo >/dev/null 2>&1; then
  if [[ -t 0 ]]; then as_root=(sudo); else as_root=(sudo -n); fi
fi
if ((${#missing[@]} > 0)); then
  log "missing packages: ${missing[*]}"
  if [[ "$(id -u)" -ne 0 ]] && ((${#as_root[@]} == 0)); then
    log "ERROR: not root and no sudo; install as root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -q < /dev/null
  "${as_root[@]}" apt-get install -y -q "${missing[@]}" < /dev/null
else
  log "all ${#PACKAGES[@]} packages already installed"
fi

# ---- sanity checks
version_ge() { [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" == "$2" ]]; }

cmake_version="$(cmake --version | head -n1 | awk '{print $3}')"
if ! version_ge "$cmake_version" 3.25; then
  log "ERROR: cmake $cmake_version is too old; CMakePresets.json (v6) and the workflow presets need >= 3.25" >&2
  exit 1
fi
for tool in clang++-14 g++ ninja llvm-symbolizer-14 llvm-profdata-14 llvm-cov-14; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    log "ERROR: $tool not found on PATH after installation" >&2
    exit 1
  fi
done
log "ok: cmake $cmake_version, $(clang++-14 --version | head -n1), $(g++ --version | head -n1), ninja $(ninja --version)"

for release in "${chroot_releases[@]+"${chroot_releases[@]}"}"; do
  "${as_root[@]}" bash "$(dirname "${BASH_SOURCE[0]}")/lib/make_libtorch_chroot.sh" "$release"
done
