#!/usr/bin/env bash
# ci/lib/ossfuzz_bad_build.sh -- OSS-Fuzz's bad-build check, for one $OUT (ci/ossfuzz_check.sh).
#
#   ci/lib/ossfuzz_bad_build.sh ENGINE SANITIZER OUT_DIR TSV
#     ENGINE     libfuzzer | aflpp     SANITIZER  address | undefined
#
# For every fuzz target in OUT_DIR (one per .options file), the checks of OSS-Fuzz's
# base-runner/bad_build_check, with the same thresholds where it has one:
#   files      <t>, <t>_seed_corpus.zip (every committed seed, intact), <t>.dict (dictionary
#              syntax), <t>.options ([libfuzzer] section; its dict names a file in OUT_DIR)
#   run        libFuzzer: -seed=1 -runs=100 over the unpacked seed corpus with the .options
#              flags: exit 0, >= 100 instrumented edges ("Loaded ... counters") and >= 100
#              covered (cov:), the dictionary parsed. AFL++: afl-showmap over the seeds for the
#              covered edges, then afl-fuzz for a few seconds with the dictionary: "All set and
#              ready to roll", no seed crashed.
#   sanitizer  calls into the runtime (objdump): address >= 1000 __asan and <= 200 __ubsan;
#              undefined 0 __asan and >= 168 __ubsan
#   engine     libFuzzer's driver (LLVMFuzzerRunDriver) or AFL++'s (__afl_area_ptr) linked in
#   flavours   full and mobile tables both linked in, or neither (a key-set-only target)
#   static     no shared library from our build ($WORK, $OUT) needed at run time
# Appends one row per target to TSV:
#   target result instrumented_edges covered_edges features asan_calls ubsan_calls flavours seconds problems
# Exits 1 if any target failed a check.
set -euo pipefail
shopt -s nullglob

engine="$1" sanitizer="$2" out="$3" tsv="$4"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# shellcheck source=sanitizer_builds/env.sh
source "$repo/sanitizer_builds/env.sh"

# option_value FILE NAME -> the value of NAME in the [libfuzzer] section of an .options file
option_value() {
  awk -v want="$2" '/^\[/ { s = $0 } s == "[libfuzzer]" && $1 == want && $2 == "=" { print $3 }' "$1"
}

calls_to() { objdump -d --no-show-raw-insn "$1" | grep -cE "call +[0-9a-f]+ <$2" || true; }

