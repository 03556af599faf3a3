# Runs the front-end fuzzer for SECONDS seconds from a fresh copy of the seed corpus.
# Any crash, sanitizer report, leak, timeout or invariant violation fails the test; the input is
# left in WORK/ (crash-*, leak-*, timeout-*): add it to tests/fuzz/regressions/ once understood.
file(REMOVE_RECURSE ${WORK}/corpus)
file(MAKE_DIRECTORY ${WORK}/corpus)
file(GLOB seeds ${SEEDS}/*)
file(COPY ${seeds} DESTINATION ${WORK}/corpus)
execute_process(COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=60 -rss_limit_mb=2048 -max_len=4096
                        -dict=${DICT} -artifact_prefix=${WORK}/ -print_final_stats=1 ${WORK}/corpus
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX MATCH "stat::number_of_executed_units: *[0-9]+" runs "${err}")
message(STATUS "fuzz.frontend: ${runs}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the fuzzer found a problem (exit ${rc}); artifacts in ${WORK}/\n${err}")
endif()
