// stnc: the stencil compiler. Dispatches to the three commands; each lives in its own file.
#include <cstring>

#include "driver/Driver.h"
#include "support/LargeStack.h"

int main(int argc, char** argv) {
  // The printers and generators recurse over expressions too: run everything on a large stack.
  int rc = 1;
  stnc::runOnLargeStack([&] {
    if (argc > 1 && std::strcmp(argv[1], "info") == 0) rc = stnc::driver::infoMain(argc - 1, argv + 1);
    else if (argc > 1 && std::strcmp(argv[1], "run") == 0) rc = stnc::driver::runMain(argc - 1, argv + 1);
    else rc = stnc::driver::compileMain(argc, argv);
  });
  return rc;
}
