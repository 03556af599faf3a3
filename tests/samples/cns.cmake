# samples/cns in CI (included by tests/samples/CMakeLists.txt; STNC_EXE = $<TARGET_FILE:stnc>).
# The sample is a separate CMake project that finds stnc as a package, so this also tests the package:
#   sample_cns_install         cmake --install of this build into <build>/tests/samples/cns/prefix, and
#                              the installed layout (bin/stnc, share/stnc/stdlib, lib/cmake/stnc, stnc.mk)
#   sample_cns_configure       configure samples/cns with -Dstnc_DIR=<prefix>/lib/cmake/stnc
#   sample_cns_build           build it (stnc_add_stencil runs the installed stnc at build time)
#   sample_cns_check           its ctest: both generated versions vs an independent reference (bitwise),
#                              8th-order convergence (fails below 7.5)
#   sample_cns_depfile         touching an *imported* .stn (the installed stdlib's fd.stn) makes the
#                              stnc step out of date (stnc -M depfile through stnc_add_stencil's DEPFILE)
#   sample_cns_cuda_build      -DSTNC_CNS_CUDA=ON: nvcc compile + link, no run (when nvcc exists)
#   sample_cns_cuda_check      runs the CUDA build's check when a GPU answers `nvidia-smi -L`; skipped otherwise
#   sample_cns_mpi.np<N>       (MPI found: the CPU build has -DSTNC_CNS_MPI=ON) mpirun -np N cns_mpi: the
#                              distributed hypterm (fused and five kernels) is bit-identical to one process
#   sample_cns_bare            no package: configure with -DSTNC_EXECUTABLE=<this build's stnc> (the way a
#                              carried static binary is used on another machine), build, run cns --check
set(CNS_SRC ${CMAKE_SOURCE_DIR}/samples/cns)
set(CNS_BIN ${CMAKE_CURRENT_BINARY_DIR}/cns)
set(CNS_PREFIX ${CNS_BIN}/prefix)
if(NOT DEFINED STNC_INSTALL_CMAKEDIR)
  include(GNUInstallDirs)
  set(STNC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/stnc)
endif()
# A parent make's jobserver flags must not leak into the nested builds.
set(CNS_ENV "MAKEFLAGS=;MFLAGS=;MAKELEVEL=;OMP_WAIT_POLICY=passive")
set(CNS_CONFIGURE_ARGS -G ${CMAKE_GENERATOR} -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER} -Dstnc_DIR=${CNS_PREFIX}/${STNC_INSTALL_CMAKEDIR})
if(CMAKE_MAKE_PROGRAM)
  list(APPEND CNS_CONFIGURE_ARGS -DCMAKE_MAKE_PROGRAM=${CMAKE_MAKE_PROGRAM})
endif()
find_package(MPI COMPONENTS CXX QUIET)
set(CNS_MPI OFF)
if(MPI_CXX_FOUND AND MPIEXEC_EXECUTABLE)
  set(CNS_MPI ON)
endif()

# ---- install into a scratch prefix and check the layout ----------------------------------------------
set(CNS_EXPECT bin/stnc${CMAKE_EXECUTABLE_SUFFIX} share/stnc/stdlib/fd.stn
    ${STNC_INSTALL_CMAKEDIR}/stncConfig.cmake ${STNC_INSTALL_CMAKEDIR}/stncConfigVersion.cmake
    ${STNC_INSTALL_CMAKEDIR}/StncAddStencil.cmake)
if(EXISTS ${CMAKE_SOURCE_DIR}/cmake/stnc.mk)
  list(APPEND CNS_EXPECT share/stnc/stnc.mk)
