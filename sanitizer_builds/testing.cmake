# sanitizer_builds/testing.cmake -- THE way to add tests to this project.
#
#   dispatch_add_test(NAME <name>
#                     SOURCES <src>...
#                     LABELS <label>...
#                     [LIBS <lib>...]
#                     [ENV <KEY=value>...]
#                     [TIMEOUT <seconds>]          # default 300
#                     [ARGS <arg>...]
#                     [WORKING_DIRECTORY <dir>]
#                     [NO_GTEST_MAIN])
#     Creates executable <name> linked with dispatch::internal_flags, GTest::gtest,
#     GTest::gtest_main (unless NO_GTEST_MAIN) and LIBS, and registers exactly ONE
#     ctest entry <name> with LABELS and ENVIRONMENT = dispatch_sanitizer_env() + ENV.
#     ENV entries named ASAN_OPTIONS/UBSAN_OPTIONS/TSAN_OPTIONS/LSAN_OPTIONS are
#     APPENDED to the defaults (":"-joined; the later value of an option wins),
#     other ENV entries replace or add variables.
#     Does nothing unless developer mode is on (DISPATCH_ENABLE_TESTS).
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
#   dispatch_link_fuzzing_engine(<target>)
#     Adds DISPATCH_FUZZ_ENGINE_FLAGS (default -fsanitize=fuzzer, or $LIB_FUZZING_ENGINE)
#     to the link of <target>. Only for binaries that define LLVMFuzzerTestOneInput and
#     no main(); FATAL_ERROR unless DISPATCH_FUZZ or DISPATCH_OSS_FUZZ is ON.
#
#   DISPATCH_TEST_LABELS   known labels; dispatch_add_test refuses others (typos would
#                          silently drop a test from the per-label presets). Extend with
#                          list(APPEND DISPATCH_TEST_LABELS <new>) before use.
#
# The sanitizer run-time options have ONE source of truth: the *.options files
# next to this file, also read by sanitizer_builds/env.sh for the ci/ scripts.
include_guard(GLOBAL)

set(DISPATCH_TEST_LABELS unit property corpus fuzz-smoke canary slow selfcheck ossfuzz bench)
set(DISPATCH_SANITIZER_OPTIONS_DIR "${CMAKE_CURRENT_LIST_DIR}")

# ---------------------------------------------------------------- llvm tools
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  string(REGEX MATCH "^[0-9]+" _dispatch_llvm_major "${CMAKE_CXX_COMPILER_VERSION}")
else()
  set(_dispatch_llvm_major 14)
endif()
# The exact file name `llvm-symbolizer` from the compiler's own LLVM is preferred
# (older runtimes only accept that name; harness-notes B4), then llvm-symbolizer on
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

# Merge user ENV entries into an environment list (see header).
function(_dispatch_merge_env envvar)
  set(_env "${${envvar}}")
  foreach(_entry IN LISTS ARGN)
    if(NOT _entry MATCHES "^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
      message(FATAL_ERROR "dispatch_add_test: ENV entry '${_entry}' is not KEY=value")
    endif()
    set(_key "${CMAKE_MATCH_1}")
    set(_value "${CMAKE_MATCH_2}")
    set(_out "")
    set(_done OFF)
    foreach(_old IN LISTS _env)
      if(_old MATCHES "^${_key}=(.*)$")
        set(_old_value "${CMAKE_MATCH_1}")
        if(_key MATCHES "^(ASAN|UBSAN|TSAN|LSAN)_OPTIONS$" AND NOT _old_value STREQUAL "")
          list(APPEND _out "${_key}=${_old_value}:${_value}")
        else()
          list(APPEND _out "${_key}=${_value}")
        endif()
        set(_done ON)
      else()
        list(APPEND _out "${_old}")
      endif()
    endforeach()
    if(NOT _done)
      list(APPEND _out "${_key}=${_value}")
    endif()
    set(_env "${_out}")
  endforeach()
  set(${envvar} "${_env}" PARENT_SCOPE)
endfunction()

function(dispatch_add_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg
    "NO_GTEST_MAIN" "NAME;TIMEOUT;WORKING_DIRECTORY" "SOURCES;LIBS;LABELS;ENV;ARGS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "dispatch_add_test: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_NAME)
    message(FATAL_ERROR "dispatch_add_test: NAME is required")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "dispatch_add_test(${arg_NAME}): SOURCES is required")
  endif()
  if(NOT arg_LABELS)
    message(FATAL_ERROR "dispatch_add_test(${arg_NAME}): LABELS is required (one of: ${DISPATCH_TEST_LABELS})")
  endif()
  foreach(_label IN LISTS arg_LABELS)
    if(NOT _label IN_LIST DISPATCH_TEST_LABELS)
      message(FATAL_ERROR "dispatch_add_test(${arg_NAME}): unknown label '${_label}'. "
        "Known: ${DISPATCH_TEST_LABELS} (list(APPEND DISPATCH_TEST_LABELS ...) to add one).")
    endif()
  endforeach()
  if(NOT DISPATCH_ENABLE_TESTS)
    return()
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 300)
  endif()

  add_executable(${arg_NAME} ${arg_SOURCES})
  target_link_libraries(${arg_NAME} PRIVATE dispatch::internal_flags ${arg_LIBS} GTest::gtest)
  if(NOT arg_NO_GTEST_MAIN)
    target_link_libraries(${arg_NAME} PRIVATE GTest::gtest_main)
  endif()

  set(_wd_args "")
  if(arg_WORKING_DIRECTORY)
    set(_wd_args WORKING_DIRECTORY "${arg_WORKING_DIRECTORY}")
  endif()
  add_test(NAME ${arg_NAME} COMMAND ${arg_NAME} ${arg_ARGS} ${_wd_args})

  dispatch_sanitizer_env(_env)
  _dispatch_merge_env(_env ${arg_ENV})
  set_tests_properties(${arg_NAME} PROPERTIES
    LABELS "${arg_LABELS}"
    ENVIRONMENT "${_env}"
    TIMEOUT "${arg_TIMEOUT}")
endfunction()

function(dispatch_link_fuzzing_engine target)
  if(NOT DISPATCH_FUZZ AND NOT DISPATCH_OSS_FUZZ)
    message(FATAL_ERROR "dispatch_link_fuzzing_engine(${target}): DISPATCH_FUZZ and DISPATCH_OSS_FUZZ "
      "are OFF. Guard the call with if(DISPATCH_FUZZ) and use a replay main() otherwise.")
  endif()
  separate_arguments(_flags UNIX_COMMAND "${DISPATCH_FUZZ_ENGINE_FLAGS}")
  # Link items, not options: they go after the objects, where an engine archive must be.
  target_link_libraries(${target} PRIVATE ${_flags})
endfunction()
