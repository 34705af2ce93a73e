// Cycle detection on plain graphs: one cycle per strongly connected
// component, the shortest through its lowest node, edges in source order.
#include <gtest/gtest.h>

#include "compiler/modules/ImportGraph.h"

namespace linnet::modules {
namespace {

// "0>1 1>2" style rendering of the found cycles, one string per cycle.
std::vector<std::string> cycles(uint32_t nodes, std::vector<ImportEdge> edges) {
  std::vector<std::string> out;
  for (const auto& cycle : findImportCycles(nodes, edges)) {
    std::string text;
    for (const ImportEdge& edge : cycle)
      text += (text.empty() ? "" : " ") + std::to_string(edge.from) + ">" + std::to_string(edge.to);
    out.push_back(text);
  }
  return out;
}

TEST(ImportGraph, AcyclicGraphsHaveNoCycles) {
  EXPECT_TRUE(cycles(0, {}).empty());
  EXPECT_TRUE(cycles(3, {{0, 1}, {1, 2}, {0, 2}}).empty());
}

TEST(ImportGraph, SelfImport) {
  EXPECT_EQ(cycles(2, {{0, 1}, {1, 1}}), std::vector<std::string>{"1>1"});
}

TEST(ImportGraph, TwoModuleCycle) {
  EXPECT_EQ(cycles(2, {{1, 0}, {0, 1}}), std::vector<std::string>{"0>1 1>0"});
}

TEST(ImportGraph, OneReportPerComponentShortestCycle) {
  // 0 -> 1 -> 2 -> 0 and 0 -> 2 -> 0: one component, the shortest cycle.
  EXPECT_EQ(cycles(3, {{0, 1}, {1, 2}, {2, 0}, {0, 2}}), std::vector<std::string>{"0>2 2>0"});
}

TEST(ImportGraph, SeparateComponentsEachReported) {
  EXPECT_EQ(cycles(5, {{0, 1}, {1, 0}, {2, 3}, {3, 4}, {4, 3}}),
            (std::vector<std::string>{"0>1 1>0", "3>4 4>3"}));
}

TEST(ImportGraph, TagsAreKept) {
  auto found = findImportCycles(2, {{0, 1, 7}, {1, 0, 3}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0][0].tag, 7u);
  EXPECT_EQ(found[0][1].tag, 3u);
}

TEST(ImportGraph, LongChainDoesNotOverflowTheStack) {
  const uint32_t n = 200000;
  std::vector<ImportEdge> edges;
  for (uint32_t i = 0; i + 1 < n; ++i) edges.push_back({i, i + 1});
  EXPECT_TRUE(findImportCycles(n, edges).empty());
  edges.push_back({n - 1, 0});
  auto found = findImportCycles(n, edges);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].size(), n);
}

TEST(ImportGraph, OutOfRangeEdgesAreIgnored) {
  EXPECT_TRUE(cycles(1, {{0, 5}, {5, 0}}).empty());
}

}  // namespace
}  // namespace linnet::modules
