# Every test stencil compiles without a warning, also under --Werror:
#   cmake -DSTNC=... -DSTN=FILE.stn -DOUT=DIR [-DINCLUDE=DIR] -P WarningFree.cmake
cmake_minimum_required(VERSION 3.20)
foreach(v STNC STN OUT)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "WarningFree.cmake: -D${v}=... is required")
  endif()
endforeach()
set(inc)
if(DEFINED INCLUDE AND NOT INCLUDE STREQUAL "")
  set(inc -I "${INCLUDE}")
endif()
file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND "${STNC}" "${STN}" --Werror --target all -o "${OUT}" ${inc}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0 OR out MATCHES "warning:|error:")
  message(FATAL_ERROR "FAIL: `stnc ${STN} --Werror` exited with ${rc}:\n${out}")
endif()
message("PASS: ${STN} compiles warning-free with --Werror")
