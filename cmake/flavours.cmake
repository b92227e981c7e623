# cmake/flavours.cmake -- the DISPATCH_FLAVOUR cache variable.
#
#   full    the 64-entry per-operator dispatch table (server builds)
#   mobile  the shrunken table of mobile builds (the #74963 setting)
#
# Only the variable is provided here; dispatch/CMakeLists.txt turns it into a
# compile definition of the dispatch library.

set(DISPATCH_FLAVOURS full mobile)
set(DISPATCH_FLAVOUR "full" CACHE STRING "Dispatch table flavour: full or mobile")
set_property(CACHE DISPATCH_FLAVOUR PROPERTY STRINGS ${DISPATCH_FLAVOURS})

if(NOT DISPATCH_FLAVOUR IN_LIST DISPATCH_FLAVOURS)
  message(FATAL_ERROR
    "DISPATCH_FLAVOUR='${DISPATCH_FLAVOUR}' is not valid. Use one of: full, mobile "
    "(lower case), e.g. -DDISPATCH_FLAVOUR=mobile.")
endif()
message(STATUS "dispatch: flavour ${DISPATCH_FLAVOUR}")
