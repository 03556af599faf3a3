// stnc: the stencil compiler. Dispatches to the three commands; each lives in its own file.
#include <cstring>

#include "driver/Driver.h"

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "info") == 0) return stnc::driver::infoMain(argc - 1, argv + 1);
  if (argc > 1 && std::strcmp(argv[1], "run") == 0) return stnc::driver::runMain(argc - 1, argv + 1);
  return stnc::driver::compileMain(argc, argv);
}
