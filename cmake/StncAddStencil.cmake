# StncAddStencil.cmake — stnc_add_stencil(), loaded by stncConfig.cmake (needs the stnc::stnc target).
#
#   stnc_add_stencil(<target> <file.stn>
#                    [TARGET_KIND cpu|cuda|all]   # default cpu
#                    [INCLUDE_DIRS dir...]        # searched for imports (-I), relative to the current source dir
#                    [OUTPUT_DIR dir]             # default ${CMAKE_CURRENT_BINARY_DIR}/stnc/<target>
#                    [OPTIONS opt...]             # more stnc options, e.g. --schedule stream --Werror
#                    [DISTRIBUTED]                # also <name>_mpi.h (stnc --distributed; link MPI yourself)
#                    [NO_OPENMP])                 # do not link OpenMP for the CPU code
#
# At build time stnc compiles <file.stn> into OUTPUT_DIR/<name>.h (the launcher header) and
#   cpu:  <name>.cpp  OpenMP C++, compiled with -ffp-contract=off; OpenMP::OpenMP_CXX is linked
#   cuda: <name>.cu   CUDA, compiled with -fmad=false (enable_language(CUDA) before the call); the
#                     target gets STNC_WITH_CUDA and the CUDA include directory, so host C++ that
#                     includes <name>.h sees the cuda:: launchers
#   all:  both
# and adds them to <target> (the header directory as a PUBLIC include directory of the build tree).
# No FMA contraction on either side, so CPU and GPU results agree bit for bit (docs/DESIGN.md).
# stnc's depfile (-M) lists every file the compilation read, so editing an imported .stn (or one
# of the stdlib) regenerates; a new stnc binary regenerates as well.
#
# Call it in the directory that defines <target> (custom command outputs belong to that directory).
# Sets <name>_STNC_HEADER and <name>_STNC_SOURCES (and, with DISTRIBUTED, <name>_STNC_MPI_HEADER) in
# the caller's scope.
#
# Without the package (only an stnc binary at hand, e.g. a static build copied to another machine):
#   set(STNC_EXECUTABLE /path/to/stnc)   # before the include; the stdlib: -I via INCLUDE_DIRS, or
#   include(<stnc source>/cmake/StncAddStencil.cmake)   # the STNC_STDLIB environment variable at build time
# defines the imported target stnc::stnc from STNC_EXECUTABLE.

if(POLICY CMP0116)
  cmake_policy(SET CMP0116 NEW)  # Ninja: depfile paths are made relative to the build directory
endif()

if(NOT TARGET stnc::stnc AND DEFINED STNC_EXECUTABLE)
  if(NOT EXISTS "${STNC_EXECUTABLE}")
    message(FATAL_ERROR "StncAddStencil.cmake: STNC_EXECUTABLE '${STNC_EXECUTABLE}' does not exist")
  endif()
  add_executable(stnc::stnc IMPORTED)
  set_target_properties(stnc::stnc PROPERTIES IMPORTED_LOCATION "${STNC_EXECUTABLE}")
endif()

