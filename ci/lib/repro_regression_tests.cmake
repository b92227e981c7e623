# ci/lib/repro_regression_tests.cmake -- builds the tests of fuzz/regression_tests/ in a build
# tree whose fuzz/CMakeLists.txt does not add that folder (yet).
#
# ci/repro.sh passes it as -DCMAKE_PROJECT_INCLUDE=<this file> ONLY when it configures a build
# tree of its own (a canary tree build/<preset>-canary-<name>, or --build-dir naming a folder
# that does not exist yet), so that the regression test it writes can be built and run there
# at once. It is never added to the shared build/<preset> trees.
#
# CMAKE_PROJECT_INCLUDE runs right after project(), before dispatch_add_test() and the
# dispatch_fuzz_harness target exist, so the work is deferred to the end of the top-level
# CMakeLists.txt. Deferred code may not add_subdirectory(), so this reads the one-line
# dispatch_add_test(...) calls of fuzz/regression_tests/CMakeLists.txt (the form ci/repro.sh
# writes) and makes them here, with absolute source paths. Once fuzz/CMakeLists.txt has its
# own add_subdirectory(regression_tests), this file does nothing.

function(_dispatch_repro_add_regression_tests)
  set(_src "${CMAKE_SOURCE_DIR}/fuzz/regression_tests")
  if(NOT EXISTS "${_src}/CMakeLists.txt" OR NOT TARGET dispatch_fuzz_harness OR NOT COMMAND dispatch_add_test)
    return()
  endif()
  get_property(_subdirs DIRECTORY "${CMAKE_SOURCE_DIR}/fuzz" PROPERTY SUBDIRECTORIES)
  if("${_src}" IN_LIST _subdirs)
    return()  # fuzz/CMakeLists.txt adds it itself
  endif()
  set_property(DIRECTORY "${CMAKE_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_src}/CMakeLists.txt")
  file(STRINGS "${_src}/CMakeLists.txt" _calls REGEX "^dispatch_add_test\\(.*\\)[ \t]*$")
  set(_n 0)
  foreach(_call IN LISTS _calls)
    string(REGEX REPLACE "^dispatch_add_test\\((.*)\\)[ \t]*$" "\\1" _call "${_call}")
    string(REPLACE "\${CMAKE_CURRENT_SOURCE_DIR}" "${_src}" _call "${_call}")
    separate_arguments(_args UNIX_COMMAND "${_call}")
    set(_out "")
    set(_in_sources OFF)
    foreach(_a IN LISTS _args)
      if(_a MATCHES "^(NAME|SOURCES|LIBS|LABELS|ENV|TIMEOUT|ARGS|WORKING_DIRECTORY|NO_GTEST_MAIN)$")
        set(_in_sources OFF)
        if(_a STREQUAL "SOURCES")
          set(_in_sources ON)
        endif()
      elseif(_in_sources AND NOT IS_ABSOLUTE "${_a}")
        set(_a "${_src}/${_a}")
      endif()
      list(APPEND _out "${_a}")
    endforeach()
    dispatch_add_test(${_out})
    math(EXPR _n "${_n} + 1")
  endforeach()
  message(STATUS "ci/lib/repro_regression_tests.cmake: ${_n} test(s) from fuzz/regression_tests/ (not yet added by fuzz/CMakeLists.txt)")
endfunction()

if(CMAKE_PROJECT_NAME STREQUAL "dispatch" AND CMAKE_CURRENT_SOURCE_DIR STREQUAL CMAKE_SOURCE_DIR)
  cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _dispatch_repro_add_regression_tests)
endif()
