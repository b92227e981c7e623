# ci/lib/python_first.sh -- sourced by the wrappers of the jobs that install packages (test.sh,
# nightly.sh) before they start the Python tool: a fresh Debian 12 machine has no python3 yet,
# so ci/setup.sh runs here first (the job runs it again; it only installs what is missing).
if ! command -v python3 >/dev/null 2>&1; then
  for arg in "$@"; do
    if [[ "$arg" == "--no-setup" ]]; then
      echo "$(basename "$0"): python3 is not installed and --no-setup was given (run ci/setup.sh)" >&2
      exit 1
    fi
  done
  echo "$(basename "$0"): python3 is not installed; running ci/setup.sh first" >&2
  bash "$(dirname "${BASH_SOURCE[0]}")/../setup.sh" || exit 1
fi
