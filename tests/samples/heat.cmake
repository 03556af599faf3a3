# samples/heat in CI (included by tests/samples/CMakeLists.txt; STNC_EXE = $<TARGET_FILE:stnc>).
#   sample_heat_check       make check with the stnc just built: 2-D/3-D convergence against the analytic
#                           solution, fails unless the observed order is ~2. Builds under the build
#                           tree (make O=...), never in the source tree.
#   sample_heat_gpu_build   make GPU=1 (nvcc compile + link, no run) when nvcc exists.
#   sample_heat_gpu_check   make GPU=1 check (includes CUDA == CPU bitwise) when a GPU answers
#                           `nvidia-smi -L` at test time; skipped otherwise.
#   sample_heat_nopng       make run PNG=0: builds and runs without libpng (no <png.h>, no -lpng), the
#                           image goes to a binary PPM.
#   sample_heat_mpi_build   make MPI=1 (mpicxx; heat_mpi.h from stnc --distributed), when MPI is found.
#   sample_heat_mpi.<2d|3d>.np<N>  mpirun -np N (1..4) heat --verify: the distributed run is bit-identical
#                           to the single-process run (exit 1 otherwise), 2-D and 3-D.
#   stnc_mk_depfile         cmake/stnc.mk: outputs are generated, and editing an *imported* .stn makes
#                           them out of date (the -M depfile is included).
find_program(STNC_MAKE_PROGRAM NAMES gmake make)
if(NOT STNC_MAKE_PROGRAM)
  message(STATUS "samples/heat tests: no make program, skipped")
  return()
endif()

set(HEAT_SRC ${CMAKE_SOURCE_DIR}/samples/heat)
set(HEAT_BIN ${CMAKE_CURRENT_BINARY_DIR}/heat)
# A parent make's jobserver flags must not leak into the sample's make.
set(HEAT_ENV "MAKEFLAGS=;MFLAGS=;MAKELEVEL=")

add_test(NAME sample_heat_check
         COMMAND ${STNC_MAKE_PROGRAM} -C ${HEAT_SRC} check STNC=${STNC_EXE} O=${HEAT_BIN}/cpu)
set_tests_properties(sample_heat_check PROPERTIES TIMEOUT 300 LABELS "samples" ENVIRONMENT "${HEAT_ENV}")

add_test(NAME sample_heat_nopng
         COMMAND ${STNC_MAKE_PROGRAM} -C ${HEAT_SRC} run PNG=0 STNC=${STNC_EXE} O=${HEAT_BIN}/nopng
                 "RUN_ARGS=--dim 2 --n 32 --steps 5")
set_tests_properties(sample_heat_nopng PROPERTIES TIMEOUT 300 LABELS "samples" ENVIRONMENT "${HEAT_ENV}"
                     PASS_REGULAR_EXPRESSION "heat: wrote [^\n]*heat\\.ppm" FAIL_REGULAR_EXPRESSION "lpng|png\\.h")

# ---- the MPI build: distributed runs bit-identical to one process ------------------------------------
find_package(MPI COMPONENTS CXX QUIET)
if(MPI_CXX_FOUND AND MPI_CXX_COMPILER AND MPIEXEC_EXECUTABLE)
  set(HEAT_MPIRUN_FLAGS)
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE heat_mpi_version ERROR_QUIET)
  if(heat_mpi_version MATCHES "Open MPI|OpenRTE")
    set(HEAT_MPIRUN_FLAGS --oversubscribe --allow-run-as-root)
  endif()
  add_test(NAME sample_heat_mpi_build
           COMMAND ${STNC_MAKE_PROGRAM} -C ${HEAT_SRC} all MPI=1 MPICXX=${MPI_CXX_COMPILER} STNC=${STNC_EXE} O=${HEAT_BIN}/mpi)
  set_tests_properties(sample_heat_mpi_build PROPERTIES TIMEOUT 300 LABELS "samples;mpi" ENVIRONMENT "${HEAT_ENV}"
                       FIXTURES_SETUP heat_mpi)
  foreach(np 1 2 3 4)
    foreach(case "2d;--dim;2;--n;50;--steps;40" "3d;--dim;3;--n;21;--steps;25")
      list(GET case 0 tag)
      list(SUBLIST case 1 -1 args)
      add_test(NAME sample_heat_mpi.${tag}.np${np}
               COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${HEAT_MPIRUN_FLAGS} ${MPIEXEC_PREFLAGS}
                       ${HEAT_BIN}/mpi/mpi/heat ${MPIEXEC_POSTFLAGS} ${args} --init sine --verify)
      set_tests_properties(sample_heat_mpi.${tag}.np${np} PROPERTIES TIMEOUT 120 LABELS "samples;mpi" PROCESSORS ${np}
                           ENVIRONMENT "OMP_NUM_THREADS=1" FIXTURES_REQUIRED heat_mpi
                           PASS_REGULAR_EXPRESSION "heat --verify: ${np} rank\\(s\\) vs one process [^\n]*: bit-identical")
    endforeach()
  endforeach()
