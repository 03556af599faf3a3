# samples/acoustic in CI (included by tests/samples/CMakeLists.txt; STNC_EXE = $<TARGET_FILE:stnc>).
#   sample_acoustic_check       make check WERROR=1 with the stnc just built: the stnc CPU kernels (inner
#                               region + PML shell as separate parts, point source, swap) against the
#                               sample's plain-loop reference, bit for bit, on 64^3 and 60x64x72 (200 steps).
#                               Builds under the build tree (make O=...), never in the source tree.
#   sample_acoustic_align_check the same with STNC_FLAGS=--align-region=on (layout() pads rows by 5 columns).
#   sample_acoustic_gpu_build   make GPU=1 WERROR=1 (nvcc -Werror all-warnings + g++ -Werror, link; no run)
#                               when nvcc exists.
#   sample_acoustic_gpu_check   make GPU=1 check-gpu (CUDA == CPU kernels bitwise after 1000 steps, CUDA ==
#                               reference) when a GPU answers `nvidia-smi -L` at test time; skipped otherwise.
find_program(STNC_MAKE_PROGRAM NAMES gmake make)
if(NOT STNC_MAKE_PROGRAM)
  message(STATUS "samples/acoustic tests: no make program, skipped")
  return()
endif()

set(ACOUSTIC_SRC ${CMAKE_SOURCE_DIR}/samples/acoustic)
set(ACOUSTIC_BIN ${CMAKE_CURRENT_BINARY_DIR}/acoustic)
# A parent make's jobserver flags must not leak into the sample's make.
set(ACOUSTIC_ENV "MAKEFLAGS=;MFLAGS=;MAKELEVEL=")

add_test(NAME sample_acoustic_check
         COMMAND ${STNC_MAKE_PROGRAM} -C ${ACOUSTIC_SRC} check WERROR=1 STNC=${STNC_EXE} O=${ACOUSTIC_BIN}/cpu)
set_tests_properties(sample_acoustic_check PROPERTIES TIMEOUT 300 LABELS "samples" ENVIRONMENT "${ACOUSTIC_ENV}"
                     PASS_REGULAR_EXPRESSION "acoustic --check: PASSED" FAIL_REGULAR_EXPRESSION "FAILED")

# The same check with --align-region=on (rows padded so that column 27 starts a 128-byte line): the CPU kernels
# index through layout(), whatever its pad, and must give the same bits.
add_test(NAME sample_acoustic_align_check
         COMMAND ${STNC_MAKE_PROGRAM} -C ${ACOUSTIC_SRC} check WERROR=1 STNC=${STNC_EXE} O=${ACOUSTIC_BIN}/cpu-align
                 STNC_FLAGS=--align-region=on)
set_tests_properties(sample_acoustic_align_check PROPERTIES TIMEOUT 300 LABELS "samples" ENVIRONMENT "${ACOUSTIC_ENV}"
                     PASS_REGULAR_EXPRESSION "acoustic --check: PASSED" FAIL_REGULAR_EXPRESSION "FAILED")

if(STNC_NVCC)
  add_test(NAME sample_acoustic_gpu_build
           COMMAND ${STNC_MAKE_PROGRAM} -C ${ACOUSTIC_SRC} all GPU=1 WERROR=1 NVCC=${STNC_NVCC} STNC=${STNC_EXE}
                   O=${ACOUSTIC_BIN}/gpu)
  set_tests_properties(sample_acoustic_gpu_build PROPERTIES TIMEOUT 600 LABELS "samples;cuda"
                       ENVIRONMENT "${ACOUSTIC_ENV}" RESOURCE_LOCK acoustic_gpu_dir)
  add_test(NAME sample_acoustic_gpu_check
           COMMAND sh -c "nvidia-smi -L >/dev/null 2>&1 || { echo 'no GPU: skipped'; exit 77; }; exec \"$0\" \"$@\""
                   ${STNC_MAKE_PROGRAM} -C ${ACOUSTIC_SRC} check-gpu GPU=1 WERROR=1 NVCC=${STNC_NVCC} STNC=${STNC_EXE}
                   O=${ACOUSTIC_BIN}/gpu)
  set_tests_properties(sample_acoustic_gpu_check PROPERTIES TIMEOUT 600 LABELS "samples;cuda;gpu"
                       ENVIRONMENT "${ACOUSTIC_ENV}" RESOURCE_LOCK acoustic_gpu_dir DEPENDS sample_acoustic_gpu_build
                       SKIP_RETURN_CODE 77)
else()
  message(STATUS "samples/acoustic: nvcc not found, the GPU=1 build test is skipped")
endif()
