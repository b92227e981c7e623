#!/usr/bin/env bash
# ci/canaries.sh -- proof, on every run, that the harness still catches the bugs it exists for.
#
#   ci/canaries.sh [--fast] [--canary NAME]... [--layers a,b] [--jobs N] [--no-compare]
#
# For each planted bug (DISPATCH_CANARY_NAMES in sanitizer_builds/canaries.cmake; what to run
# for each is in ci/lib/canaries.tsv) and each flavour it lives in: configure the fuzz preset
# (ASan + UBSan + hardened + libFuzzer) with -DDISPATCH_CANARY=NAME into
# build/canary-<name>-<flavour>/, build only the targets the canary needs, then run the layers:
#
#   unit      its unit tests (ctest)
#   property  its RapidCheck properties (ctest, default case counts)
#   corpus    replay of its fuzz targets' committed corpus and regressions (ctest)
#   fuzz      each of its fuzz targets from the committed corpus, seeds 1..5, 60 s each, with
#             the target's fuzz/options file; reliable only if >= 4 of 5 seeds catch it
#
# Prints one row per canary x flavour x setup x layer x target (caught/escaped, time to
# detection, how it was caught, read from the output) and a verdict per canary. Exit 1 when a
# canary escapes every layer, is caught only by luck (fuzzing in < 4 of 5 seeds), or a build or
# test could not run; 2 for bad arguments.
#
#   --fast          pre-merge subset: every canary, only its fastest layer (the `fast` column of
#                   ci/lib/canaries.tsv) in its first flavour, building only that target
#   --canary NAME   only this canary (repeatable)
#   --layers a,b    only these layers (default unit,property,corpus,fuzz)
#   --jobs N        build jobs and parallel fuzz seeds (default 2)
#   --no-compare    skip the plain-ASan comparison
#
# Plain-ASan comparison (full run): the two intra-object overflow canaries (#74963, #72402
# shapes) are also built with UBSan and the library assertions OFF
# (build/canary-<name>-<flavour>-plain-asan/) and run through the same layers, to show what
# plain ASan misses (harness-notes B8). Those rows are information, not part of the verdict.
#
# Results: build/canaries/<full|fast>[-<canary>...]/results.tsv (one row per run), verdicts.tsv, compare.tsv
# (plain-ASan comparison), results.md (all three as Markdown), logs/ (one log per row).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=ci/lib/canary_classify.sh
source ci/lib/canary_classify.sh
# shellcheck source=ci/lib/canary_layers.sh
source ci/lib/canary_layers.sh

fast=0
only=()
layers_csv="unit,property,corpus,fuzz"
CANARY_JOBS=2
compare=1
usage_error() { echo "ci/canaries.sh: $*" >&2; exit 2; }
while (($# > 0)); do
  case "$1" in
    --fast) fast=1; shift ;;
    --canary) only+=("${2:?--canary needs a name}"); shift 2 ;;
    --canary=*) only+=("${1#*=}"); shift ;;
    --layers) layers_csv="${2:?--layers needs a list}"; shift 2 ;;
    --layers=*) layers_csv="${1#*=}"; shift ;;
    --jobs|-j) CANARY_JOBS="${2:?--jobs needs a number}"; shift 2 ;;
    --jobs=*) CANARY_JOBS="${1#*=}"; shift ;;
    --no-compare) compare=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage_error "unknown argument '$1' (try --help)" ;;
  esac
done
[[ "$CANARY_JOBS" =~ ^[1-9][0-9]*$ ]] || usage_error "--jobs must be a positive number"
IFS=',' read -r -a layers <<< "$layers_csv"
for l in "${layers[@]}"; do
  [[ "$l" =~ ^(unit|property|corpus|fuzz)$ ]] || usage_error "unknown layer '$l' (unit, property, corpus, fuzz)"
done
wants_layer() { [[ ",$layers_csv," == *",$1,"* ]]; }

say() { printf '==> [ci/canaries.sh %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

# ---------------------------------------------------------------- the canary table
known="$(sed -n '/^set(DISPATCH_CANARY_NAMES/,/^)/p' sanitizer_builds/canaries.cmake |
  sed -n 's/^ \+\([a-z_][a-z0-9_]*\).*/\1/p')"