function(stnc_add_stencil target file)
  cmake_parse_arguments(PARSE_ARGV 2 S "NO_OPENMP;DISTRIBUTED" "TARGET_KIND;OUTPUT_DIR" "INCLUDE_DIRS;OPTIONS")
  if(S_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "stnc_add_stencil: unknown arguments: ${S_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "stnc_add_stencil: '${target}' is not a target (add_executable/add_library first)")
  endif()
  if(NOT TARGET stnc::stnc)
    message(FATAL_ERROR "stnc_add_stencil: the stnc::stnc target is missing (find_package(stnc) first)")
  endif()
  get_target_property(_dir ${target} SOURCE_DIR)
  if(NOT _dir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
    message(FATAL_ERROR "stnc_add_stencil: call it in the directory that defines '${target}' (${_dir})")
  endif()

  if(NOT S_TARGET_KIND)
    set(S_TARGET_KIND cpu)
  endif()
  if(NOT S_TARGET_KIND MATCHES "^(cpu|cuda|all)$")
    message(FATAL_ERROR "stnc_add_stencil: TARGET_KIND must be cpu, cuda or all (got '${S_TARGET_KIND}')")
  endif()
  get_property(_langs GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(S_TARGET_KIND MATCHES "^(cuda|all)$" AND NOT "CUDA" IN_LIST _langs)
    message(FATAL_ERROR "stnc_add_stencil(${target} ${file} TARGET_KIND ${S_TARGET_KIND}): "
                        "enable the CUDA language first (project(... LANGUAGES CXX CUDA) or enable_language(CUDA))")
  endif()
  if(S_TARGET_KIND MATCHES "^(cpu|all)$" AND NOT "CXX" IN_LIST _langs)
    message(FATAL_ERROR "stnc_add_stencil: the CPU code is C++: enable the CXX language")
  endif()

  get_filename_component(_src "${file}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(_name "${_src}" NAME_WE)
  if(NOT EXISTS "${_src}")
    message(FATAL_ERROR "stnc_add_stencil: ${_src} does not exist")
  endif()
  if(NOT S_OUTPUT_DIR)
    set(S_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/stnc/${target}")
  endif()
  get_filename_component(_out "${S_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  file(MAKE_DIRECTORY "${_out}")

  set(_inc)
  foreach(_d IN LISTS S_INCLUDE_DIRS)
    get_filename_component(_d "${_d}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND _inc -I "${_d}")
  endforeach()

  # The outputs in the order stnc lists them in its depfile (Ninja checks the first one).
  set(_h "${_out}/${_name}.h")
  set(_outputs "${_h}")
  set(_sources)
  if(S_TARGET_KIND MATCHES "^(cpu|all)$")
    list(APPEND _outputs "${_out}/${_name}.cpp")
    list(APPEND _sources "${_out}/${_name}.cpp")
  endif()
  if(S_TARGET_KIND MATCHES "^(cuda|all)$")
    list(APPEND _outputs "${_out}/${_name}.cu")
    list(APPEND _sources "${_out}/${_name}.cu")
  endif()
  list(APPEND _outputs "${_out}/${_name}.json")
  set(_distributed)
  if(S_DISTRIBUTED)
    list(APPEND _outputs "${_out}/${_name}_mpi.h")
    set(_distributed --distributed)
  endif()
  set(_depfile "${_out}/${_name}.stn.d")

  file(RELATIVE_PATH _rel "${CMAKE_BINARY_DIR}" "${_out}")
  add_custom_command(
    OUTPUT ${_outputs}
    COMMAND stnc::stnc "${_src}" -o "${_out}" --target ${S_TARGET_KIND} ${_distributed} ${_inc} ${S_OPTIONS} -M "${_depfile}"
    MAIN_DEPENDENCY "${_src}"
    DEPENDS "$<TARGET_FILE:stnc::stnc>"
    DEPFILE "${_depfile}"
    COMMENT "stnc: ${file} -> ${_rel}/${_name}.h (${S_TARGET_KIND})"
    VERBATIM COMMAND_EXPAND_LISTS)

  target_sources(${target} PRIVATE "${_h}" ${_sources})
  if(S_DISTRIBUTED)
    target_sources(${target} PRIVATE "${_out}/${_name}_mpi.h")
    set(${_name}_STNC_MPI_HEADER "${_out}/${_name}_mpi.h" PARENT_SCOPE)
  endif()
  target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${_out}>")
  # The generated code (header included) is C++17.
  target_compile_features(${target} PUBLIC cxx_std_17)

  if(S_TARGET_KIND MATCHES "^(cpu|all)$")
    set_source_files_properties("${_out}/${_name}.cpp" PROPERTIES
      COMPILE_OPTIONS "$<$<CXX_COMPILER_ID:GNU,Clang,AppleClang,IntelLLVM>:-ffp-contract=off>;$<$<CXX_COMPILER_ID:NVHPC>:-Mnofma>")
    if(NOT S_NO_OPENMP)
      if(NOT TARGET OpenMP::OpenMP_CXX)
        find_package(OpenMP QUIET COMPONENTS CXX)
      endif()
      if(TARGET OpenMP::OpenMP_CXX)
        target_link_libraries(${target} PRIVATE OpenMP::OpenMP_CXX)
      else()
        message(WARNING "stnc_add_stencil(${target} ${file}): OpenMP not found, the CPU kernels run on one thread")
      endif()
    endif()
  endif()
  if(S_TARGET_KIND MATCHES "^(cuda|all)$")
    set_source_files_properties("${_out}/${_name}.cu" PROPERTIES
      COMPILE_OPTIONS "$<$<CUDA_COMPILER_ID:NVIDIA>:-fmad=false>;$<$<CUDA_COMPILER_ID:NVIDIA>:-Xcompiler=-ffp-contract=off>;$<$<CUDA_COMPILER_ID:Clang>:-ffp-contract=off>")
    target_compile_features(${target} PUBLIC cuda_std_17)
    # Host C++ including the header declares the cuda:: launchers (needs cuda_runtime.h).
    target_compile_definitions(${target} PUBLIC STNC_WITH_CUDA)
    target_include_directories(${target} SYSTEM PUBLIC ${CMAKE_CUDA_TOOLKIT_INCLUDE_DIRECTORIES})
  endif()

  set(${_name}_STNC_HEADER "${_h}" PARENT_SCOPE)
  set(${_name}_STNC_SOURCES "${_sources}" PARENT_SCOPE)
endfunction()
