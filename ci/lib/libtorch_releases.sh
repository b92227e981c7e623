# ci/lib/libtorch_releases.sh -- sourced: which libtorch releases the c10 harness runs against,
# and where each lives. 1.13 is Debian 12's own libtorch-dev on this machine; the newer ones are
# Debian's libtorch-dev of a newer suite, installed in a Debian chroot under build/ (made by
# ci/lib/make_libtorch_chroot.sh, run through ci/c10.sh).
#
#   libtorch_suite RELEASE          the Debian suite whose libtorch-dev is that release ("" = host)
#   libtorch_chroot_dir REPO RELEASE  the chroot's root directory (for a chroot release)
#   libtorch_known_releases         the releases, space separated

libtorch_known_releases() { echo "1.13 2.6 2.14"; }

libtorch_suite() {
  case "$1" in
    1.13) echo "" ;;          # bookworm, the host: libtorch-dev 1.13.1+dfsg-4
    2.6) echo "trixie" ;;     # libtorch-dev 2.6.0+dfsg
    2.14) echo "sid" ;;       # libtorch-dev 2.14.1+dfsg (sid moves: the chroot records what it got)
    *) return 1 ;;
  esac
}

libtorch_chroot_dir() { echo "$1/build/libtorch-$2/root"; }