declare -A flavours unit property fuzz fastest
names=()
while IFS=$'\t' read -r c fl u p z fa; do
  [[ -z "$c" || "$c" == \#* ]] && continue
  names+=("$c") flavours[$c]="$fl" unit[$c]="$u" property[$c]="$p" fuzz[$c]="$z" fastest[$c]="$fa"
done < ci/lib/canaries.tsv
# Every canary must have a plan, and no plan may name a canary that no longer exists.
if [[ "$(sort <<< "$known")" != "$(printf '%s\n' "${names[@]}" | sort)" ]]; then
  echo "ci/canaries.sh: ci/lib/canaries.tsv and DISPATCH_CANARY_NAMES disagree:" >&2
  diff <(sort <<< "$known") <(printf '%s\n' "${names[@]}" | sort) >&2 || true
  exit 1
fi
for c in "${only[@]}"; do
  grep -qx -- "$c" <<< "$known" || usage_error "unknown canary '$c' (known: $(tr '\n' ' ' <<< "$known"))"
done
((${#only[@]} > 0)) && names=("${only[@]}")

mode=full
((fast)) && mode=fast
# A run of some canaries only must not overwrite the results of the whole set.
out="build/canaries/$mode"
((${#only[@]} > 0)) && out="$out-$(IFS=-; echo "${only[*]}")"
mkdir -p "$out"
rm -rf "$out/logs" "$out/results.tsv" "$out/results.md"
CANARY_LOGS="$out/logs"
CANARY_ROWS="$out/results.tsv"
mkdir -p "$CANARY_LOGS"
printf 'canary\tflavour\tsetup\tlayer\ttarget\tresult\tdetail\tseconds\thow\n' > "$CANARY_ROWS"
# shellcheck source=sanitizer_builds/env.sh
source sanitizer_builds/env.sh
t_all="$EPOCHSECONDS"

# build_tree CANARY FLAVOUR SETUP TARGET... -> the tree's path on stdout, or non-zero
build_tree() {
  local c="$1" f="$2" s="$3" dir extra=() log
  shift 3
  dir="build/canary-$c-$f"
  if [[ "$s" == plain-asan ]]; then
    dir="$dir-plain-asan"
    extra=(-DDISPATCH_SANITIZE_UNDEFINED=OFF -DDISPATCH_HARDENED=OFF)
  fi
  log="$CANARY_LOGS/$c-$f-$s/build.log"
  mkdir -p "${log%/*}"
  if [[ ! -f "$dir/build.ninja" ]]; then
    cmake --preset "$f-fuzz" -B "$dir" -DDISPATCH_CANARY="$c" "${extra[@]}" > "$log" 2>&1 || return 1
  fi
  nice cmake --build "$dir" -j "$CANARY_JOBS" --target "$@" >> "$log" 2>&1 || return 1
  echo "$dir"
}

# run_layers CANARY FLAVOUR SETUP DIR LAYER:TARGET...
run_layers() {
  local c="$1" f="$2" s="$3" dir="$4" item layer t
  shift 4
  for item in "$@"; do
    layer="${item%%:*}" t="${item#*:}"
    say "$c [$f, $s] $layer $t"
    case "$layer" in
      unit|property) canary_run_ctest "$c" "$f" "$s" "$layer" "$t" "$dir" "^$t\$" 600 ;;
      corpus) canary_run_ctest "$c" "$f" "$s" corpus "$t" "$dir" "^${t}_(corpus|regressions)\$" 900 ;;
      fuzz) canary_run_fuzz "$c" "$f" "$s" "$t" "$dir/fuzz/$t" ;;
    esac
    tail -n1 "$CANARY_ROWS" | awk -F'\t' '{ printf "    %s (%s, %ss) %s\n", $6, $7, $8, $9 }'
  done
}

# plan CANARY -> LAYER:TARGET lines for the chosen layers
plan() {
  local c="$1" t
  if ((fast)); then echo "${fastest[$c]}"; return; fi
  if wants_layer unit; then for t in ${unit[$c]//,/ }; do echo "unit:$t"; done; fi
  if wants_layer property; then for t in ${property[$c]//,/ }; do echo "property:$t"; done; fi
  if wants_layer corpus; then for t in ${fuzz[$c]//,/ }; do echo "corpus:$t"; done; fi
  if wants_layer fuzz; then for t in ${fuzz[$c]//,/ }; do echo "fuzz:$t"; done; fi
}

# ---------------------------------------------------------------- build and run
setups_of() {
  echo hardened
  if ((compare && !fast)) && [[ "$1" == mobile_fallback_overflow || "$1" == backend_loop_off_by_one ]]; then
    echo plain-asan
  fi
}
for c in "${names[@]}"; do
  fls="${flavours[$c]//,/ }"
  ((fast)) && fls="${fls%% *}"
  mapfile -t items < <(plan "$c")
  ((${#items[@]} > 0)) || continue
  mapfile -t targets < <(printf '%s\n' "${items[@]#*:}" | sort -u)
  for f in $fls; do
    for s in $(setups_of "$c"); do
      say "$c [$f, $s]: build ${targets[*]}"
      t0="$EPOCHSECONDS"
      if ! dir="$(build_tree "$c" "$f" "$s" "${targets[@]}")"; then
        say "$c [$f, $s]: BUILD FAILED (log: $CANARY_LOGS/$c-$f-$s/build.log)"
        tail -n 20 "$CANARY_LOGS/$c-$f-$s/build.log" | sed 's/^/    /'
        for item in "${items[@]}"; do
          _canary_row "$c" "$f" "$s" "${item%%:*}" "${item#*:}" error "build failed" 0 "see $CANARY_LOGS/$c-$f-$s/build.log"
        done
        continue
      fi
      say "$c [$f, $s]: built in $((EPOCHSECONDS - t0))s"
      run_layers "$c" "$f" "$s" "$dir" "${items[@]}"
    done
  done
done

# ---------------------------------------------------------------- verdicts and tables
# A canary is proven when the hardened setup catches it in some non-fuzz layer, or in fuzzing
# with >= 4 of 5 seeds; luck = only fuzz catches with fewer seeds; errors never prove anything.
verdicts="$out/verdicts.tsv"
awk -F'\t' 'NR > 1 && $3 == "hardened" {
  c = $1; seen[c] = 1
  if ($6 == "caught") { ok[c] = 1; if (!(c in best) || $8 + 0 < best[c] + 0) { best[c] = $8; how[c] = $4 " " $5 } }
  if ($6 == "luck") luck[c] = 1
  if ($6 == "error") err[c] = 1
}
END {
  for (c in seen) {
    v = err[c] ? "ERROR" : ok[c] ? "caught" : luck[c] ? "LUCK" : "ESCAPED"
    printf "%s\t%s\t%s\t%s\n", c, v, (c in best) ? best[c] : "-", (c in how) ? how[c] : "-"
  }
}' "$CANARY_ROWS" | sort > "$verdicts"

# Plain-ASan comparison: per canary x setup, how many rows caught the canary, and how many of
# those by a memory-error report (ASan, UBSan, library hardening) at the faulty access itself
# rather than by an oracle noticing the consequence (model, invariant, gtest).
compare="$out/compare.tsv"
awk -F'\t' 'NR > 1 {
  k = $1 "\t" $2 "\t" $3; if (!(k in rows)) order[++m] = k; rows[k]++
  if ($3 == "plain-asan") plain[$1] = 1
  if ($6 == "caught" || $6 == "luck") caught[k]++
  if ($9 ~ /^(ASan|UBSan|hardened)/) { mem[k]++; split($9, w, ":"); if (index(kinds[k], w[1]) == 0) kinds[k] = kinds[k] (kinds[k] == "" ? "" : ", ") w[1] }
}
END {
  for (i = 1; i <= m; i++) { split(order[i], a, "\t"); if (!(a[1] in plain)) continue
    printf "%s\t%d/%d\t%d\t%s\n", order[i], caught[order[i]], rows[order[i]], mem[order[i]], kinds[order[i]] == "" ? "none" : kinds[order[i]] }
}' "$CANARY_ROWS" > "$compare"

{
  echo "| canary | flavour | setup | layer | target | result | detail | time to detection (s) | how it was caught |"
  echo "|---|---|---|---|---|---|---|---|---|"
  tail -n +2 "$CANARY_ROWS" | awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }'
  echo
  echo "| canary | verdict (hardened setup) | fastest catch (s) | by |"
  echo "|---|---|---|---|"
  awk -F'\t' '{ printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }' "$verdicts"
  if [[ -s "$compare" ]]; then
    echo
    echo "| canary | flavour | setup | rows that caught it | caught by a memory-error report | reports |"
    echo "|---|---|---|---|---|---|"
    awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }' "$compare"
  fi
} > "$out/results.md"

# table FILE: tab-separated rows as aligned columns (no dependency on util-linux `column`)
table() {
  awk -F'\t' '{ for (i = 1; i <= NF; i++) { cell[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) }
                 if (NF > nf) nf = NF }
       END { for (r = 1; r <= NR; r++) { line = ""
               for (i = 1; i <= nf; i++) line = line sprintf(i < nf ? "%-" w[i] "s  " : "%s", cell[r, i])
               print line } }' "$1"
}

echo
echo "ci/canaries.sh ($mode, $((EPOCHSECONDS - t_all))s, jobs $CANARY_JOBS)"
table "$CANARY_ROWS"
echo
printf 'canary\tverdict\tfastest(s)\tby\n' | cat - "$verdicts" | table /dev/stdin
if [[ -s "$compare" ]]; then
  echo
  echo "plain-ASan comparison (not part of the verdict):"
  printf 'canary\tflavour\tsetup\tcaught\tby memory-error report\treports\n' | cat - "$compare" | table /dev/stdin
fi
echo "results: $out/results.tsv, $out/results.md, logs in $CANARY_LOGS/"
if grep -qvP '\tcaught\t' "$verdicts"; then
  echo "RESULT: FAILED (a canary escaped, was caught only by luck, or could not be run)"
  exit 1
fi
echo "RESULT: every canary caught"
