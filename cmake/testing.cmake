# cmake/testing.cmake -- THE way to add tests to this project.
#
#   dispatch_add_test(NAME <name>
#                     SOURCES <src>...
#                     LABELS <label>...
#                     [LIBS <lib>...]
#                     [ENV <KEY=value>...]
#                     [DEFINITIONS <NAME=value>...] # private compile definitions
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
#     A test whose sources start a thread (std::thread, std::jthread, std::async) also gets
#     the label threads and, unless labelled slow, is built by the target
#     dispatch_threaded_tests (the TSan presets).
#     Does nothing unless developer mode is on (DISPATCH_ENABLE_TESTS).
#
#   dispatch_sanitizer_env(<outvar>) comes from sanitizer_builds/sanitizer_env.cmake.
#
#   dispatch_link_fuzzing_engine(<target>)
#     Adds DISPATCH_FUZZ_ENGINE_FLAGS (default -fsanitize=fuzzer, or $LIB_FUZZING_ENGINE)
#     to the link of <target>. Only for binaries that define LLVMFuzzerTestOneInput and
#     no main(); FATAL_ERROR unless DISPATCH_FUZZ or DISPATCH_OSS_FUZZ is ON.
#
#   DISPATCH_TEST_LABELS   known labels; dispatch_add_test refuses others (typos would
#                          silently drop a test from the per-label presets). Extend with
#                          list(APPEND DISPATCH_TEST_LABELS <new>) before use.
include_guard(GLOBAL)

set(DISPATCH_TEST_LABELS unit property corpus fuzz-smoke canary slow selfcheck ossfuzz bench threads)
# What starts a thread in a test's sources (dispatch_add_test gives such tests the label threads).
set(DISPATCH_THREAD_START_REGEX "std::(j?thread|async)[ ({<>]")

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
    "NO_GTEST_MAIN" "NAME;TIMEOUT;WORKING_DIRECTORY" "SOURCES;LIBS;LABELS;ENV;ARGS;DEFINITIONS")
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
  # Here rather than beside the call: with tests off there is no target to give them to.
  if(arg_DEFINITIONS)
    target_compile_definitions(${arg_NAME} PRIVATE ${arg_DEFINITIONS})
  endif()

  set(_wd_args "")
  if(arg_WORKING_DIRECTORY)
    set(_wd_args WORKING_DIRECTORY "${arg_WORKING_DIRECTORY}")
  endif()
  add_test(NAME ${arg_NAME} COMMAND ${arg_NAME} ${arg_ARGS} ${_wd_args})

  # A test whose sources start a thread gets the label threads and joins the target
  # dispatch_threaded_tests: the TSan presets build and run only those, since a test with one
  # thread cannot race. Decided from the sources at configure time (a change re-configures).
  foreach(_source IN LISTS arg_SOURCES)
    get_filename_component(_path "${_source}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(EXISTS "${_path}")
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_path}")
      file(READ "${_path}" _text)
      if(_text MATCHES "${DISPATCH_THREAD_START_REGEX}" AND NOT threads IN_LIST arg_LABELS)
        list(APPEND arg_LABELS threads)
      endif()
    endif()
  endforeach()
  if(threads IN_LIST arg_LABELS AND NOT slow IN_LIST arg_LABELS)  # a job that runs a slow test builds it
    if(NOT TARGET dispatch_threaded_tests)
      add_custom_target(dispatch_threaded_tests)
    endif()
    add_dependencies(dispatch_threaded_tests ${arg_NAME})
  endif()

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
