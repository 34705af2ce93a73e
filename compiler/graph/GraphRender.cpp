// GraphRender: the text and Graphviz dot forms of a Graph. The text form is
// a stable, indented listing meant for tests and terminals: groups nest as in
// the drawing, each node shows what feeds it and with which type, and an
// `edges` section lists every edge once. The dot form is plain Graphviz
// source written here: one cluster per group (dashed for block calls), edges
// labelled with their compact types, tooltips holding type and location so
// the SVG and HTML views can show them on hover.
#include <algorithm>
#include <ostream>
#include <sstream>

#include "compiler/graph/Graph.h"

namespace linnet::graph {

namespace {

const char* kindName(NodeKind kind) {
  switch (kind) {
    case NodeKind::Input: return "input";
    case NodeKind::Output: return "output";
    case NodeKind::Operator: return "operator";
    case NodeKind::Call: return "op";
    case NodeKind::Block: return "block";
    case NodeKind::Value: return "value";
    case NodeKind::State: return "state";
  }
  return "node";
}

const char* groupKindName(GroupKind kind) {
  switch (kind) {
    case GroupKind::Entry: return "entry";
    case GroupKind::BlockCall: return "call";
    case GroupKind::Loop: return "loop";
  }
  return "group";
}

// Children of each group (subgroups and nodes) in creation order.
struct Item {
  int seq;
  bool isGroup;
  int id;
};

std::vector<std::vector<Item>> childrenOf(const Graph& g) {
  std::vector<std::vector<Item>> children(g.groups.size());
  for (const Group& grp : g.groups)
    if (grp.parent >= 0) children[grp.parent].push_back(Item{grp.seq, true, grp.id});
  for (const Node& n : g.nodes) children[n.group].push_back(Item{n.seq, false, n.id});
  for (auto& list : children)
    std::sort(list.begin(), list.end(), [](const Item& a, const Item& b) { return a.seq < b.seq; });
  return children;
}

std::string nodeName(const Graph& g, int id) {
  return "n" + std::to_string(id) + " " + g.nodes[id].label;
}

void printGroup(const Graph& g, const std::vector<std::vector<Item>>& children,
                const std::vector<std::vector<int>>& incoming, int group, int indent,
                std::ostream& out) {
  std::string pad(indent * 2, ' ');
  for (const Item& item : children[group]) {
    if (item.isGroup) {
      const Group& sub = g.groups[item.id];
      out << pad << "group " << groupKindName(sub.kind) << " \"" << sub.label << "\"";
      if (!sub.detail.empty()) out << " " << sub.detail;
      out << "\n";
      printGroup(g, children, incoming, sub.id, indent + 1, out);
      out << pad << "end\n";
      continue;
    }
    const Node& n = g.nodes[item.id];
    out << pad << kindName(n.kind) << " n" << n.id << " " << n.label;
    if (!n.detail.empty()) out << " : " << n.detail;
    out << "\n";
    for (int index : incoming[n.id]) {
      const Edge& e = g.edges[index];
      out << pad << "  <- " << nodeName(g, e.from) << " : " << e.type
          << (e.back ? " (next iteration)" : "") << "\n";
    }
  }
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

void dotGroup(const Graph& g, const std::vector<std::vector<Item>>& children, int group,
              int indent, std::ostream& out) {
  std::string pad(indent * 2, ' ');
  for (const Item& item : children[group]) {
    if (item.isGroup) {
      const Group& sub = g.groups[item.id];
      out << pad << "subgraph cluster_g" << sub.id << " {\n";
      std::string label = sub.label;
      if (!sub.detail.empty()) label += "\n" + sub.detail;
      out << pad << "  label=" << quote(label) << ";\n";
      out << pad << "  style=" << (sub.kind == GroupKind::BlockCall ? "dashed" : "rounded")
          << ";\n";
      out << pad << "  tooltip=" << quote(sub.label + (sub.detail.empty() ? "" : " " + sub.detail) +
                                          " at " + sub.location)
          << ";\n";
      dotGroup(g, children, sub.id, indent + 1, out);
      out << pad << "}\n";
      continue;
    }
    const Node& n = g.nodes[item.id];
    std::string label = n.label;
    std::string shape = "box";
    std::string style;
    switch (n.kind) {
      case NodeKind::Input:
      case NodeKind::Output:
        shape = "ellipse";
        style = "bold";
        label += "\n" + n.detail;
        break;
      case NodeKind::Operator: shape = "circle"; break;
      case NodeKind::Block:
        style = "rounded,bold";
        if (!n.detail.empty()) label += "\n" + n.detail;
        break;
      case NodeKind::Value: style = "rounded"; break;
      case NodeKind::State: shape = "cylinder"; break;
      case NodeKind::Call:
        // The op's module (`std.nn.embedding`) or `prelude`.
        if (!n.detail.empty()) label += "\n" + n.detail;
        break;
    }
    out << pad << "n" << n.id << " [label=" << quote(label) << ", shape=" << shape;
    if (!style.empty()) out << ", style=" << quote(style);
    std::string tip = n.label + (n.detail.empty() ? "" : " : " + n.detail) + " at " + n.location;
    out << ", tooltip=" << quote(tip) << ", id=" << quote("node" + std::to_string(n.id))
        << "];\n";
  }
}

}  // namespace

void printText(const Graph& g, std::ostream& out) {
  out << "graph " << g.entry << " expand " << g.expand << "\n";
  auto children = childrenOf(g);
  // Each node's incoming edges in edge order, found once: scanning every edge
  // for every node made a graph of 10^5 nodes take minutes.
  std::vector<std::vector<int>> incoming(g.nodes.size());
  for (size_t i = 0; i < g.edges.size(); ++i)
    if (g.edges[i].to >= 0 && static_cast<size_t>(g.edges[i].to) < g.nodes.size())
      incoming[g.edges[i].to].push_back(static_cast<int>(i));
  printGroup(g, children, incoming, 0, 1, out);
  out << "edges\n";
  for (const Edge& e : g.edges)
    out << "  " << nodeName(g, e.from) << (e.back ? " => " : " -> ") << nodeName(g, e.to) << " : "
        << e.type << "\n";
}

std::string toDot(const Graph& g) {
  std::ostringstream out;
  out << "digraph " << quote(g.entry) << " {\n";
  out << "  rankdir=TB;\n";
  out << "  graph [fontname=\"Helvetica\", fontsize=11, tooltip=" << quote(g.entry) << "];\n";
  out << "  node [fontname=\"Helvetica\", fontsize=10];\n";
  out << "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  auto children = childrenOf(g);
  dotGroup(g, children, 0, 1, out);
  for (size_t i = 0; i < g.edges.size(); ++i) {
    const Edge& e = g.edges[i];
    out << "  n" << e.from << " -> n" << e.to << " [label=" << quote(e.type)
        << ", tooltip=" << quote(e.type + " at " + e.location)
        << ", id=" << quote("edge" + std::to_string(i))
        << (e.back ? ", style=dashed, constraint=false" : "") << "];\n";
  }
  out << "}\n";
  return out.str();
}

}  // namespace linnet::graph
