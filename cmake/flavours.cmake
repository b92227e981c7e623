# cmake/flavours.cmake -- the build flavours, read from ONE declaration (cmake/flavours.list).
#
# Every flavour is compiled into every build; from the declarations come the library's layout
# types, DISPATCH_FOR_EACH_LAYOUT and the flavour namespaces, and the model's flavour table
# (cmake/flavour_codegen.cmake writes them into the build tree). Sets:
#   DISPATCH_FLAVOURS            every flavour name, declared ones first
#   DISPATCH_DECLARED_FLAVOURS   the ones of cmake/flavours.list
#   DISPATCH_FLAVOUR             (cache) the flavour plain dispatch::Dispatcher means
# Options:
#   DISPATCH_RANDOM_FLAVOURS=N, DISPATCH_FLAVOUR_SEED=S   N more trimmed flavours drawn from S
#                                (cmake/random_flavours.cmake); the log prints their slots
#   DISPATCH_EXTRA_FLAVOURS      "name=Key,Key,...;..." more trimmed flavours, e.g. the one a
#                                nightly failure recorded (ci/repro.sh passes it)
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/flavour_keys.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/random_flavours.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/flavour_codegen.cmake)

set(DISPATCH_RANDOM_FLAVOURS "0" CACHE STRING "Number of trimmed flavours drawn at configure time")
set(DISPATCH_FLAVOUR_SEED "1" CACHE STRING "Seed of the drawn flavours (DISPATCH_RANDOM_FLAVOURS)")
set(DISPATCH_EXTRA_FLAVOURS "" CACHE STRING "More trimmed flavours: name=Key,Key,...;...")

dispatch_read_key_table(KEYS)

# Parses and checks one declaration; appends to the _flavour_* lists of the caller.
macro(_dispatch_declare_flavour name keys stands_for origin)
  if(NOT "${name}" MATCHES "^[a-z][a-z0-9_]*$")
    message(FATAL_ERROR "${origin}: flavour name '${name}' must be a lower-case identifier")
  endif()
  if("${name}" IN_LIST _flavour_names)
    message(FATAL_ERROR "${origin}: flavour '${name}' is declared twice")
  endif()
  if("${stands_for}" STREQUAL "" OR "${stands_for}" MATCHES "[\"\\\\]")
    message(FATAL_ERROR "${origin}: '${name}' needs a comment (what real build it stands for) "
      "without quotes or backslashes")
  endif()
  set(_keys ${keys})
  if(_keys STREQUAL "full")
    if(NOT "${name}" STREQUAL "full")
      message(FATAL_ERROR "${origin}: only the flavour named full keeps every key")
    endif()
  else()
    list(LENGTH _keys _count)
    list(GET _keys 0 _first)
    if(NOT _first STREQUAL "Undefined" OR _count LESS 2 OR _count GREATER 127)
      message(FATAL_ERROR "${origin}: '${name}' must keep Undefined first and 2 .. 127 keys")
    endif()
    set(_seen "")
    foreach(_key IN LISTS _keys)
      if(NOT _key IN_LIST KEYS_RUNTIME)
        message(FATAL_ERROR "${origin}: '${name}' keeps '${_key}', which is no runtime key of "
          "dispatch/include/dispatch/key_table.h")
      endif()
      if(_key IN_LIST _seen)
        message(FATAL_ERROR "${origin}: '${name}' keeps '${_key}' twice")
      endif()
      list(APPEND _seen "${_key}")
    endforeach()
  endif()
  list(APPEND _flavour_names "${name}")
  list(JOIN _keys " " _joined_keys)
  list(APPEND _flavour_keys "${_joined_keys}")
  list(APPEND _flavour_comments "${stands_for}")
endmacro()

set(_flavour_names "")
set(_flavour_keys "")
set(_flavour_comments "")

# 1. The declarations: `name: keys  # comment`, one a line.
set(_list_file "${CMAKE_CURRENT_LIST_DIR}/flavours.list")
set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_list_file}")
file(STRINGS "${_list_file}" _lines)
foreach(_line IN LISTS _lines)
  if(_line MATCHES "^[ \t]*(#|$)")
    continue()
  endif()
  if(NOT _line MATCHES "^([^:#]+):([^#]+)#(.*)$")
    message(FATAL_ERROR "${_list_file}: '${_line}' is not `name: keys  # what it stands for`")
  endif()
  string(STRIP "${CMAKE_MATCH_1}" _name)
  string(STRIP "${CMAKE_MATCH_2}" _keys)
  string(STRIP "${CMAKE_MATCH_3}" _comment)
  string(REGEX REPLACE "[ \t]+" ";" _keys "${_keys}")
  _dispatch_declare_flavour("${_name}" "${_keys}" "${_comment}" "${_list_file}")
endforeach()
list(GET _flavour_names 0 _first_flavour)
if(NOT _first_flavour STREQUAL "full")
  message(FATAL_ERROR "${_list_file}: the first flavour must be `full: full` (the model's "
    "default flavour and the reference every trimmed one is compared with)")
endif()
set(DISPATCH_DECLARED_FLAVOURS ${_flavour_names})

# 2. Extra and drawn flavours ("name=Key,Key,...").
dispatch_draw_random_flavours("${DISPATCH_RANDOM_FLAVOURS}" "${DISPATCH_FLAVOUR_SEED}" _drawn)
foreach(_declaration IN LISTS DISPATCH_EXTRA_FLAVOURS _drawn)
  if(NOT _declaration MATCHES "^([^=]+)=(.+)$")
    message(FATAL_ERROR "flavour '${_declaration}' is not name=Key,Key,...")
  endif()
  set(_name "${CMAKE_MATCH_1}")
  string(REPLACE "," ";" _keys "${CMAKE_MATCH_2}")
  if(_declaration IN_LIST _drawn)
    set(_comment "drawn from seed ${DISPATCH_FLAVOUR_SEED}")
    message(STATUS "dispatch: drawn flavour ${_declaration}")
  else()
    set(_comment "given in DISPATCH_EXTRA_FLAVOURS")
    message(STATUS "dispatch: extra flavour ${_declaration}")
  endif()
  _dispatch_declare_flavour("${_name}" "${_keys}" "${_comment}" "DISPATCH_EXTRA_FLAVOURS/DISPATCH_RANDOM_FLAVOURS")
endforeach()
set(DISPATCH_FLAVOURS ${_flavour_names})

# 3. The default flavour.
set(DISPATCH_FLAVOUR "full" CACHE STRING "The flavour plain dispatch::Dispatcher means")
set_property(CACHE DISPATCH_FLAVOUR PROPERTY STRINGS ${DISPATCH_FLAVOURS})
if(NOT DISPATCH_FLAVOUR IN_LIST DISPATCH_FLAVOURS)
  list(JOIN DISPATCH_FLAVOURS ", " _names)
  message(FATAL_ERROR
    "DISPATCH_FLAVOUR='${DISPATCH_FLAVOUR}' is not valid. Use one of: ${_names} "
    "(lower case), e.g. -DDISPATCH_FLAVOUR=mobile.")
endif()
list(JOIN DISPATCH_FLAVOURS " " _names)
message(STATUS "dispatch: flavours ${_names}; default ${DISPATCH_FLAVOUR}")

# 4. The generated headers (build tree only).
dispatch_generate_flavours(
  NAMES ${_flavour_names}
  KEYS ${_flavour_keys}
  COMMENTS ${_flavour_comments}
  DECLARED ${DISPATCH_DECLARED_FLAVOURS}
  DEFAULT ${DISPATCH_FLAVOUR})
