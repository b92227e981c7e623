# Sourced. Runs commands against libtorch RELEASE inside its Debian chroot through ci/c10.sh
# (ci/setup.sh --with-libtorch RELEASE makes the chroot), so outputs land in the repository's
# build/ as they would on the host.

# in_libtorch_chroot REPO RELEASE COMMAND [ARGS...]: COMMAND run in REPO inside the chroot.
in_libtorch_chroot() {
  local repo="$1" release="$2"
  shift 2
  "$repo/ci/c10.sh" --libtorch "$release" -- "$@"
}

# Compiler flags for a program or a fix against the chroot's libtorch (2.x headers need C++20).
LIBTORCH_CXXFLAGS=(-std=c++20 -O2 -I/usr/include/torch/csrc/api/include)
LIBTORCH_LIBS=(-ltorch_cpu -lc10)
