// Printers of the lowered module: readable text (--emit=dag), JSON (--emit=json) and Graphviz
// (--emit=dot). All three list nodes in id order, so the output is deterministic.
#pragma once
#include <iosfwd>
#include <string>

#include "dag/Kernel.h"

namespace stnc::dag {

void printText(std::ostream& os, const Module& m);
void printJson(std::ostream& os, const Module& m);
void printDot(std::ostream& os, const Module& m);
// A number as an exact C literal: integers plainly, others as %.17g (round-trips in float64).
std::string exactLiteral(double v);
// One node as text: "add %3 %4", "access u[-1,0,0]", "const 0.25".
std::string nodeText(const Context& ctx, NodeId id, int rank);

}  // namespace stnc::dag
