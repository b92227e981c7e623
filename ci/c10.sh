#!/usr/bin/env bash
# ci/c10.sh --libtorch RELEASE [--] [COMMAND ARGS...] -- run a command of this repository against
# libtorch RELEASE: on this machine for 1.13 (Debian 12's libtorch-dev), inside the release's
# Debian chroot for the newer ones (ci/setup.sh --with-libtorch RELEASE makes it).
#
# The repository is bind-mounted into the chroot at the same path, so build trees, reports and
# corpora land where they would on the host; the mounts live in a private mount namespace and
# vanish with the command. Inside, DISPATCH_LIBTORCH_RELEASE names the release.
#
# With no command: the c10 job of that release, configure, build and the tests labelled c10
# (cmake --workflow --preset full-c10[-RELEASE]). Examples:
#   ci/c10.sh --libtorch 2.14
#   ci/c10.sh --libtorch 2.14 build/full-c10-2.14/fuzz/c10_registration_fuzzer -max_total_time=600 CORPUS
#   ci/c10.sh --libtorch 2.14 ci/nightly.sh --system c10
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$repo/ci/lib/libtorch_releases.sh"

usage() { sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
release=""
while (($# > 0)); do
  case "$1" in
    --libtorch) release="${2:?--libtorch needs a release (known: $(libtorch_known_releases))}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
[[ -n "$release" ]] || { echo "ci/c10.sh: --libtorch RELEASE is required (known: $(libtorch_known_releases))" >&2; exit 2; }
suite="$(libtorch_suite "$release")" || { echo "ci/c10.sh: unknown libtorch release $release (known: $(libtorch_known_releases))" >&2; exit 2; }

preset="full-c10"
[[ -z "$suite" ]] || preset="full-c10-$release"
(($# > 0)) || set -- cmake --workflow --preset "$preset"

if [[ -z "$suite" ]]; then
  cd "$repo"
  DISPATCH_LIBTORCH_RELEASE="$release" exec "$@"
fi

root="$(libtorch_chroot_dir "$repo" "$release")"
if [[ ! -f "$(dirname "$root")/ready" ]]; then
  echo "ci/c10.sh: no libtorch $release chroot at ${root#"$repo"/}; run ci/setup.sh --with-libtorch $release" >&2
  exit 1
fi
[[ "$(id -u)" -eq 0 ]] || { echo "ci/c10.sh: needs root (mount, chroot) for libtorch $release" >&2; exit 1; }

# The command line travels as NUL-separated words through a file: no quoting layer to get wrong.
# The environment inside is a clean one plus the DISPATCH_* switches of this one.
args_file="$(mktemp "$root/tmp/c10-args.XXXXXX")"
trap 'rm -f "$args_file"' EXIT
printf '%s\0' "$@" > "$args_file"
switches=()
while IFS='=' read -r -d '' name value; do
  [[ "$name" == DISPATCH_* && "$name" != DISPATCH_LIBTORCH_RELEASE ]] && switches+=("$name=$value")
done < <(env -0)
# shellcheck disable=SC2016  # expanded by the inner shell
unshare --mount --propagation private -- bash -euo pipefail -c '
  repo="$1"; root="$2"; release="$3"; args_file="${4#"$2"}"; shift 4
  mkdir -p "$root$repo" "$root/proc" "$root/dev"
  mount --bind "$repo" "$root$repo"
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  exec chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 CI="${CI:-}" DISPATCH_LIBTORCH_RELEASE="$release" "$@" \
    bash -c "cd \"\$0\" && mapfile -d \"\" -t argv < \"\$1\" && exec \"\${argv[@]}\"" "$repo" "$args_file"
' c10-chroot "$repo" "$root" "$release" "$args_file" "${switches[@]+"${switches[@]}"}"