endif()
file(WRITE ${CNS_BIN}/install.cmake "
file(REMOVE_RECURSE \"${CNS_PREFIX}\")
execute_process(COMMAND \"${CMAKE_COMMAND}\" --install \"${CMAKE_BINARY_DIR}\" --prefix \"${CNS_PREFIX}\"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR \"cmake --install failed: \${rc}\")
endif()
foreach(f ${CNS_EXPECT})
  if(NOT EXISTS \"${CNS_PREFIX}/\${f}\")
    message(FATAL_ERROR \"not installed: \${f}\")
  endif()
endforeach()
execute_process(COMMAND \"${CNS_PREFIX}/bin/stnc\" --version RESULT_VARIABLE rc OUTPUT_VARIABLE v)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR \"the installed stnc does not run\")
endif()
message(\"installed \${v}into ${CNS_PREFIX}: layout ok\")
")
add_test(NAME sample_cns_install COMMAND ${CMAKE_COMMAND} -P ${CNS_BIN}/install.cmake)
set_tests_properties(sample_cns_install PROPERTIES TIMEOUT 120 LABELS "samples" FIXTURES_SETUP cns_prefix
                     RESOURCE_LOCK cns_prefix PASS_REGULAR_EXPRESSION "layout ok")

# ---- the CPU build of the sample against the installed package -------------------------------------
add_test(NAME sample_cns_configure
         COMMAND ${CMAKE_COMMAND} -S ${CNS_SRC} -B ${CNS_BIN}/cpu ${CNS_CONFIGURE_ARGS} -DSTNC_CNS_MPI=${CNS_MPI})
set_tests_properties(sample_cns_configure PROPERTIES TIMEOUT 120 LABELS "samples" ENVIRONMENT "${CNS_ENV}"
                     FIXTURES_REQUIRED cns_prefix FIXTURES_SETUP cns_cpu_configured RESOURCE_LOCK cns_cpu)
add_test(NAME sample_cns_build COMMAND ${CMAKE_COMMAND} --build ${CNS_BIN}/cpu --parallel 2)
set_tests_properties(sample_cns_build PROPERTIES TIMEOUT 300 LABELS "samples" ENVIRONMENT "${CNS_ENV}"
                     FIXTURES_REQUIRED "cns_prefix;cns_cpu_configured" FIXTURES_SETUP cns_cpu_built
                     RESOURCE_LOCK cns_cpu)
add_test(NAME sample_cns_check COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${CNS_BIN}/cpu -V -R "^cns_check$")
set_tests_properties(sample_cns_check PROPERTIES TIMEOUT 300 LABELS "samples" ENVIRONMENT "${CNS_ENV}"
                     FIXTURES_REQUIRED "cns_cpu_built" RESOURCE_LOCK cns_cpu
                     PASS_REGULAR_EXPRESSION "cns --check: PASSED" FAIL_REGULAR_EXPRESSION "FAILED")

if(CNS_MPI)
  foreach(np 1 2 3 4)
    add_test(NAME sample_cns_mpi.np${np} COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${CNS_BIN}/cpu -V -R "^cns_mpi_np${np}$")
    set_tests_properties(sample_cns_mpi.np${np} PROPERTIES TIMEOUT 300 LABELS "samples;mpi" ENVIRONMENT "${CNS_ENV}"
                         FIXTURES_REQUIRED "cns_cpu_built" RESOURCE_LOCK cns_cpu PROCESSORS ${np}
                         PASS_REGULAR_EXPRESSION "cns_mpi: PASSED on ${np} rank" FAIL_REGULAR_EXPRESSION "FAILED|DIFFERS")
  endforeach()
else()
  message(STATUS "samples/cns: MPI not found, cns_mpi is not built")
endif()

# ---- no package: a bare stnc binary (-DSTNC_EXECUTABLE), as scripts/gpu-samples.sh uses it -----------
string(REPLACE ";" "\" \"" CNS_BARE_ARGS_Q "-G;${CMAKE_GENERATOR};-DCMAKE_BUILD_TYPE=Release;-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}")
if(CMAKE_MAKE_PROGRAM)
  string(APPEND CNS_BARE_ARGS_Q "\" \"-DCMAKE_MAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}")
endif()
file(WRITE ${CNS_BIN}/bare.cmake "
file(REMOVE_RECURSE \"${CNS_BIN}/bare\")
execute_process(COMMAND \"${CMAKE_COMMAND}\" -S \"${CNS_SRC}\" -B \"${CNS_BIN}/bare\" \"${CNS_BARE_ARGS_Q}\"
                \"-DSTNC_EXECUTABLE=\${STNC_EXE}\" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR \"configuring with -DSTNC_EXECUTABLE failed\")
endif()
execute_process(COMMAND \"${CMAKE_COMMAND}\" --build \"${CNS_BIN}/bare\" --parallel 2 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR \"building with -DSTNC_EXECUTABLE failed\")
endif()
execute_process(COMMAND \"${CNS_BIN}/bare/cns\" --check --gpu off RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR \"cns --check failed\")
endif()
message(\"bare stnc binary: configure, build and check ok\")
")
add_test(NAME sample_cns_bare COMMAND ${CMAKE_COMMAND} -DSTNC_EXE=${STNC_EXE} -P ${CNS_BIN}/bare.cmake)
set_tests_properties(sample_cns_bare PROPERTIES TIMEOUT 600 LABELS "samples" ENVIRONMENT "${CNS_ENV};STNC_STDLIB="
                     PASS_REGULAR_EXPRESSION "configure, build and check ok")

# ---- stnc_add_stencil's depfile: an imported file (fd.stn) is a dependency ---------------------------
# A dry run (ninja -n / make -n) lists what would run: nothing while up to date; the stnc step after the
# installed stdlib's fd.stn (imported by cns.stn) was touched. Builds nothing; runs after the check.
file(WRITE ${CNS_BIN}/depfile.cmake "
set(b \"${CNS_BIN}/cpu\")
function(dry_run out)
  execute_process(COMMAND \"${CMAKE_COMMAND}\" --build \${b} --verbose -- -n
                  RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE o)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR \"dry run failed: \${o}\")
  endif()
  set(\${out} \"\${o}\" PARENT_SCOPE)
endfunction()
set(stnc_step \"bin/stnc[^\\n]*cns\\\\.stn\")
dry_run(o)
if(o MATCHES \"\${stnc_step}\")
  message(FATAL_ERROR \"stnc would rerun although nothing changed:\\n\${o}\")
endif()
file(TOUCH \"${CNS_PREFIX}/share/stnc/stdlib/fd.stn\")
dry_run(o)
if(NOT o MATCHES \"\${stnc_step}\")
  message(FATAL_ERROR \"touching the imported fd.stn does not rerun stnc:\\n\${o}\")
endif()
message(\"depfile test passed\")
")
add_test(NAME sample_cns_depfile COMMAND ${CMAKE_COMMAND} -P ${CNS_BIN}/depfile.cmake)
set_tests_properties(sample_cns_depfile PROPERTIES TIMEOUT 120 LABELS "samples" ENVIRONMENT "${CNS_ENV}"
                     FIXTURES_REQUIRED "cns_cpu_built" RESOURCE_LOCK cns_cpu DEPENDS sample_cns_check
                     PASS_REGULAR_EXPRESSION "depfile test passed")

# ---- CUDA: compile + link with nvcc (no GPU needed); run only where a GPU answers --------------------
if(STNC_NVCC)
  string(REPLACE ";" "\" \"" CNS_CONFIGURE_ARGS_Q "${CNS_CONFIGURE_ARGS}")
  file(WRITE ${CNS_BIN}/cuda_build.cmake "
execute_process(COMMAND \"${CMAKE_COMMAND}\" -S \"${CNS_SRC}\" -B \"${CNS_BIN}/cuda\" \"${CNS_CONFIGURE_ARGS_Q}\"
                -DSTNC_CNS_CUDA=ON \"-DCMAKE_CUDA_COMPILER=${STNC_NVCC}\" -DCMAKE_CUDA_ARCHITECTURES=90
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR \"configuring the CUDA build failed\")
endif()
execute_process(COMMAND \"${CMAKE_COMMAND}\" --build \"${CNS_BIN}/cuda\" --parallel 2 --verbose --clean-first
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message(\"\${out}\")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR \"building the CUDA variant failed\")
endif()
if(NOT out MATCHES \"nvcc[^\\n]*-fmad=false[^\\n]*cns\\\\.cu\")
  message(FATAL_ERROR \"cns.cu was not compiled by nvcc with -fmad=false\")
endif()
message(\"cuda build ok\")
")
  add_test(NAME sample_cns_cuda_build COMMAND ${CMAKE_COMMAND} -P ${CNS_BIN}/cuda_build.cmake)
  set_tests_properties(sample_cns_cuda_build PROPERTIES TIMEOUT 600 LABELS "samples;cuda" ENVIRONMENT "${CNS_ENV}"
                       FIXTURES_REQUIRED cns_prefix FIXTURES_SETUP cns_cuda_built RESOURCE_LOCK cns_cuda
                       PASS_REGULAR_EXPRESSION "cuda build ok")
  add_test(NAME sample_cns_cuda_check
           COMMAND sh -c "nvidia-smi -L >/dev/null 2>&1 || { echo 'no GPU: skipped'; exit 77; }; exec \"$0\" \"$@\""
                   ${CMAKE_CTEST_COMMAND} --test-dir ${CNS_BIN}/cuda -V)
  set_tests_properties(sample_cns_cuda_check PROPERTIES TIMEOUT 300 LABELS "samples;cuda;gpu"
                       ENVIRONMENT "${CNS_ENV}" FIXTURES_REQUIRED cns_cuda_built RESOURCE_LOCK cns_cuda
                       SKIP_RETURN_CODE 77 SKIP_REGULAR_EXPRESSION "no GPU: skipped"
                       PASS_REGULAR_EXPRESSION "cns --check: PASSED" FAIL_REGULAR_EXPRESSION "FAILED")
else()
  message(STATUS "samples/cns: nvcc not found, the CUDA build test is skipped")
endif()