else()
  message(STATUS "samples/heat: MPI not found, the MPI build test is skipped")
endif()

if(STNC_NVCC)
  add_test(NAME sample_heat_gpu_build
           COMMAND ${STNC_MAKE_PROGRAM} -C ${HEAT_SRC} all GPU=1 NVCC=${STNC_NVCC} STNC=${STNC_EXE}
                   O=${HEAT_BIN}/gpu)
  set_tests_properties(sample_heat_gpu_build PROPERTIES TIMEOUT 600 LABELS "samples;cuda"
                       ENVIRONMENT "${HEAT_ENV}" RESOURCE_LOCK heat_gpu_dir)
  add_test(NAME sample_heat_gpu_check
           COMMAND sh -c "nvidia-smi -L >/dev/null 2>&1 || { echo 'no GPU: skipped'; exit 77; }; exec \"$0\" \"$@\""
                   ${STNC_MAKE_PROGRAM} -C ${HEAT_SRC} check GPU=1 NVCC=${STNC_NVCC} STNC=${STNC_EXE} O=${HEAT_BIN}/gpu)
  set_tests_properties(sample_heat_gpu_check PROPERTIES TIMEOUT 600 LABELS "samples;cuda;gpu"
                       ENVIRONMENT "${HEAT_ENV}" RESOURCE_LOCK heat_gpu_dir DEPENDS sample_heat_gpu_build
                       SKIP_RETURN_CODE 77)
else()
  message(STATUS "samples/heat: nvcc not found, the GPU=1 build test is skipped")
endif()

# ---- cmake/stnc.mk: generation and depfile-driven regeneration, on a scratch project --------------
set(MK_DIR ${CMAKE_CURRENT_BINARY_DIR}/stnc_mk)
file(WRITE ${MK_DIR}/ops.stn "// imported by top.stn\ndef twice(f) = 2.0 * f;\n")
file(WRITE ${MK_DIR}/top.stn "import \"ops.stn\";\nstencil top(i, j) { in u; out v; v = twice(u[i+1,j]) + u; }\n")
file(WRITE ${MK_DIR}/Makefile "STNC_OUT := out\ninclude ${CMAKE_SOURCE_DIR}/cmake/stnc.mk\nall: out/top.h\n")
file(WRITE ${MK_DIR}/test.sh [=[
# usage: test.sh MAKE STNC   (run in the scratch project's directory)
set -eu
MAKE=$1
STNC=$2
# STNC_SELF_DEP= : the compiler binary's own mtime is left out so the dates below decide alone.
mk() { "$MAKE" --no-print-directory STNC="$STNC" STNC_SELF_DEP= "$@"; }
rm -rf out
mk all
for f in out/top.h out/top.cpp out/top.cu out/top.json out/top.stn.d; do
  test -f "$f" || { echo "FAIL: $f was not generated"; exit 1; }
done
grep -q 'ops.stn' out/top.stn.d || { echo "FAIL: the depfile does not list the imported ops.stn"; cat out/top.stn.d; exit 1; }
touch -d 2000-01-01 top.stn ops.stn
touch -d 2010-01-01 out/top.h out/top.cpp out/top.cu out/top.json
mk -q all || { echo "FAIL: up-to-date outputs are considered out of date"; exit 1; }
touch -d 2020-01-01 ops.stn
if mk -q all; then echo "FAIL: editing the imported ops.stn does not trigger regeneration"; exit 1; fi
mk all
mk -q all || { echo "FAIL: still out of date after regenerating"; exit 1; }
echo "stnc.mk depfile test passed"
]=])
add_test(NAME stnc_mk_depfile COMMAND sh ${MK_DIR}/test.sh ${STNC_MAKE_PROGRAM} ${STNC_EXE}
         WORKING_DIRECTORY ${MK_DIR})
set_tests_properties(stnc_mk_depfile PROPERTIES TIMEOUT 60 LABELS "samples" ENVIRONMENT "${HEAT_ENV}")
