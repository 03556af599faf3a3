# Turns the runtime headers into C++ string constants (raw string literals).
file(READ ${SRC_DIR}/stnc_runtime.h RT)
file(READ ${SRC_DIR}/stnc_runtime_cuda.h RTC)
file(WRITE ${OUT} "// generated from src/codegen/runtime/*.h by Embed.cmake — do not edit\n")
file(APPEND ${OUT} "namespace stnc::codegen {\n")
file(APPEND ${OUT} "extern const char* const kRuntimeHeader = R\"stnc_rt(${RT})stnc_rt\";\n")
file(APPEND ${OUT} "extern const char* const kRuntimeCudaHeader = R\"stnc_rt(${RTC})stnc_rt\";\n")
file(APPEND ${OUT} "}\n")
