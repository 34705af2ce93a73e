// GraphSvg: the SVG and HTML forms, and printGraph, the whole view. SVG is
// the dot form laid out with the `dot` engine and rendered by Graphviz's own
// library (gvContext, agmemread, gvLayout, gvRenderData): no layout is done
// by hand. Graphviz turns each node's, edge's and cluster's `tooltip` into an
// `xlink:title` on an `<a>` around it, so hovering shows the type and source
// location in any SVG viewer; the HTML page inlines that SVG and adds a small
// script that shows the same text in a floating box. Graphviz runs in a child
// process (layOutInChild), and graphs past kMaxLayoutCost are refused before.
#include <fcntl.h>
#include <gvc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <span>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/graph/Graph.h"
#include "runtime/support/WriteAll.h"

namespace linnet::graph {

namespace {

// A layout within kMaxLayoutCost takes seconds; one that takes this long is
// stuck in Graphviz.
constexpr unsigned kLayoutSeconds = 60;

// Lays out and renders `dot` in this process; on failure returns false with
// `error` set. Nothing is freed: the caller is a child process that exits.
// (Graphviz 2.42 frees a rank array twice in gvFreeLayout after some layouts
// with flat labelled edges: phi3's `generate` at --expand 1 aborted.)
bool layOut(const std::string& dot, std::string& svg, std::string& error) {
  GVC_t* gvc = gvContext();
  if (!gvc) {
    error = "Graphviz could not start";
    return false;
  }
  Agraph_t* g = agmemread(dot.c_str());
  if (!g) {
    error = "Graphviz could not read the graph";
    return false;
  }
  // Bounded network simplex: without nslimit/nslimit1 dot iterates until the
  // ranking and the x coordinates are optimal, which took minutes on a chain
  // of 100 additions that each also read the entry's input. 10 iterations a
  // node leave every phi3 graph exactly as without a limit.
  // Declared with the value as the default, so that every cluster has it too
  // (a cluster left at "" ranks with no iterations: dot then asserts).
  agattr(g, AGRAPH, const_cast<char*>("nslimit"), const_cast<char*>("10"));
  agattr(g, AGRAPH, const_cast<char*>("nslimit1"), const_cast<char*>("10"));
  char* data = nullptr;
  unsigned int length = 0;
  if (gvLayout(gvc, g, "dot") != 0 || gvRenderData(gvc, g, "svg", &data, &length) != 0 || !data) {
    error = "Graphviz could not lay out or render the graph (is the dot plugin installed?)";
    return false;
  }
  svg.assign(data, length);
  return true;
}

// Graphviz runs in a child process with a time and an address-space limit:
// its crashes (a segfault in dot_layout on a chain of 300 additions, a double
// free), its hangs and its appetite for memory end the child, and the view
// reports an error instead of going down with it. The child sends back one
// byte ('S' for SVG, 'E' for an error message) and the text.
bool layOutInChild(const std::string& dot, std::string& svg, std::string& error) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    error = std::string("cannot start the layout: ") + std::strerror(errno);
    return false;
  }
  std::fflush(nullptr);
  pid_t child = fork();
  if (child < 0) {
    error = std::string("cannot start the layout: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  if (child == 0) {
    close(fds[0]);
    signal(SIGPIPE, SIG_IGN);
    // The address space now, plus what a layout within kMaxLayoutCost needs
    // with room to spare (the largest measured took 300 MB).
    long pages = 0;
    if (std::FILE* statm = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(statm, "%ld", &pages) != 1) pages = 0;
      std::fclose(statm);
    }
    rlim_t limit = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) +
                   (rlim_t(4) << 30);
    struct rlimit memory {limit, limit};
    setrlimit(RLIMIT_AS, &memory);
    alarm(kLayoutSeconds);
    std::string out, message;
    bool ok = layOut(dot, out, message);
    std::string reply = (ok ? "S" : "E") + (ok ? out : message);
    _exit(rt::writeAll(fds[1], std::as_bytes(std::span(reply))) ? 0 : 1);
  }
  close(fds[1]);
  std::string reply;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reply.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    error = sig == SIGALRM ? "Graphviz did not finish laying out the graph in " +
                                 std::to_string(kLayoutSeconds) + " s"
                           : std::string("Graphviz failed laying out the graph (") + strsignal(sig) + ")";
    error += "; print it with --format text or --format dot";
    return false;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || reply.empty()) {
    error = "Graphviz failed laying out the graph (it ran out of memory or exited); print it with "
            "--format text or --format dot";
    return false;
  }
  if (reply[0] != 'S') {
    error = reply.substr(1);
    return false;
  }
  svg = reply.substr(1);
  return true;
}

}  // namespace

size_t layoutCost(const Graph& graph) {
  size_t count = graph.nodes.size();
  std::vector<std::vector<int>> next(count);
  std::vector<size_t> inputs(count, 0);
  auto known = [&](int id) { return id >= 0 && static_cast<size_t>(id) < count; };
  for (const Edge& e : graph.edges) {
    if (e.back || !known(e.from) || !known(e.to)) continue;
    next[e.from].push_back(e.to);
    ++inputs[e.to];
  }
  std::vector<size_t> rank(count, 0);
  std::vector<int> ready;
  for (size_t i = 0; i < count; ++i)
    if (inputs[i] == 0) ready.push_back(static_cast<int>(i));
  while (!ready.empty()) {
    int n = ready.back();
    ready.pop_back();
    for (int to : next[n]) {
      rank[to] = std::max(rank[to], rank[n] + 1);
      if (--inputs[to] == 0) ready.push_back(to);
    }
  }
  size_t cost = count + graph.groups.size();
  for (const Edge& e : graph.edges) {
    if (!known(e.from) || !known(e.to)) continue;
    size_t a = rank[e.from], b = rank[e.to];
    size_t span = a > b ? a - b : b - a;
    cost += span > 0 ? 2 * span - 1 : 1;
  }
  return cost;
}

bool toSvg(const Graph& graph, std::string& svg, std::string& error) {
  // Refused before Graphviz sees it: a chain of 300 `let a_i = a_{i-1} + x`
  // crashed gvLayout, one of 2000 ran it out of memory.
  if (size_t cost = layoutCost(graph); cost > kMaxLayoutCost) {
    error = "the graph of `" + graph.entry + "` is too large to lay out (" +
            std::to_string(graph.nodes.size()) + " nodes, " + std::to_string(graph.edges.size()) +
            " edges; layout cost " + std::to_string(cost) + ", at most " +
            std::to_string(kMaxLayoutCost) +
            "); print it with --format text or --format dot, or draw fewer levels with a smaller "
            "--expand";
    return false;
  }
  std::string dot = toDot(graph);
  return layOutInChild(dot, svg, error);
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
