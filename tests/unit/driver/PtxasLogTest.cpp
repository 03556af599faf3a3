// driver/PtxasCheck's parsePtxasLog: registers and spills per kernel and per part entry, from `nvcc -Xptxas -v`
// output (lines in the form nvcc 13.0 prints them for the acoustic sample's two region kernels).
#include <doctest/doctest.h>

#include "driver/PtxasCheck.h"

using namespace stnc;

namespace {
const char* const kLog =
    "ptxas info    : Compiling entry function "
    "'_ZN3stn12acoustic_sep44_GLOBAL__N__080d5ef4_11_acoustic_cu_c2f0035f12region_inner15sweepPart_innerEN7stnc_rt6LayoutENS3_3BoxElPKfS7_S7_S7_S7_PfS8_' "
    "for 'sm_90'\n"
    "ptxas info    : Function properties for _ZN3stn12acoustic_sep..._innerE\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 97 registers, used 1 barriers, 564 bytes cmem[0]\n"
    "ptxas info    : Compiling entry function "
    "'_ZN3stn12acoustic_sep44_GLOBAL__N__080d5ef4_11_acoustic_cu_c2f0035f12default_part9sweepPartEN7stnc_rt6LayoutENS3_3BoxElPKfS7_S7_S7_S7_PfS8_' "
    "for 'sm_90'\n"
    "    48 bytes stack frame, 48 bytes spill stores, 40 bytes spill loads\n"
    "ptxas info    : Used 64 registers, used 1 barriers\n"
    "ptxas info    : Compiling entry function '_ZN3stn5star744_GLOBAL__N__080d5ef4_11_acoustic_cu_c2f0035f9sweepPartEN7stnc_rt6LayoutE' "
    "for 'sm_90'\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 40 registers, used 0 barriers\n"
    "ptxas info    : Compiling entry function '_ZN7stnc_rt11l2FlushReadILi0EEEvPK6float4mPf' for 'sm_90'\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 14 registers, used 0 barriers\n";
}  // namespace

TEST_CASE("parsePtxasLog keys every sweep entry by kernel/part::function and the kernel by its last entry") {
  const auto info = driver::parsePtxasLog(kLog);
  REQUIRE(info.count("acoustic_sep/region_inner::sweepPart_inner") == 1);
  CHECK(info.at("acoustic_sep/region_inner::sweepPart_inner").registers == 97);
  CHECK(info.at("acoustic_sep/region_inner::sweepPart_inner").spillStores == 0);
  REQUIRE(info.count("acoustic_sep/default_part::sweepPart") == 1);
  const driver::PtxasInfo& shell = info.at("acoustic_sep/default_part::sweepPart");
  CHECK(shell.registers == 64);
  CHECK(shell.stackFrame == 48);
  CHECK(shell.spillStores == 48);
  CHECK(shell.spillLoads == 40);
  // The kernel's own key: the last of its entries (as verifySchedules has always read it).
  REQUIRE(info.count("acoustic_sep") == 1);
  CHECK(info.at("acoustic_sep").registers == 64);
  // A kernel without part schedules: no part namespace in the key.
  REQUIRE(info.count("star7/sweepPart") == 1);
  CHECK(info.at("star7/sweepPart").registers == 40);
  CHECK(info.at("star7").registers == 40);
  // The runtime's own kernels are not stencils.
  CHECK(info.size() == 5);
}

TEST_CASE("parsePtxasLog: no entries, no keys") {
  CHECK(driver::parsePtxasLog("").empty());
  CHECK(driver::parsePtxasLog("ptxas info    : Used 12 registers\n").empty());  // no entry line before it
}
