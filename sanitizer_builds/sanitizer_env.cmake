# sanitizer_builds/sanitizer_env.cmake -- the run-time environment of every test under a
# sanitizer: the llvm tools (symbolizer; profdata and cov for coverage) and the options files.
#
#   dispatch_sanitizer_env(<outvar>)
#     Sets <outvar> to the list
#       ASAN_OPTIONS=...;UBSAN_OPTIONS=...;TSAN_OPTIONS=...;LSAN_OPTIONS=...;
#       ASAN_SYMBOLIZER_PATH=...;UBSAN_SYMBOLIZER_PATH=...;TSAN_SYMBOLIZER_PATH=...
#     (+ LLVM_PROFILE_FILE=<build>/profraw/%4m.profraw in coverage builds), read from
#     sanitizer_builds/{asan,ubsan,tsan,lsan}.options. Use it for tests added with
#     plain add_test(), e.g. fuzz corpus replay:
#       dispatch_sanitizer_env(env)
#       set_tests_properties(t PROPERTIES ENVIRONMENT "${env}" LABELS corpus)
#
# The sanitizer run-time options have ONE source of truth: the *.options files
# next to this file, also read by sanitizer_builds/env.sh for the ci/ scripts.
include_guard(GLOBAL)

set(DISPATCH_SANITIZER_OPTIONS_DIR "${CMAKE_CURRENT_LIST_DIR}")

# ---------------------------------------------------------------- llvm tools
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  string(REGEX MATCH "^[0-9]+" _dispatch_llvm_major "${CMAKE_CXX_COMPILER_VERSION}")
else()
  set(_dispatch_llvm_major 14)
endif()
# The exact file name `llvm-symbolizer` from the compiler's own LLVM is preferred
# (older runtimes only accept that name; docs/harness.md §11.2), then llvm-symbolizer on
# PATH (Debian: /usr/bin/llvm-symbolizer -> llvm-14), then llvm-symbolizer-14.
find_program(DISPATCH_LLVM_SYMBOLIZER
  NAMES llvm-symbolizer llvm-symbolizer-${_dispatch_llvm_major} llvm-symbolizer-14
  HINTS /usr/lib/llvm-${_dispatch_llvm_major}/bin /usr/lib/llvm-14/bin
  DOC "llvm-symbolizer used by the sanitizer runtimes")
if(DISPATCH_ANY_SANITIZER AND (NOT DISPATCH_LLVM_SYMBOLIZER OR NOT EXISTS "${DISPATCH_LLVM_SYMBOLIZER}"))
  message(FATAL_ERROR
    "llvm-symbolizer not found (DISPATCH_LLVM_SYMBOLIZER='${DISPATCH_LLVM_SYMBOLIZER}'): "
    "sanitizer reports would have no function names or lines.\n"
    "Install it (Debian: llvm-14, via ci/setup.sh) or pass -DDISPATCH_LLVM_SYMBOLIZER=/path/to/llvm-symbolizer.")
endif()
if(DISPATCH_COVERAGE)
  find_program(DISPATCH_LLVM_PROFDATA NAMES llvm-profdata llvm-profdata-${_dispatch_llvm_major}
    HINTS /usr/lib/llvm-${_dispatch_llvm_major}/bin NO_DEFAULT_PATH)
  find_program(DISPATCH_LLVM_PROFDATA NAMES llvm-profdata-${_dispatch_llvm_major} llvm-profdata)
  find_program(DISPATCH_LLVM_COV NAMES llvm-cov llvm-cov-${_dispatch_llvm_major}
    HINTS /usr/lib/llvm-${_dispatch_llvm_major}/bin NO_DEFAULT_PATH)
  find_program(DISPATCH_LLVM_COV NAMES llvm-cov-${_dispatch_llvm_major} llvm-cov)
  if(NOT DISPATCH_LLVM_PROFDATA OR NOT DISPATCH_LLVM_COV)
    message(FATAL_ERROR
      "DISPATCH_COVERAGE needs llvm-profdata and llvm-cov of the same version as clang "
      "(${_dispatch_llvm_major}); install llvm-${_dispatch_llvm_major} (ci/setup.sh).")
  endif()
endif()

# ---------------------------------------------------------------- *.options files
# Format: one `name=value` per line; blank lines and `#` comments are ignored.
function(_dispatch_read_options_file file outvar)
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "sanitizer options file missing: ${file}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
  file(STRINGS "${file}" _lines)
  set(_opts "")
  foreach(_line IN LISTS _lines)
    string(REGEX REPLACE "#.*$" "" _line "${_line}")
    string(STRIP "${_line}" _line)
    if(_line STREQUAL "")
      continue()
    endif()
    if(NOT _line MATCHES "^[A-Za-z_][A-Za-z0-9_]*=[^ \t:;]+$")
      message(FATAL_ERROR "${file}: bad line '${_line}' (expected name=value, no spaces, ':' or ';')")
    endif()
    list(APPEND _opts "${_line}")
  endforeach()
  list(JOIN _opts ":" _joined)
  set(${outvar} "${_joined}" PARENT_SCOPE)
endfunction()

foreach(_kind asan ubsan tsan lsan)
  string(TOUPPER "${_kind}" _KIND)
  _dispatch_read_options_file("${DISPATCH_SANITIZER_OPTIONS_DIR}/${_kind}.options" DISPATCH_${_KIND}_OPTIONS)
endforeach()

function(dispatch_sanitizer_env outvar)
  set(_env
    "ASAN_OPTIONS=${DISPATCH_ASAN_OPTIONS}"
    "UBSAN_OPTIONS=${DISPATCH_UBSAN_OPTIONS}"
    "TSAN_OPTIONS=${DISPATCH_TSAN_OPTIONS}"
    "LSAN_OPTIONS=${DISPATCH_LSAN_OPTIONS}")
  if(DISPATCH_LLVM_SYMBOLIZER)
    list(APPEND _env
      "ASAN_SYMBOLIZER_PATH=${DISPATCH_LLVM_SYMBOLIZER}"
      "UBSAN_SYMBOLIZER_PATH=${DISPATCH_LLVM_SYMBOLIZER}"
      "TSAN_SYMBOLIZER_PATH=${DISPATCH_LLVM_SYMBOLIZER}")
  endif()
  if(DISPATCH_COVERAGE)
    list(APPEND _env "LLVM_PROFILE_FILE=${CMAKE_BINARY_DIR}/profraw/%4m.profraw")
  endif()
  set(${outvar} "${_env}" PARENT_SCOPE)
endfunction()
