// Graph: the typed dataflow graph of one function (`linnet inspect PACKAGE
// --graph ENTRY`). Nodes are the entry's parameters, the operations of its
// body (operators, op/fn/prelude calls, index expressions, notation), closed
// block-method calls and one `result` node; groups are expanded block calls
// and loops (`static for`, `while`, `for`, drawn once, never unrolled). Every
// edge carries the checker's type of the value that flows on it, instantiated
// into the entry's own generics (`T[B, S, H]`), never numbers. The graph is
// built from the AST and the checker's typed IR only (GraphBuilder.cpp) and
// printed as text, Graphviz dot, SVG (laid out by Graphviz's library) or one
// self-contained HTML page (GraphRender.cpp, GraphSvg.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/check/TypedIR.h"
#include "compiler/modules/Program.h"
#include "compiler/source/SourceManager.h"

namespace linnet::graph {

enum class Format { Text, Dot, Svg, Html };

// A graph stops being built past this many nodes, edges and groups, and the
// view is an error: expansion multiplies (a block whose method calls its
// sub-block twice, nested 40 deep, is 2^40 nodes at --expand 40).
inline constexpr size_t kMaxGraphElements = 1000000;
// SVG and HTML are refused past this layout cost (layoutCost): Graphviz's dot
// layout needs time and memory far beyond linear in it, and crashes on some
// graphs of a few hundred nodes.
inline constexpr size_t kMaxLayoutCost = 20000;

// A generic's value: a dimension or a dtype.
struct GenericValue {
  std::optional<int64_t> dim;
  std::optional<ast::ScalarType> dtype;
};

struct GraphOptions {
  std::string entry;          // the function to draw
  int expand = 1;             // block-call levels opened below the entry
  Format format = Format::Text;
  // Values of one block's generics fixed before `binds` (the root block's, as
  // --checkpoint binds them; the driver gets them from compiler/inspect's
  // RootBinding). Only a function of `valuesBlock` can be drawn with them.
  const ast::BlockItem* valuesBlock = nullptr;
  std::string valuesBlockName;  // `phi3::Model`, for the error
  std::map<const ast::GenericParam*, GenericValue> values;
  // NAME=VALUE for the entry's generics (its block's and its own), over
  // `values`: edges with a bound generic also show the values, dims that do
  // not evaluate as written (`T[B, S, H] = bf16[1, 7, 3072]`,
  // `T[B, S, H] = bf16[B, S, 128]`).
  std::vector<std::string> binds;
};

enum class GroupKind { Entry, BlockCall, Loop };

struct Group {
  int id = 0;
  int parent = -1;       // -1 for the entry's own group (id 0)
  int seq = 0;           // creation order, shared with nodes, for stable listing
  GroupKind kind = GroupKind::Entry;
  std::string label;     // `embedding.forward`, `for layer in layers`
  std::string detail;    // the callee's block instance (`Embedding<Vocab, H, T>`)
  std::string location;  // file:line:col
};

enum class NodeKind { Input, Output, Operator, Call, Block, Value, State };

struct Node {
  int id = 0;
  int group = 0;
  int seq = 0;
  NodeKind kind = NodeKind::Call;
  std::string label;     // `tokens`, `+`, `embedding`, `attention.forward`
  std::string detail;    // input/output type, callee module, block instance
  std::string location;
};

struct Edge {
  int from = 0;
  int to = 0;
  std::string type;      // compact, in the entry's generics: `T[B, S, H]`; `?` unknown
                         // (with --bind/--checkpoint: `T[B, S, H] = bf16[1, 7, 3072]`)
  check::Type value;     // the type itself, for bound values
  std::string location;  // where the consuming expression is
  bool back = false;     // a runtime loop's value fed to its next iteration
};

struct Graph {
  std::string entry;     // `phi3.Model.forward`
  int expand = 1;
  std::vector<Group> groups;  // groups[0] is the entry
  std::vector<Node> nodes;
  std::vector<Edge> edges;
};

// Finds `options.entry` among the root modules' functions (the root block's
// entries first) and builds its graph. Returns false and writes an error to
// `err` when there is no such function (naming the available entries), when
// `options.values` are given for a block the entry is no function of, or when
// a --bind names no generic of the entry or has a value of the wrong kind.
bool buildGraph(const Program& program, const check::CheckedProgram& checked,
                const SourceManager& sources, const GraphOptions& options, Graph& graph,
                std::ostream& err);

void printText(const Graph& graph, std::ostream& out);
std::string toDot(const Graph& graph);
// Lays out and renders the dot form through Graphviz (gvLayout/gvRenderData).
// Returns false with `error` set when Graphviz fails.
bool toSvg(const Graph& graph, std::string& svg, std::string& error);
// What dot's layout will handle: nodes and groups, plus for each edge the
// ranks it spans twice over (dot gives a long edge a virtual node per rank,
// and labelled edges two), ranks being longest paths over forward edges.
size_t layoutCost(const Graph& graph);
bool toHtml(const Graph& graph, std::string& html, std::string& error);

// The whole view: build and print in `options.format`. Returns the exit code
// (0, or 1 when buildGraph fails or Graphviz does).
int printGraph(const Program& program, const check::CheckedProgram& checked,
               const SourceManager& sources, const GraphOptions& options, std::ostream& out,
               std::ostream& err);

}  // namespace linnet::graph
