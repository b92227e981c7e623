# Driver of the `consumer_check` ctest (see cmake/packaging.cmake):
# install the build tree into WORK_DIR/prefix, configure + build the project in
# SOURCE_DIR against it, run the result. Prints "consumer_check: OK".
cmake_minimum_required(VERSION 3.25)
foreach(_v BUILD_DIR WORK_DIR SOURCE_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "run_consumer_check.cmake: -D${_v}=... missing")
  endif()
endforeach()

function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  message("----- ${step}: ${ARGN}\n${_out}")
  if(NOT _rc STREQUAL "0")
    message(FATAL_ERROR "consumer_check: step '${step}' failed (${_rc})")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
run(install ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix")

set(_configure ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
  "-DDISPATCH_PREFIX=${WORK_DIR}/prefix" -DCMAKE_BUILD_TYPE=Release)
if(MAKE_PROGRAM)
  list(APPEND _configure "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
if(DEFINED EXPECTED_FLAVOUR)
  list(APPEND _configure "-DEXPECTED_FLAVOUR=${EXPECTED_FLAVOUR}")
endif()
if(DEFINED EXPECTED_VERSION)
  list(APPEND _configure "-DEXPECTED_VERSION=${EXPECTED_VERSION}")
endif()
run(configure ${_configure})
run(build ${CMAKE_COMMAND} --build "${WORK_DIR}/build")
run(run "${WORK_DIR}/build/consumer")
message("consumer_check: OK")
