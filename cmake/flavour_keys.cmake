# cmake/flavour_keys.cmake -- the runtime key names, read from the library's one key table
# (dispatch/include/dispatch/key_table.h), so that flavour declarations are checked and random
# flavours are drawn without a second hand-written key list.
#
#   dispatch_read_key_table(<out_prefix>) sets in the caller's scope
#     <out_prefix>_BACKENDS          CPU CUDA ... (backend order)
#     <out_prefix>_PLAIN             the functionality keys with one slot (FPGA ... PythonDispatcher)
#     <out_prefix>_PER_BACKEND_PREFIXES  the runtime-key prefix of each per-backend functionality,
#                                    "-" for the Dense block's empty prefix (CPU, CUDA, ...)
#     <out_prefix>_RUNTIME           every runtime key: Undefined, the plain keys, prefix+backend
include_guard(GLOBAL)

function(dispatch_read_key_table out_prefix)
  set(_table "${PROJECT_SOURCE_DIR}/dispatch/include/dispatch/key_table.h")
  set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_table}")
  file(READ "${_table}" _text)
  string(REGEX REPLACE "//[^\n]*" "" _text "${_text}")   # the Note's prose names PLAIN(name) too

  string(REGEX MATCHALL "_\\(extra, [A-Za-z0-9_]+\\)" _backend_entries "${_text}")
  set(_backends "")
  foreach(_entry IN LISTS _backend_entries)
    string(REGEX REPLACE "_\\(extra, ([A-Za-z0-9_]+)\\)" "\\1" _name "${_entry}")
    list(APPEND _backends "${_name}")
  endforeach()

  string(REGEX MATCHALL "(PLAIN|PER_BACKEND)\\([A-Za-z0-9_]+(, *[A-Za-z0-9_]*)?\\)"
         _functionality_entries "${_text}")
  set(_plain "")
  set(_prefixes "")
  set(_runtime Undefined)
  foreach(_entry IN LISTS _functionality_entries)
    if(_entry MATCHES "^PLAIN\\(([A-Za-z0-9_]+)\\)$")
      list(APPEND _plain "${CMAKE_MATCH_1}")
      list(APPEND _runtime "${CMAKE_MATCH_1}")
    elseif(_entry MATCHES "^PER_BACKEND\\([A-Za-z0-9_]+, *([A-Za-z0-9_]*)\\)$")
      set(_prefix "${CMAKE_MATCH_1}")
      if(_prefix STREQUAL "")
        list(APPEND _prefixes "-")
      else()
        list(APPEND _prefixes "${_prefix}")
      endif()
      foreach(_backend IN LISTS _backends)
        list(APPEND _runtime "${_prefix}${_backend}")
      endforeach()
    endif()
  endforeach()

  list(LENGTH _backends _num_backends)
  list(LENGTH _runtime _num_runtime)
  if(NOT _num_backends EQUAL 14 OR NOT _num_runtime EQUAL 106)
    # The key table of PyTorch 1.13.1 (dispatch_key.h asserts the same counts).
    message(FATAL_ERROR "dispatch: read ${_num_backends} backends and ${_num_runtime} runtime keys "
      "(Undefined included) from ${_table}; expected 14 and 106")
  endif()
  set(${out_prefix}_BACKENDS "${_backends}" PARENT_SCOPE)
  set(${out_prefix}_PLAIN "${_plain}" PARENT_SCOPE)
  set(${out_prefix}_PER_BACKEND_PREFIXES "${_prefixes}" PARENT_SCOPE)
  set(${out_prefix}_RUNTIME "${_runtime}" PARENT_SCOPE)
endfunction()
