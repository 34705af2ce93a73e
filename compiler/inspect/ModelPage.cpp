// The model page of `linnet inspect PACKAGE` (see ModelPage.h).
#include "compiler/inspect/ModelPage.h"

#include <algorithm>
#include <ostream>

#include "compiler/inspect/Bindings.h"
#include "compiler/manifest/ProgramBlocks.h"
#include "compiler/parse/ASTPrinter.h"

namespace linnet::inspect {

using manifest::BlockRef;

namespace {

// "forward<B: Dim>(...) -> T" from "pub entry forward<B: Dim>(...) -> T".
std::string entrySignature(const ast::FunctionItem& entry) {
  std::string signature = ast::printSignature(entry);
  for (std::string_view prefix : {"pub ", "entry "})
    if (signature.starts_with(prefix)) signature.erase(0, prefix.size());
  return signature;
}

void printBlock(const BlockRef& ref, std::ostream& out) {
  out << ref.block->name.name << "\n\n";
  out << ref.qualifiedName() << ast::printGenericParams(ref.block->generics) << "\n";
  for (const ast::Item* item : ref.block->body) {
    if (auto* member = ast::as<ast::MemberItem>(item)) {
      out << "  " << ast::memberKindKeyword(member->member) << " " << member->name.name << ": "
          << ast::printType(member->type) << "\n";
    } else if (auto* function = ast::as<ast::FunctionItem>(item)) {
      out << "  " << ast::printSignature(*function) << "\n";
    }
  }
}

}  // namespace

bool printModelPage(const Program& program, const PageOptions& options, std::ostream& out,
                    DiagnosticEmitter& diagnostics) {
  std::vector<const Module*> roots = program.rootModules();
  std::vector<BlockRef> blocks = manifest::reachableBlocks(roots);

  // The root block: the one block of the root modules with entries.
  BlockRef root;
  for (const BlockRef& ref : blocks) {
    if (std::find(roots.begin(), roots.end(), ref.module) == roots.end()) continue;
    if (!manifest::hasEntries(*ref.block)) continue;
    if (root.block) {
      diagnostics.emit(DiagnosticKind::SeveralRootBlocks, ref.block->name.span,
                       root.qualifiedName(), ref.qualifiedName())
          .secondary(root.block->name.span, "the first block with entries");
      return false;
    }
    root = ref;
  }
  std::string packageName = roots.empty() ? std::string("the program") : roots.front()->name;
  if (const Package* package = program.rootPackage()) packageName = package->name;
  if (!root.block) {
    diagnostics.emit(DiagnosticKind::NoRootBlock, Span{}, packageName);
    return false;
  }
  if (!options.checkpoint.empty()) {
    diagnostics.emit(DiagnosticKind::CheckpointNotSupported, Span{}, options.checkpoint);
    return false;
  }

  std::optional<GenericBindings> bindings;
  if (!options.binds.empty()) {
    bindings = bindGenerics(*root.block, root.qualifiedName(), options.binds, diagnostics);
    if (!bindings) return false;
  }

  out << "Entries\n\nEntry\tSignature\n";
  for (const ast::Item* item : root.block->body) {
    auto* function = ast::as<ast::FunctionItem>(item);
    if (!function || function->function != ast::FunctionKind::Entry) continue;
    out << function->name.name << "\t" << entrySignature(*function) << "\n";
  }

  if (bindings) {
    out << "\nGenerics\n\nThe root block's generics as this checkpoint binds them.\n\n";
    for (const ast::GenericParam& generic : root.block->generics) {
      // Unbound generics show their declared default, or `?`.
      auto it = bindings->find(generic.name.name);
      std::string value = it != bindings->end() ? it->second.text()
                          : generic.defaultValue ? ast::printGenericArg(*generic.defaultValue)
                                                 : "?";
      out << generic.name.name << "\t" << value << "\n";
    }
  }

  out << "\nBlocks\n\nEvery block of the program with its members and functions, as linnet "
         "inspect prints them.\n";
  std::stable_sort(blocks.begin(), blocks.end(), [](const BlockRef& a, const BlockRef& b) {
    if (a.block->name.name != b.block->name.name) return a.block->name.name < b.block->name.name;
    return a.module->name < b.module->name;
  });
  for (const BlockRef& ref : blocks) {
    out << "\n";
    printBlock(ref, out);
  }
  return true;
}

}  // namespace linnet::inspect
