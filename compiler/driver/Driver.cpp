// Driver: runs the pipeline stages for each command and renders diagnostics.
// Text diagnostics go to stderr; `--json` diagnostics go to stdout as one
// document. Warnings are shown only when the program has no errors.
#include "compiler/driver/Driver.h"
#include "compiler/driver/DriverSupport.h"

#include <iostream>

#include "compiler/check/Checker.h"
#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/diagnostics/DiagnosticRenderer.h"
#include "compiler/graph/Graph.h"
#include "compiler/inspect/ModelPage.h"
#include "compiler/inspect/Parameters.h"
#include "compiler/inspect/RootBinding.h"
#include "compiler/inspect/Tokens.h"
#include "compiler/lex/Lexer.h"
#include "compiler/modules/Program.h"
#include "compiler/parse/ASTPrinter.h"
#include "compiler/parse/Parser.h"

namespace linnet::driver {

// Renders what the emitter holds and returns the exit code it implies.
int finishDiagnostics(const CommonOptions& common, const SourceManager& sources,
                      DiagnosticEmitter& diagnostics, bool json, bool strict) {
  if (diagnostics.hasErrors()) diagnostics.dropWarnings();
  std::vector<Diagnostic> sorted = diagnostics.sorted();
  if (json) {
    renderJson(sources, sorted, std::cout);
  } else if (!sorted.empty()) {
    renderText(sources, sorted, std::cerr, RenderOptions{common.color});
  }
  if (diagnostics.hasErrors()) return kExitErrors;
  if (strict && diagnostics.warningCount() > 0) return kExitErrors;
  return kExitOk;
}


int runCheck(const CommonOptions& common, const CheckOptions& options) {
  SourceManager sources;
  DiagnosticEmitter diagnostics;
  std::unique_ptr<Program> program =
      loadProgram(sources, diagnostics, options.paths, LoadOptions{common.stdDir});
  if (!diagnostics.hasErrors()) resolveProgram(*program, diagnostics);
  // W1002/W1003 are part of `check`; they are reported only for programs
  // without errors and fail the run only under --strict or `lint`.
  if (!diagnostics.hasErrors())
    checkProgram(*program, diagnostics, check::CheckOptions{.unusedLocals = true, .unusedMembers = true});
  return finishDiagnostics(common, sources, diagnostics, options.json, options.strict);
}

int runInspect(const CommonOptions& common, const InspectOptions& options) {
  SourceManager sources;
  DiagnosticEmitter diagnostics;
  switch (options.view) {
    case InspectView::Tokens:
    case InspectView::Ast: {
      std::string error;
      std::optional<FileId> file = sources.addFile(options.path, &error);
      if (!file) {
        std::cerr << "linnet: error: " << error << "\n";
        return kExitErrors;
      }
      TokenizedBuffer tokens = lex(sources, *file, diagnostics);
      if (options.view == InspectView::Tokens) {
        inspect::printTokens(sources, tokens, std::cout);
      } else {
        std::unique_ptr<ast::SourceModule> module = parse(sources, tokens, diagnostics);
        if (!diagnostics.hasErrors()) ast::dumpAST(*module, std::cout);
      }
      return finishDiagnostics(common, sources, diagnostics, false, false);
    }
    case InspectView::Parameters:
    case InspectView::Page: {
      std::unique_ptr<Program> program =
          loadProgram(sources, diagnostics, {options.path}, LoadOptions{common.stdDir});
      if (!diagnostics.hasErrors()) resolveProgram(*program, diagnostics);
      if (diagnostics.hasErrors()) return finishDiagnostics(common, sources, diagnostics, false, false);
      if (!options.graph.empty()) {
        check::CheckedProgram checked = checkProgram(*program, diagnostics);
        if (diagnostics.hasErrors()) return finishDiagnostics(common, sources, diagnostics, false, false);
        graph::GraphOptions view;
        view.entry = options.graph;
        view.expand = options.expand;
        view.binds = options.binds;
        // --checkpoint binds the root block's generics exactly as the model
        // page does (same function, same diagnostics); the --bind values of
        // root generics go into that binding, the rest (the entry's own
        // generics, `B`, `S`) the graph applies on top.
        std::optional<inspect::RootBinding> binding;
        if (!options.checkpoint.empty()) {
          std::optional<manifest::BlockRef> root = inspect::findRootBlock(*program, diagnostics, options.root);
          if (!root) return finishDiagnostics(common, sources, diagnostics, false, false);
          view.binds.clear();
          binding = inspect::bindRootGenerics(*program, &checked, *root, options.binds, options.checkpoint,
                                              diagnostics, &view.binds);
          if (!binding) return finishDiagnostics(common, sources, diagnostics, false, false);
          view.valuesBlock = root->block;
          view.valuesBlockName = root->qualifiedName();
          if (root->block && binding->generics)
            for (const ast::GenericParam& generic : root->block->generics) {
              auto it = binding->generics->find(generic.name.name);
              if (it != binding->generics->end())
                view.values[&generic] = graph::GenericValue{it->second.dim, it->second.dtype};
            }
        }
        view.format = options.format == "dot"   ? graph::Format::Dot
                      : options.format == "svg" ? graph::Format::Svg
                      : options.format == "html" ? graph::Format::Html
                                                 : graph::Format::Text;
        int code = graph::printGraph(*program, checked, sources, view, std::cout, std::cerr);
        int rendered = finishDiagnostics(common, sources, diagnostics, false, false);
        return code != kExitOk ? code : rendered;
      }
      if (options.view == InspectView::Parameters) {
        // Every path is listed: only a checked program's are known to be
        // finite and few enough (E2190 past 65536 block instances).
        checkProgram(*program, diagnostics);
        if (diagnostics.hasErrors()) return finishDiagnostics(common, sources, diagnostics, false, false);
        inspect::printParameters(*program, options.json, std::cout);
      } else {
        inspect::PageOptions page;
        page.binds = options.binds;
        page.checkpoint = options.checkpoint;
        page.memory = options.memory;
        page.root = options.root;
        // Bound values are evaluated from the checker's types: a page that
        // binds anything is of a checked program.
        std::optional<check::CheckedProgram> checked;
        if (!page.binds.empty() || !page.checkpoint.empty()) {
          checked = checkProgram(*program, diagnostics);
          if (diagnostics.hasErrors()) return finishDiagnostics(common, sources, diagnostics, false, false);
        }
        if (!inspect::printModelPage(*program, checked ? &*checked : nullptr, page, std::cout, diagnostics))
          return finishDiagnostics(common, sources, diagnostics, false, false);
      }
      return finishDiagnostics(common, sources, diagnostics, false, false);
    }
  }
  return kExitUsage;
}

}  // namespace linnet::driver
