# sanitizer_builds/selfcheck/check_profraw.cmake -- coverage self-check.
#
#   cmake -DBINARY=<exe> -DOUT_DIR=<dir> -DPROFDATA=<llvm-profdata> -P check_profraw.cmake
#
# Runs <exe> clean with LLVM_PROFILE_FILE pointing into OUT_DIR, then demands a
# non-empty .profraw that llvm-profdata (same LLVM version as the compiler) can
# merge. Prints "coverage selfcheck: profraw written ..." on success.
cmake_minimum_required(VERSION 3.25)
foreach(_v BINARY OUT_DIR PROFDATA)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "SELFCHECK-FAILED: -D${_v}=... missing")
  endif()
endforeach()

file(REMOVE_RECURSE "${OUT_DIR}")
file(MAKE_DIRECTORY "${OUT_DIR}")
set(ENV{LLVM_PROFILE_FILE} "${OUT_DIR}/selfcheck-%p.profraw")
execute_process(COMMAND "${BINARY}" clean RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out TIMEOUT 60)
message("${_out}")
if(NOT _rc STREQUAL "0")
  message(FATAL_ERROR "SELFCHECK-FAILED: ${BINARY} clean exited ${_rc}")
endif()

file(GLOB _raws "${OUT_DIR}/*.profraw")
if(NOT _raws)
  message(FATAL_ERROR "SELFCHECK-FAILED: no .profraw written to ${OUT_DIR} (is -fprofile-instr-generate on?)")
endif()
list(GET _raws 0 _raw)
file(SIZE "${_raw}" _size)
if(_size EQUAL 0)
  message(FATAL_ERROR "SELFCHECK-FAILED: ${_raw} is empty")
endif()

execute_process(COMMAND "${PROFDATA}" merge -sparse -o "${OUT_DIR}/selfcheck.profdata" ${_raws}
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(NOT _rc STREQUAL "0")
  message(FATAL_ERROR "SELFCHECK-FAILED: ${PROFDATA} merge failed (version mismatch with the compiler?):\n${_out}")
endif()
message("coverage selfcheck: profraw written (${_raw}, ${_size} bytes) and merged by ${PROFDATA}")
