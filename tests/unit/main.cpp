// The doctest main of stnc_unit (kept alone: it is the slowest file to compile).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