failed=0
for options in "$out"/*.options; do
  t="$(basename "$options" .options)"
  bin="$out/$t"
  t0="$EPOCHSECONDS"
  problems=()
  edges="-" cov="-" ft="-"

  # ---- files
  [[ -x "$bin" ]] || problems+=("no binary")
  zip="$out/${t}_seed_corpus.zip"
  seeds="$scratch/$t/seeds"
  mkdir -p "$seeds"
  seed_dirs=()
  for d in "$repo/fuzz/corpus/$t" "$repo/fuzz/regressions/$t"; do [[ -d "$d" ]] && seed_dirs+=("$d"); done
  committed="$( ((${#seed_dirs[@]} == 0)) || find "${seed_dirs[@]}" -type f -printf '%f\n' | sort -u | wc -l)"
  if ! unzip -tq "$zip" > /dev/null 2>&1; then
    problems+=("seed corpus zip missing or corrupt")
  else
    unzip -q "$zip" -d "$seeds"
    n="$(find "$seeds" -type f | wc -l)"
    ((n == committed)) || problems+=("zip has $n seeds, the tree $committed")
  fi
  dict="$out/$t.dict"
  if [[ ! -s "$dict" ]]; then
    problems+=("no .dict")
  elif grep -vE '^[[:space:]]*(#.*)?$' "$dict" | grep -qvE '^[A-Za-z0-9_]*=?"([^"\\]|\\.)*"[[:space:]]*$'; then
    problems+=("bad dictionary line: $(grep -vE '^[[:space:]]*(#.*)?$' "$dict" | grep -vE '^[A-Za-z0-9_]*=?"([^"\\]|\\.)*"' | head -1)")
  fi
  grep -qx '\[libfuzzer\]' "$options" || problems+=("no [libfuzzer] section in .options")
  opt_dict="$(option_value "$options" dict)"
  [[ -z "$opt_dict" || -f "$out/$opt_dict" ]] || problems+=(".options names dict $opt_dict, not in OUT")
  max_len="$(option_value "$options" max_len)"
  timeout_s="$(option_value "$options" timeout)"

  # ---- run
  log="$scratch/$t/run.log"
  if [[ -x "$bin" && "$engine" == libfuzzer ]]; then
    flags=(-seed=1 -runs=100 -rss_limit_mb=2560)
    [[ -n "$max_len" ]] && flags+=(-max_len="$max_len")
    [[ -n "$timeout_s" ]] && flags+=(-timeout="$timeout_s")
    [[ -n "$opt_dict" ]] && flags+=(-dict="$out/$opt_dict")
    mkdir -p "$scratch/$t/new"
    rc=0
    timeout 300 "$bin" "${flags[@]}" "$scratch/$t/new" "$seeds" > "$log" 2>&1 || rc=$?
    ((rc == 0)) || problems+=("libFuzzer exit $rc: $(grep -m1 -E 'ERROR|BUG' "$log" || tail -1 "$log")")
    edges="$(sed -n 's/^INFO: Loaded [0-9]* modules* *([0-9]* .*\(counters\|guards\)): \([0-9]*\).*/\2/p' "$log" | head -1)"
    read -r cov ft < <(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/\1 \2/p' "$log" | tail -1) || true
    grep -q '^Dictionary: [0-9]* entries' "$log" || [[ -z "$opt_dict" ]] || problems+=("libFuzzer did not load the dictionary")
  elif [[ -x "$bin" && "$engine" == aflpp ]]; then
    # The instrumented edges: the AFL++ runtime prints its map size in debug mode.
    edges="$(echo | AFL_DEBUG=1 "$bin" 2>&1 | sed -n 's/.*__afl_final_loc = \([0-9]*\).*/\1/p' | head -1)"
    env AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 ASAN_OPTIONS="$ASAN_OPTIONS:abort_on_error=1:symbolize=0" \
      afl-showmap -C -i "$seeds" -o "$scratch/$t/map" -m none -t "$((${timeout_s:-25} * 1000))" \
      -- "$bin" > "$scratch/$t/showmap.log" 2>&1 || problems+=("afl-showmap failed: $(tail -1 "$scratch/$t/showmap.log")")
    cov="$(grep -c . "$scratch/$t/map" 2>/dev/null || echo 0)"
    # A few seconds of real afl-fuzz, the way the nightly runs it (ci/dispatch_ci/nightly/aflpp.py).
    mkdir -p "$scratch/$t/new" "$scratch/$t/art"
    rc=0
    python3 "$repo/ci/tool.py" aflpp-run --bin "$bin" --seconds 8 --seed 1 \
      --artifact-prefix "$scratch/$t/art/" --log "$log" --timeline "$scratch/$t/timeline" \
      --work "$scratch/$t/afl" ${opt_dict:+--dict "$out/$opt_dict"} ${max_len:+--max-len "$max_len"} \
      --timeout-ms "$((${timeout_s:-25} * 1000))" -- "$scratch/$t/new" "$seeds" || rc=$?
    grep -q 'All set and ready to roll' "$log" ||
      problems+=("afl-fuzz did not start (exit $rc): $(grep -m1 -E 'PROGRAM ABORT' "$log" || tail -1 "$log")")
    ((rc == 0)) || problems+=("afl-fuzz exit $rc: $(grep -m1 '^aflpp: artifact' "$log" || tail -1 "$log")")
  fi
  [[ "$edges" =~ ^[0-9]+$ ]] && ((edges >= 100)) || problems+=("instrumented edges '$edges' < 100")
  [[ "$cov" =~ ^[0-9]+$ ]] && ((cov >= 100)) || problems+=("covered edges '$cov' < 100")

  # ---- sanitizer, engine, flavours, static
  asan="$(calls_to "$bin" __asan)"
  ubsan="$(calls_to "$bin" __ubsan)"
  case "$sanitizer" in
    address) ((asan >= 1000 && ubsan <= 200)) || problems+=("not an ASan build ($asan __asan, $ubsan __ubsan calls)") ;;
    undefined) ((asan == 0 && ubsan >= 168)) || problems+=("not a UBSan build ($asan __asan, $ubsan __ubsan calls)") ;;
    *) problems+=("unknown sanitizer $sanitizer") ;;
  esac
  symbols="$scratch/$t/nm"
  nm -C "$bin" > "$symbols" 2>/dev/null || true
  case "$engine" in
    libfuzzer) grep -q ' LLVMFuzzerRunDriver$' "$symbols" || problems+=("libFuzzer driver not linked in") ;;
    aflpp) grep -q ' __afl_area_ptr$' "$symbols" || problems+=("AFL++ runtime not linked in") ;;
  esac
  full="$(grep -c 'FullLayout' "$symbols" || true)"
  mobile="$(grep -c 'MobileLayout' "$symbols" || true)"
  if ((full > 0 && mobile > 0)); then
    flavours="full+mobile"
  elif ((full == 0 && mobile == 0)); then
    flavours="none (key sets)"
  else
    flavours="ONE ONLY"
    problems+=("only one flavour linked in ($full full, $mobile mobile symbols)")
  fi
  ours="$(ldd "$bin" 2>/dev/null | grep -E "${WORK:-/nonexistent}|$out|libdispatch" || true)"
  [[ -z "$ours" ]] || problems+=("needs shared libraries of our build: $ours")

  result="ok"
  if ((${#problems[@]} > 0)); then
    result="FAILED"
    failed=1
    { echo "---- $t: ${problems[*]}"; tail -n 8 "$log" 2>/dev/null | sed 's/^/    /'; } >&2
  fi
  detail="$(IFS=';'; echo "${problems[*]:-}")"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$result" "$edges" "$cov" "$ft" "$asan" "$ubsan" \
    "$flavours" "$((EPOCHSECONDS - t0))" "$detail" >> "$tsv"
done
exit "$failed"
