// ImportGraph: iterative Tarjan for the strongly connected components, then
// a breadth-first search inside each component for its shortest cycle.
#include "compiler/modules/ImportGraph.h"

#include <algorithm>
#include <limits>

namespace linnet::modules {

namespace {

constexpr uint32_t kUnvisited = std::numeric_limits<uint32_t>::max();

// Component id of every node (Tarjan, with an explicit call stack).
std::vector<uint32_t> components(uint32_t nodeCount, const std::vector<ImportEdge>& edges,
                                 const std::vector<std::vector<uint32_t>>& out) {
  std::vector<uint32_t> index(nodeCount, kUnvisited), low(nodeCount, 0),
      component(nodeCount, kUnvisited);
  std::vector<bool> onStack(nodeCount, false);
  std::vector<uint32_t> stack;
  struct Frame {
    uint32_t node;
    size_t next;  // position in out[node]
  };
  std::vector<Frame> calls;
  uint32_t counter = 0, componentCount = 0;

  for (uint32_t root = 0; root < nodeCount; ++root) {
    if (index[root] != kUnvisited) continue;
    calls.push_back({root, 0});
    index[root] = low[root] = counter++;
    stack.push_back(root);
    onStack[root] = true;
    while (!calls.empty()) {
      Frame& frame = calls.back();
      uint32_t node = frame.node;
      if (frame.next < out[node].size()) {
        uint32_t to = edges[out[node][frame.next++]].to;
        if (index[to] == kUnvisited) {
          index[to] = low[to] = counter++;
          stack.push_back(to);
          onStack[to] = true;
          calls.push_back({to, 0});  // invalidates `frame`
        } else if (onStack[to]) {
          low[node] = std::min(low[node], index[to]);
        }
        continue;
      }
      if (low[node] == index[node]) {
        uint32_t member;
        do {
          member = stack.back();
          stack.pop_back();
          onStack[member] = false;
          component[member] = componentCount;
        } while (member != node);
        ++componentCount;
      }
      calls.pop_back();
      if (!calls.empty()) {
        uint32_t parent = calls.back().node;
        low[parent] = std::min(low[parent], low[node]);
      }
    }
  }
  return component;
}

}  // namespace

std::vector<std::vector<ImportEdge>> findImportCycles(uint32_t nodeCount,
                                                      const std::vector<ImportEdge>& edges) {
  std::vector<std::vector<uint32_t>> out(nodeCount);
  for (uint32_t e = 0; e < edges.size(); ++e)
    if (edges[e].from < nodeCount && edges[e].to < nodeCount) out[edges[e].from].push_back(e);

  std::vector<uint32_t> component = components(nodeCount, edges, out);

  std::vector<std::vector<ImportEdge>> cycles;
  std::vector<bool> componentDone(nodeCount, false);
  std::vector<uint32_t> parentEdge(nodeCount, kUnvisited);
  std::vector<bool> seen(nodeCount, false);
  for (uint32_t start = 0; start < nodeCount; ++start) {
    uint32_t c = component[start];
    if (componentDone[c]) continue;
    componentDone[c] = true;  // `start` is the component's lowest node

    // Breadth-first from `start` inside the component; the first edge found
    // that returns to `start` closes a shortest cycle.
    std::vector<uint32_t> visited{start}, queue{start};
    seen[start] = true;
    std::vector<ImportEdge> cycle;
    for (size_t head = 0; head < queue.size() && cycle.empty(); ++head) {
      uint32_t node = queue[head];
      for (uint32_t e : out[node]) {
        uint32_t to = edges[e].to;
        if (component[to] != c) continue;
        if (to == start) {
          cycle.push_back(edges[e]);
          for (uint32_t at = node; at != start; at = edges[parentEdge[at]].from)
            cycle.push_back(edges[parentEdge[at]]);
          std::reverse(cycle.begin(), cycle.end());
          break;
        }
        if (seen[to]) continue;
        seen[to] = true;
        parentEdge[to] = e;
        visited.push_back(to);
        queue.push_back(to);
      }
    }
    for (uint32_t node : visited) seen[node] = false;
    if (!cycle.empty()) cycles.push_back(std::move(cycle));
  }
  return cycles;
}

}  // namespace linnet::modules
