# sanitizer_builds/selfcheck/expect_report.cmake -- run a deliberately faulty
# command and demand that it is reported.
#
#   cmake -DEXPECT=<regex> [-DALSO_EXPECT=<regex>] [-DTIMEOUT=<s>]
#         -P expect_report.cmake -- <command> [args...]
#
# Prints the command's output (stdout+stderr), then
#   "SELFCHECK PASSED: ..."  if the command exited non-zero and its output
#                            matches EXPECT (and ALSO_EXPECT, if given);
#   "SELFCHECK-FAILED: ..."  otherwise, and exits with an error.
# The ctest entry uses PASS_REGULAR_EXPRESSION=<the report line> and
# FAIL_REGULAR_EXPRESSION=SELFCHECK-FAILED, so both must agree.
cmake_minimum_required(VERSION 3.25)

set(_cmd "")
set(_seen_sep OFF)
math(EXPR _last "${CMAKE_ARGC} - 1")
foreach(_i RANGE 1 ${_last})
  if(_seen_sep)
    list(APPEND _cmd "${CMAKE_ARGV${_i}}")
  elseif(CMAKE_ARGV${_i} STREQUAL "--")
    set(_seen_sep ON)
  endif()
endforeach()
if(NOT _cmd OR NOT DEFINED EXPECT)
  message(FATAL_ERROR "SELFCHECK-FAILED: usage: cmake -DEXPECT=<regex> -P expect_report.cmake -- <command>...")
endif()
if(NOT DEFINED TIMEOUT)
  set(TIMEOUT 120)
endif()

execute_process(COMMAND ${_cmd}
  RESULT_VARIABLE _rc
  OUTPUT_VARIABLE _out
  ERROR_VARIABLE _out
  TIMEOUT ${TIMEOUT})
message("----- output of: ${_cmd}\n${_out}----- exit: ${_rc}")

set(_problems "")
if(_rc STREQUAL "0")
  list(APPEND _problems "the command exited 0 (the fault was not fatal)")
endif()
if(NOT _out MATCHES "${EXPECT}")
  list(APPEND _problems "expected report not found: /${EXPECT}/")
endif()
if(DEFINED ALSO_EXPECT AND NOT _out MATCHES "${ALSO_EXPECT}")
  list(APPEND _problems "expected detail not found (symbolized stack?): /${ALSO_EXPECT}/")
endif()
if(_problems)
  list(JOIN _problems "; " _problems)
  message(FATAL_ERROR "SELFCHECK-FAILED: ${_problems}")
endif()
message("SELFCHECK PASSED: report /${EXPECT}/ found, exit ${_rc}")
