# Sourced. Runs commands against libtorch RELEASE inside its Debian chroot,
# build/libtorch-RELEASE/root below the repository (ci/setup.sh --with-libtorch RELEASE makes it).
# The repository is bind-mounted at its own path, in a private mount namespace that vanishes
# with the command, so outputs land in the repository's build/ as they would on the host.

# libtorch_root REPO RELEASE: the chroot's directory (links resolved), or fails saying why.
libtorch_root() {
  local dir="$1/build/libtorch-$2/root"
  [[ -d "$dir" ]] || { echo "no libtorch $2 chroot at build/libtorch-$2/root" >&2; return 1; }
  (cd "$dir" && pwd -P)
}

# in_libtorch_chroot REPO RELEASE COMMAND [ARGS...]: COMMAND run in REPO inside the chroot.
in_libtorch_chroot() {
  local repo="$1" release="$2" root
  shift 2
  root="$(libtorch_root "$repo" "$release")" || return 1
  [[ "$(id -u)" -eq 0 ]] || { echo "libtorch $release chroot: needs root (mount, chroot)" >&2; return 1; }
  unshare --mount --propagation private -- bash -euo pipefail -c '
    repo="$1" root="$2"; shift 2
    mkdir -p "$root$repo" "$root/proc"
    mount --bind "$repo" "$root$repo"
    mount -t proc proc "$root/proc"
    exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
      bash -c "cd \"\$0\" && exec \"\$@\"" "$repo" "$@"
  ' libtorch-chroot "$repo" "$root" "$@"
}

# Compiler flags for a program or a fix against the chroot's libtorch (2.x headers need C++20).
LIBTORCH_CXXFLAGS=(-std=c++20 -O2 -I/usr/include/torch/csrc/api/include)
LIBTORCH_LIBS=(-ltorch_cpu -lc10)
