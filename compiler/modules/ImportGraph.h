// ImportGraph: cycle detection over the modules' import edges, apart from
// any AST so it can be unit-tested on plain graphs.
//
// Each strongly connected component with an edge inside it holds at least
// one cycle; we report exactly one cycle per component (the shortest one
// through its earliest node, taking edges in their given order), so a knot of
// mutually importing modules gives one diagnostic, not one per path. The
// search is iterative: a long import chain cannot overflow the stack.
#pragma once

#include <cstdint>
#include <vector>

namespace linnet::modules {

struct ImportEdge {
  uint32_t from = 0;
  uint32_t to = 0;
  uint32_t tag = 0;  // caller's data (the importing `use` declaration's index)
};

// `edges` in the order they were written (per node, by node index). Returns
// the cycles as edge lists, each starting at its component's lowest node and
// ending at an edge back to it, ordered by that node.
std::vector<std::vector<ImportEdge>> findImportCycles(uint32_t nodeCount,
                                                      const std::vector<ImportEdge>& edges);

}  // namespace linnet::modules
