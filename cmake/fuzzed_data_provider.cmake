# cmake/fuzzed_data_provider.cmake -- dispatch_fuzzed_data_provider(<outvar>): a folder holding
# fuzzer/FuzzedDataProvider.h, for the action decoders (oracle/) and the fuzz targets.
#
# FuzzedDataProvider.h ships with clang. It is copied into a folder of its own, because adding
# clang's whole resource include folder would make gcc pick up clang's <stddef.h>. The
# compiler's own copy first: OSS-Fuzz's clang lives under /usr/local, not in Debian's paths.
include_guard(GLOBAL)

function(dispatch_fuzzed_data_provider outvar)
  set(_candidates "")
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-resource-dir
      OUTPUT_VARIABLE _resource_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_resource_dir AND EXISTS "${_resource_dir}/include/fuzzer/FuzzedDataProvider.h")
      list(APPEND _candidates "${_resource_dir}/include/fuzzer/FuzzedDataProvider.h")
    endif()
  endif()
  file(GLOB _system
    /usr/lib/llvm-*/lib/clang/*/include/fuzzer/FuzzedDataProvider.h
    /usr/lib/clang/*/include/fuzzer/FuzzedDataProvider.h)
  list(APPEND _candidates ${_system})
  if(NOT _candidates)
    message(FATAL_ERROR "fuzzer/FuzzedDataProvider.h not found: install clang (ci/setup.sh)")
  endif()
  list(GET _candidates 0 _header)
  set(_dir ${PROJECT_BINARY_DIR}/fdp)
  configure_file(${_header} ${_dir}/fuzzer/FuzzedDataProvider.h COPYONLY)
  set(${outvar} ${_dir} PARENT_SCOPE)
endfunction()
