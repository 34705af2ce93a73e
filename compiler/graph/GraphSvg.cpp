// GraphSvg: the SVG and HTML forms, and printGraph, the whole view. SVG is
// the dot form laid out with the `dot` engine and rendered by Graphviz's own
// library (gvContext, agmemread, gvLayout, gvRenderData): no layout is done
// by hand. Graphviz turns each node's, edge's and cluster's `tooltip` into an
// `xlink:title` on an `<a>` around it, so hovering shows the type and source
// location in any SVG viewer; the HTML page inlines that SVG and adds a small
// script that shows the same text in a floating box.
#include <gvc.h>

#include <memory>
#include <ostream>

#include "compiler/graph/Graph.h"

namespace linnet::graph {

bool toSvg(const Graph& graph, std::string& svg, std::string& error) {
  std::string dot = toDot(graph);
  GVC_t* gvc = gvContext();
  if (!gvc) {
    error = "Graphviz could not start";
    return false;
  }
  Agraph_t* g = agmemread(dot.c_str());
  if (!g) {
    gvFreeContext(gvc);
    error = "Graphviz could not read the graph";
    return false;
  }
  bool ok = gvLayout(gvc, g, "dot") == 0;
  if (ok) {
    char* data = nullptr;
    unsigned int length = 0;
    ok = gvRenderData(gvc, g, "svg", &data, &length) == 0 && data;
    if (ok) svg.assign(data, length);
    if (data) gvFreeRenderData(data);
    gvFreeLayout(gvc, g);
  }
  if (!ok) error = "Graphviz could not lay out or render the graph (is the dot plugin installed?)";
  agclose(g);
  gvFreeContext(gvc);
  return ok;
}

namespace {

std::string escapeHtml(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Shows the hovered element's Graphviz tooltip (type and file:line:col).
constexpr const char* kScript = R"(<script>
(function () {
  var tip = document.getElementById('linnet-tip');
  function titleOf(el) {
    var g = el.closest && el.closest('g.node, g.edge, g.cluster');
    if (!g) return null;
    var a = g.querySelector('a');
    var t = a && (a.getAttribute('xlink:title') || a.getAttribute('title'));
    return t || null;
  }
  document.addEventListener('mouseover', function (ev) {
    var t = titleOf(ev.target);
    if (!t) { tip.style.display = 'none'; return; }
    tip.textContent = t;
    tip.style.display = 'block';
  });
  document.addEventListener('mousemove', function (ev) {
    tip.style.left = (ev.pageX + 12) + 'px';
    tip.style.top = (ev.pageY + 12) + 'px';
  });
})();
</script>
)";

}  // namespace

bool toHtml(const Graph& graph, std::string& html, std::string& error) {
  std::string svg;
  if (!toSvg(graph, svg, error)) return false;
  // Inline SVG in HTML takes no XML prolog or doctype.
  size_t start = svg.find("<svg");
  if (start != std::string::npos) svg = svg.substr(start);
  html = "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>" +
         escapeHtml(graph.entry) +
         "</title>\n<style>\nbody { font-family: sans-serif; margin: 1em; }\n"
         "#linnet-tip { position: absolute; display: none; background: #ffffe0; "
         "border: 1px solid #888; padding: 2px 6px; font: 12px monospace; pointer-events: none; }\n"
         "</style>\n</head>\n<body>\n<h1>" +
         escapeHtml(graph.entry) + "</h1>\n<div id=\"linnet-tip\"></div>\n" + svg + kScript +
         "</body>\n</html>\n";
  return true;
}

int printGraph(const Program& program, const check::CheckedProgram& checked,
               const SourceManager& sources, const GraphOptions& options, std::ostream& out,
               std::ostream& err) {
  Graph graph;
  if (!buildGraph(program, checked, sources, options, graph, err)) return 1;
  std::string text, error;
  switch (options.format) {
    case Format::Text: printText(graph, out); return 0;
    case Format::Dot: out << toDot(graph); return 0;
    case Format::Svg:
      if (!toSvg(graph, text, error)) break;
      out << text;
      return 0;
    case Format::Html:
      if (!toHtml(graph, text, error)) break;
      out << text;
      return 0;
  }
  err << "linnet: error: " << error << "\n";
  return 1;
}

}  // namespace linnet::graph
