# CI compile check of one .stn file (one ctest per file and language):
#   cmake -DSTNC=... -DSTN=FILE.stn -DLANG=cpp|cu -DOUT=DIR -DCOMPILER=... -P CompileCheck.cmake
# Runs `stnc FILE.stn --target all -o DIR`, then compiles DIR/FILE.cpp with
#   g++ -std=c++17 -O1 -fopenmp -Wall -Wextra -Werror -c
# or DIR/FILE.cu with
#   nvcc -std=c++17 -arch=sm_90 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -c
# Prints "E2E-SKIP:" (the test's SKIP_REGULAR_EXPRESSION) when nvcc cannot be found.
cmake_minimum_required(VERSION 3.20)
foreach(v STNC STN LANG OUT)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "CompileCheck.cmake: -D${v}=... is required")
  endif()
endforeach()

if(LANG STREQUAL "cu")
  if(NOT COMPILER OR COMPILER MATCHES "NOTFOUND$" OR NOT EXISTS "${COMPILER}")
    find_program(COMPILER_FOUND nvcc HINTS /usr/local/cuda/bin NO_CACHE)
    if(NOT COMPILER_FOUND)
      message("E2E-SKIP: nvcc not found in PATH or /usr/local/cuda/bin; the CUDA compile check is skipped")
      return()
    endif()
    set(COMPILER "${COMPILER_FOUND}")
  endif()
elseif(LANG STREQUAL "cpp")
  if(NOT COMPILER)
    set(COMPILER g++)
  endif()
else()
  message(FATAL_ERROR "CompileCheck.cmake: LANG must be cpp or cu, not '${LANG}'")
endif()

get_filename_component(base "${STN}" NAME_WE)
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")

set(gen_cmd "${STNC}" "${STN}" --target all -o "${OUT}")
if(DEFINED INCLUDE AND NOT INCLUDE STREQUAL "")
  list(APPEND gen_cmd -I "${INCLUDE}")
endif()
execute_process(COMMAND ${gen_cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "FAIL: `${gen_cmd}` exited with ${rc}:\n${out}")
endif()
foreach(ext h cpp cu json)
  if(NOT EXISTS "${OUT}/${base}.${ext}")
    message(FATAL_ERROR "FAIL: stnc --target all did not write ${OUT}/${base}.${ext}")
  endif()
endforeach()

if(LANG STREQUAL "cpp")
  set(cc_cmd "${COMPILER}" -std=c++17 -O1 -fopenmp -Wall -Wextra -Werror -c "${OUT}/${base}.cpp" -o "${OUT}/${base}.cpp.o")
else()
  set(cc_cmd "${COMPILER}" -std=c++17 -arch=sm_90 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror
             -c "${OUT}/${base}.cu" -o "${OUT}/${base}.cu.o")
endif()
message("${cc_cmd}")
execute_process(COMMAND ${cc_cmd} WORKING_DIRECTORY "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "FAIL: compiling the generated ${base}.${LANG} failed (exit ${rc}):\n${out}")
endif()
if(NOT out STREQUAL "")
  message("${out}")
endif()
message("PASS: ${base}.${LANG} compiles warning-free")
