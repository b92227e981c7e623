# sanitizer_builds/canary_job.cmake -- the ctest entry of label `canary`.
#
# `canaries_fast` runs ci/canaries.sh --fast: every planted bug (ci/canaries/<name>.patch) is
# applied to a scratch copy of the tree and built there (build/canary-work/<name>/), and must be
# caught by its fastest known layer.
# It builds eight trees, so it is never part of a default test run: the per-preset test presets
# exclude the label, and ci/premerge.sh calls the script itself. On its own:
#     ctest --preset full-asan-ubsan-canary
include_guard(GLOBAL)

function(_dispatch_add_canary_job)
  if(NOT DISPATCH_ENABLE_TESTS)
    return()
  endif()
  find_program(DISPATCH_BASH bash REQUIRED)
  add_test(NAME canaries_fast
    COMMAND ${DISPATCH_BASH} ${PROJECT_SOURCE_DIR}/ci/canaries.sh --fast)
  # RUN_SERIAL: it runs its own -j2 builds and fuzzers.
  set_tests_properties(canaries_fast PROPERTIES LABELS canary TIMEOUT 3600 RUN_SERIAL TRUE)
endfunction()

# Deferred to the end of the top-level CMakeLists.txt, so that the final DISPATCH_ENABLE_TESTS
# decides and the test sits after enable_testing().
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL _dispatch_add_canary_job)
