# sanitizer_builds/canaries.cmake -- the DISPATCH_CANARY cache variable.
#
# A canary is a known, deliberately planted bug (in the shape of a real
# PyTorch dispatcher bug) that the dispatch library compiles in when asked.
# The harness (fuzzers, properties, sanitizers) must find every canary; a
# canary that no test catches is a hole in the harness.
#
# THE list of canary names lives here and nowhere else.  To add a canary,
# append its name to DISPATCH_CANARY_NAMES and implement it in dispatch/.
# The dispatch library reads DISPATCH_CANARY and turns it into a compile
# definition itself.

set(DISPATCH_CANARY_NAMES
  mobile_fallback_overflow      # pytorch#74963: index -1 into the mobile fallback array
  backend_loop_off_by_one       # pytorch#72402: `<=` instead of `<` over a per-backend array
  stale_autograd_other
  mobile_lookup_unchecked
  alias_fallback_unexpanded
  remove_clears_backend_bits
  kernel_stack_erase_front
  iterator_skips_last_backend
)

set(DISPATCH_CANARY "none" CACHE STRING
  "Plant a known bug in the dispatch library to prove the harness catches it: none or one of DISPATCH_CANARY_NAMES (see sanitizer_builds/canaries.cmake)")
set_property(CACHE DISPATCH_CANARY PROPERTY STRINGS none ${DISPATCH_CANARY_NAMES})

if(NOT DISPATCH_CANARY STREQUAL "none" AND NOT DISPATCH_CANARY IN_LIST DISPATCH_CANARY_NAMES)
  list(JOIN DISPATCH_CANARY_NAMES ", " _dispatch_canary_names)
  message(FATAL_ERROR
    "DISPATCH_CANARY='${DISPATCH_CANARY}' is not a known canary.\n"
    "Valid values: none, ${_dispatch_canary_names}.\n"
    "(The list lives in sanitizer_builds/canaries.cmake.)")
endif()

if(NOT DISPATCH_CANARY STREQUAL "none")
  message(WARNING
    "\n"
    "  ****************************************************************\n"
    "  *  CANARY BUILD: DISPATCH_CANARY=${DISPATCH_CANARY}\n"
    "  *  The dispatch library is built WITH A DELIBERATE BUG.\n"
    "  *  Never ship, install or benchmark this build. Use it only to\n"
    "  *  check that the harness catches the planted bug.\n"
    "  ****************************************************************\n")
endif()

# ctest label `canary`: ci/canaries.sh --fast.
include(${CMAKE_CURRENT_LIST_DIR}/canary_job.cmake)
