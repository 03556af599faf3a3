# Install.cmake — the CMake package of stnc (included by the top-level CMakeLists.txt after the
# install() of the stnc binary and the stdlib).
#
# `cmake --install BUILD --prefix P` then lays out
#   P/bin/stnc                               the compiler
#   P/share/stnc/stdlib/                     the standard library (fd.stn, ...)
#   P/share/stnc/stnc.mk                     the GNU Make snippet (when cmake/stnc.mk exists)
#   P/lib/cmake/stnc/stncConfig.cmake        find_package(stnc): imported target stnc::stnc,
#   P/lib/cmake/stnc/stncConfigVersion.cmake   stnc_add_stencil(), STNC_EXECUTABLE, STNC_STDLIB_DIR,
#   P/lib/cmake/stnc/StncAddStencil.cmake      STNC_MK
#
# The build tree is a usable package as well (no install needed): find_package(stnc) with
# -Dstnc_DIR=<this build directory> finds <build>/stncConfig.cmake, which points at the stnc built
# there and at the source tree's stdlib/ and cmake/ files.
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(STNC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/stnc CACHE STRING
    "Where the stnc CMake package (stncConfig.cmake) is installed, relative to the prefix")
mark_as_advanced(STNC_INSTALL_CMAKEDIR)

set(_stnc_pkg_src ${CMAKE_CURRENT_LIST_DIR})
set(_stnc_has_mk FALSE)
if(EXISTS ${_stnc_pkg_src}/stnc.mk)
  set(_stnc_has_mk TRUE)
endif()

# ---- the installed package: every path relative to the installed config (relocatable) -------------
# The template's @STNC_CONFIG_*@ values are CMake code evaluated when the config file is loaded.
set(STNC_CONFIG_EXE "\${PACKAGE_PREFIX_DIR}/${CMAKE_INSTALL_BINDIR}/stnc${CMAKE_EXECUTABLE_SUFFIX}")
set(STNC_CONFIG_STDLIB "\${PACKAGE_PREFIX_DIR}/${CMAKE_INSTALL_DATADIR}/stnc/stdlib")
if(_stnc_has_mk)
  set(STNC_CONFIG_MK "\${PACKAGE_PREFIX_DIR}/${CMAKE_INSTALL_DATADIR}/stnc/stnc.mk")
else()
  set(STNC_CONFIG_MK "")
endif()
set(STNC_CONFIG_MODULE "\${CMAKE_CURRENT_LIST_DIR}/StncAddStencil.cmake")
set(STNC_CONFIG_KIND "installed")
set(STNC_CONFIG_EXE_SETUP "")
configure_package_config_file(${_stnc_pkg_src}/stncConfig.cmake.in
  ${PROJECT_BINARY_DIR}/stnc-package/stncConfig.cmake
  INSTALL_DESTINATION ${STNC_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the interface, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/stnc-package/stncConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/stnc-package/stncConfig.cmake
              ${PROJECT_BINARY_DIR}/stnc-package/stncConfigVersion.cmake
              ${_stnc_pkg_src}/StncAddStencil.cmake
        DESTINATION ${STNC_INSTALL_CMAKEDIR})
if(_stnc_has_mk)
  install(FILES ${_stnc_pkg_src}/stnc.mk DESTINATION ${CMAKE_INSTALL_DATADIR}/stnc)
endif()

# ---- the build-tree package: <build>/stncConfig.cmake ---------------------------------------------
# The executable's path is only known at generate time: a generated one-liner holds it.
get_property(_stnc_multi GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
if(_stnc_multi)
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/stnc-package/stncExe-$<CONFIG>.cmake
       CONTENT "set(_stnc_exe_$<CONFIG> \"$<TARGET_FILE:stnc>\")\n")
  set(STNC_CONFIG_EXE_SETUP [=[
file(GLOB _stnc_exe_files "${CMAKE_CURRENT_LIST_DIR}/stnc-package/stncExe-*.cmake")
foreach(_f IN LISTS _stnc_exe_files)
  include(${_f})
endforeach()
set(_stnc_exe "")
foreach(_c Release RelWithDebInfo MinSizeRel Debug)
  if(NOT _stnc_exe AND DEFINED _stnc_exe_${_c} AND EXISTS "${_stnc_exe_${_c}}")
    set(_stnc_exe "${_stnc_exe_${_c}}")
  endif()
endforeach()]=])
else()
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/stnc-package/stncExe.cmake
       CONTENT "set(_stnc_exe \"$<TARGET_FILE:stnc>\")\n")
  set(STNC_CONFIG_EXE_SETUP "include(\${CMAKE_CURRENT_LIST_DIR}/stnc-package/stncExe.cmake)")
endif()
set(STNC_CONFIG_EXE "\${_stnc_exe}")
set(STNC_CONFIG_STDLIB "${PROJECT_SOURCE_DIR}/stdlib")
if(_stnc_has_mk)
  set(STNC_CONFIG_MK "${_stnc_pkg_src}/stnc.mk")
endif()
set(STNC_CONFIG_MODULE "${_stnc_pkg_src}/StncAddStencil.cmake")
set(STNC_CONFIG_KIND "build tree")
configure_package_config_file(${_stnc_pkg_src}/stncConfig.cmake.in ${PROJECT_BINARY_DIR}/stncConfig.cmake
  INSTALL_DESTINATION ${PROJECT_BINARY_DIR} INSTALL_PREFIX ${PROJECT_BINARY_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/stncConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)

unset(_stnc_multi)
unset(_stnc_has_mk)
unset(_stnc_pkg_src)
