# cmake/packaging.cmake -- install(EXPORT) + package config for
# find_package(dispatch) / dispatch::dispatch, and the `consumer_check` test.
#
# Included from the top-level CMakeLists.txt AFTER add_subdirectory(dispatch).
# dispatch/CMakeLists.txt provides the target `dispatch` and
#   install(TARGETS dispatch EXPORT dispatchTargets ...)
#   install(DIRECTORY include/ ...)
# If the library's public link interface needs other packages, it declares them
#   set_property(GLOBAL APPEND PROPERTY DISPATCH_PACKAGE_DEPENDENCIES <Package>)
# and dispatchConfig.cmake calls find_dependency(<Package>) for each
# (Threads, for Threads::Threads, is detected automatically).
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

option(DISPATCH_INSTALL "Generate the install rules and the dispatch CMake package" ${PROJECT_IS_TOP_LEVEL})
set(DISPATCH_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/dispatch" CACHE STRING
  "Where dispatchConfig.cmake is installed (relative to the prefix)")
mark_as_advanced(DISPATCH_INSTALL_CMAKEDIR)

if(NOT TARGET dispatch)
  message(STATUS "dispatch: no target `dispatch` (yet): no package/install rules generated")
  return()
endif()
if(NOT DISPATCH_INSTALL)
  return()
endif()

get_property(DISPATCH_PACKAGE_DEPENDENCIES GLOBAL PROPERTY DISPATCH_PACKAGE_DEPENDENCIES)
# Threads::Threads in the public link interface is detected automatically.
get_target_property(_dispatch_iface_libs dispatch INTERFACE_LINK_LIBRARIES)
if(_dispatch_iface_libs AND "Threads::Threads" IN_LIST _dispatch_iface_libs)
  list(APPEND DISPATCH_PACKAGE_DEPENDENCIES Threads)
endif()
list(REMOVE_DUPLICATES DISPATCH_PACKAGE_DEPENDENCIES)
list(JOIN DISPATCH_PACKAGE_DEPENDENCIES " " DISPATCH_PACKAGE_DEPENDENCIES)

install(EXPORT dispatchTargets
  NAMESPACE dispatch::
  FILE dispatchTargets.cmake
  DESTINATION "${DISPATCH_INSTALL_CMAKEDIR}")

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/dispatchConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/package/dispatchConfig.cmake"
  INSTALL_DESTINATION "${DISPATCH_INSTALL_CMAKEDIR}")
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/package/dispatchConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMinorVersion)   # 0.x: every minor release may break the API
install(FILES
  "${PROJECT_BINARY_DIR}/package/dispatchConfig.cmake"
  "${PROJECT_BINARY_DIR}/package/dispatchConfigVersion.cmake"
  DESTINATION "${DISPATCH_INSTALL_CMAKEDIR}")

# ---------------------------------------------------------------- consumer check
# Install into a scratch prefix inside the build tree and build a tiny project
# that does find_package(dispatch) + dispatch::dispatch. Plain builds only: an
# instrumented library would need the same -fsanitize/-fprofile link flags in
# the consumer, which is not what a consumer does.
if(DISPATCH_ENABLE_TESTS)
  if(DISPATCH_INSTRUMENTED)
    message(STATUS "dispatch: consumer_check test skipped (instrumented build)")
  else()
    set(_consumer_dir "${CMAKE_CURRENT_LIST_DIR}/consumer_check")
    add_test(NAME consumer_check
      COMMAND ${CMAKE_COMMAND}
        -DBUILD_DIR=${PROJECT_BINARY_DIR}
        -DWORK_DIR=${PROJECT_BINARY_DIR}/consumer_check
        -DSOURCE_DIR=${_consumer_dir}
        -DGENERATOR=${CMAKE_GENERATOR}
        -DMAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}
        -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
        "-DCXX_FLAGS=${CMAKE_CXX_FLAGS}"
        -DEXPECTED_FLAVOUR=${DISPATCH_FLAVOUR}
        -DEXPECTED_VERSION=${PROJECT_VERSION}
        -P ${_consumer_dir}/run_consumer_check.cmake)
    set_tests_properties(consumer_check PROPERTIES
      LABELS unit
      TIMEOUT 300
      PASS_REGULAR_EXPRESSION "consumer_check: OK"
      RUN_SERIAL ON)   # `cmake --install` of the whole build tree
  endif()
endif()
