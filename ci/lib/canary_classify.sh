# shellcheck shell=bash
# ci/lib/canary_classify.sh -- source it. canary_classify LOG prints how a failing run was
# caught, as "<category>: <detail>", read from the run's own output (first match wins, in
# the order below: a sanitizer report is the cause even when a test framework reports it too).
#
#   ASan report           ==N==ERROR: AddressSanitizer: <kind>   (also LeakSanitizer; not ABRT)
#   UBSan report          file:line:col: runtime error: <what>
#   hardened assertion    libstdc++ _GLIBCXX_ASSERTIONS / libc++ assertion on a container access
#   library assertion     DISPATCH_INTERNAL_ASSERT ("internal assert failed at ...")
#   invariant check       Dispatcher::checkInvariants (InternalError) or a fuzz/property
#                         check of a structural invariant
#   model disagreement    a fuzz target or property found the library differing from the model
#   gtest failure         an EXPECT/ASSERT in a unit test
#   timeout / crash       libFuzzer timeout, a signal without any report
# Prints "unclassified: <last line>" when nothing matches, so a new kind of report shows up.

_canary_first() { grep -m1 -E "$1" "$2" 2>/dev/null || true; }
_canary_trim() { sed -E 's/^[[:space:]]+//; s/[[:space:]]+/ /g' <<< "$1" | cut -c1-"${2:-90}"; }

canary_classify() {
  local log="$1" line what
  # handle_abort=1 makes ASan print "ABRT on unknown address" for any abort(): that is not a
  # memory report, the cause (an assertion, a fuzz oracle) is printed before it.
  line="$(grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer): ' "$log" | grep -v ': ABRT on ' || true)"
  if [[ -n "$line" ]]; then
    what="$(sed -E 's/.*ERROR: (AddressSanitizer|LeakSanitizer): ([A-Za-z_-]+( on [a-z-]+)?).*/\1 \2/' <<< "$line")"
    echo "ASan report: $what"; return
  fi
  line="$(_canary_first 'runtime error: ' "$log")"
  if [[ -n "$line" ]]; then
    echo "UBSan report: $(_canary_trim "${line#*runtime error: }")"; return
  fi
  line="$(_canary_first "include/c\+\+/.*Assertion '.*' failed|_LIBCPP_ASSERT|libc\+\+.*assertion.*failed|out-of-bounds access in std::array" "$log")"
  if [[ -n "$line" ]]; then
    # libstdc++: ".../c++/12/array:208: <return type> <function>(<args>) [...]: Assertion '<cond>' failed."
    what="$(sed -E 's/.*:[0-9]+: [^ ]+ ([^(]*)\(.*/\1/' <<< "$line")"
    # The property runner condenses long lines ("std::ar ... > *"): then name only the header.
    [[ "$what" == *Assertion* || "$what" == *" ... "* ]] &&
      what="$(grep -oE 'include/c\+\+/[0-9]+/[a-z_]+' <<< "$line" | sed 's@.*/@std::@')"
    echo "hardened assertion: $(_canary_trim "$what" 140): $(sed -E "s/.*Assertion '([^']*)' failed.*/\1/" <<< "$line")"; return
  fi
  line="$(_canary_first 'internal assert failed at ' "$log")"
  if [[ -n "$line" ]]; then
    # checkInvariants() recomputes every table entry and compares (DISPATCH_INTERNAL_ASSERT).
    # "... internal assert failed at <path>:<line>: <condition>. <message>"
    local rest="${line#*internal assert failed at }" loc
    loc="${rest%%: *}"
    what="${loc##*/}: ${rest#*. }"
    what="${what%\".}"  # gtest quotes the exception's description
    if grep -qE 'checkInvariants|recomputation gives|invariant' "$log"; then
      echo "invariant check: $(_canary_trim "$what" 140)"
    else
      echo "library assertion: $(_canary_trim "$what" 140)"
    fi
    return
  fi
  line="$(_canary_first '==== DISPATCH FUZZ BUG in ' "$log")"
  if [[ -n "$line" ]]; then
    # "<target>: <what>", then the first line of the details (flavour, step, action)
    what="${line#*==== DISPATCH FUZZ BUG in }; $(grep -m1 -A1 -F "$line" "$log" | tail -n1)"
    if grep -qiE 'invariant' <<< "$what"; then echo "invariant check: $(_canary_trim "$what")"
    else echo "model disagreement: $(_canary_trim "$what" 140)"; fi
    return
  fi
  line="$(_canary_first 'Falsifiable after ' "$log")"
  if [[ -n "$line" ]]; then
    # RapidCheck: the failing assertion names what was compared; properties compare against
    # the model (model::, mx, "model ...") or check invariants.
    what="$(grep -m1 -E '^[^ ].*(RC_ASSERT|RC_FAIL|model|invariant|differs|checkInvariants)' "$log" | head -1)"
    if grep -qiE 'invariant' <<< "$what"; then echo "invariant check (property): $(_canary_trim "$what" 80)"
    else echo "model disagreement (property): $(_canary_trim "${what:-$line}" 80)"; fi
    return
  fi
  line="$(_canary_first '^\[  FAILED  \] [A-Za-z]' "$log")"
  if [[ -n "$line" ]]; then
    echo "gtest failure: $(_canary_trim "${line#\[  FAILED  \] }" 70)"; return
  fi
  line="$(_canary_first 'ALARM: working on the last Unit|ERROR: libFuzzer: timeout' "$log")"
  if [[ -n "$line" ]]; then echo "timeout: $(_canary_trim "$line" 60)"; return; fi
  line="$(_canary_first 'ERROR: libFuzzer: |terminate called|Segmentation fault|Aborted|SIGABRT|SIGSEGV' "$log")"
  if [[ -n "$line" ]]; then echo "crash: $(_canary_trim "$line" 70)"; return; fi
  echo "unclassified: $(_canary_trim "$(grep -v '^[[:space:]]*$' "$log" | tail -n1)" 70)"
}
