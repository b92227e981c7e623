# shellcheck shell=bash
# sanitizer_builds/env.sh -- source it, don't run it:
#
#     source sanitizer_builds/env.sh
#
# Exports the same sanitizer run-time environment that ctest gives every test
# (sanitizer_builds/sanitizer_env.cmake, dispatch_sanitizer_env()):
#   ASAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS LSAN_OPTIONS   read from the *.options
#                                                          files beside this script
#   ASAN_SYMBOLIZER_PATH UBSAN_SYMBOLIZER_PATH TSAN_SYMBOLIZER_PATH
# The symbolizer is, in order: $DISPATCH_LLVM_SYMBOLIZER,
# /usr/lib/llvm-${DISPATCH_LLVM_VERSION:-14}/bin/llvm-symbolizer, llvm-symbolizer
# on PATH, llvm-symbolizer-${DISPATCH_LLVM_VERSION:-14}.
# Safe under `set -euo pipefail`. Returns non-zero if an options file is bad.
# To add options for one run, append after sourcing:
#     ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"

_dispatch_env_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# _dispatch_read_options FILE -> prints the lines of FILE joined with ':'
_dispatch_read_options() {
  local file="$1" line out=""
  if [[ ! -r "$file" ]]; then
    echo "env.sh: missing sanitizer options file $file" >&2
    return 1
  fi
  while IFS= read -r line || [[ -n "$line" ]]; do
    line="${line%%#*}"
    line="${line#"${line%%[![:space:]]*}"}"
    line="${line%"${line##*[![:space:]]}"}"
    [[ -z "$line" ]] && continue
    if [[ ! "$line" =~ ^[A-Za-z_][A-Za-z0-9_]*=[^[:space:]:\;]+$ ]]; then
      echo "env.sh: $file: bad line '$line' (expected name=value, no spaces, ':' or ';')" >&2
      return 1
    fi
    out="${out:+$out:}$line"
  done < "$file"
  printf '%s' "$out"
}

_dispatch_find_symbolizer() {
  local v="${DISPATCH_LLVM_VERSION:-14}" c
  for c in "${DISPATCH_LLVM_SYMBOLIZER:-}" \
           "/usr/lib/llvm-$v/bin/llvm-symbolizer" \
           "$(command -v llvm-symbolizer 2>/dev/null || true)" \
           "$(command -v "llvm-symbolizer-$v" 2>/dev/null || true)"; do
    if [[ -n "$c" && -x "$c" ]]; then
      printf '%s' "$c"
      return 0
    fi
  done
  return 1
}

_dispatch_load_sanitizer_env() {
  local kind upper value sym
  for kind in asan ubsan tsan lsan; do
    upper="$(printf '%s' "$kind" | tr '[:lower:]' '[:upper:]')"
    value="$(_dispatch_read_options "$_dispatch_env_dir/$kind.options")" || return 1
    export "${upper}_OPTIONS=$value"
  done
  if sym="$(_dispatch_find_symbolizer)"; then
    export ASAN_SYMBOLIZER_PATH="$sym" UBSAN_SYMBOLIZER_PATH="$sym" TSAN_SYMBOLIZER_PATH="$sym"
  else
    echo "env.sh: warning: llvm-symbolizer not found; sanitizer reports will lack symbols (run ci/setup.sh)" >&2
  fi
  export DISPATCH_SANITIZER_ENV_LOADED=1
}

_dispatch_load_sanitizer_env
