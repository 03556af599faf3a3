// Internal invariants (compiler bugs), kept apart from user diagnostics.
#pragma once
#include <cstdio>
#include <cstdlib>

#define STNC_ASSERT(cond, msg)                                                                 \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      std::fprintf(stderr, "stnc: internal error: %s (%s) at %s:%d\n", msg, #cond, __FILE__, \
                   __LINE__);                                                                  \
      std::abort();                                                                            \
    }                                                                                          \
  } while (0)
#define STNC_UNREACHABLE(msg) STNC_ASSERT(false, msg)
