// The model page of `linnet inspect PACKAGE` (see ModelPage.h).
#include "compiler/inspect/ModelPage.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "compiler/bind/CheckpointBinder.h"
#include "compiler/bind/GenericValues.h"
#include "compiler/inspect/RootBinding.h"
#include "compiler/manifest/ParameterManifest.h"
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

// "7642159104 (7288.1 MiB)"
std::string bytesText(uint64_t bytes) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%llu (%.1f MiB)", static_cast<unsigned long long>(bytes),
                static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buffer;
}

// The first path segment names the root's member a tensor belongs to.
std::string memberOf(const std::string& path) {
  size_t dot = path.find('.');
  return dot == std::string::npos ? path : path.substr(0, dot);
}

// Weights and state per top-level member of the root block, in manifest order.
void printMemory(const bind::BoundModel& bound, std::ostream& out) {
  struct Row { std::string member; uint64_t weights = 0; uint64_t state = 0; };
  std::vector<Row> rows;
  auto row = [&](const std::string& member) -> Row& {
    for (Row& r : rows)
      if (r.member == member) return r;
    rows.push_back({member});
    return rows.back();
  };
  for (const bind::BoundTensor& tensor : bound.tensors) {
    Row& r = row(memberOf(tensor.path));
    if (!tensor.tensor) continue;
    r.weights += static_cast<uint64_t>(tensor.tensor->elementCount) * bind::scalarSize(tensor.dtype);
  }
  for (const bind::BoundState& state : bound.state) row(memberOf(state.path)).state += state.bytes;
  out << "\nMemory\n\nWeights as the runtime holds them and state at the bound generics, in bytes.\n\n";
  out << "Member\tWeights\tState\n";
  for (const Row& r : rows) out << r.member << "\t" << bytesText(r.weights) << "\t" << bytesText(r.state) << "\n";
  out << "total\t" << bytesText(bound.weightBytes) << "\t" << bytesText(bound.stateBytes) << "\n";
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

bool printModelPage(const Program& program, const check::CheckedProgram* checked,
                    const PageOptions& options, std::ostream& out, DiagnosticEmitter& diagnostics) {
  std::optional<BlockRef> root = findRootBlock(program, diagnostics, options.root);
  if (!root) return false;
  // The checkpoint and the --bind values, bound exactly as the graph view
  // binds them (RootBinding.h).
  std::optional<RootBinding> binding =
      bindRootGenerics(program, checked, *root, options.binds, options.checkpoint, diagnostics);
  if (!binding) return false;
  const std::optional<bind::GenericBindings>& bindings = binding->generics;
  if (options.memory && !binding->model) {
    diagnostics.emit(DiagnosticKind::MemoryNeedsCheckpoint, Span{});
    return false;
  }

  out << "Entries\n\nEntry\tSignature\n";
  for (const manifest::EntryRef& entry : manifest::programEntries(program.rootModules(), *root))
    out << entry.entry->name.name << "\t" << entrySignature(*entry.entry) << "\n";

  if (bindings && root->block) {
    out << "\nGenerics\n\nThe root block's generics as this checkpoint binds them.\n\n";
    for (const ast::GenericParam& generic : root->block->generics) {
      // Unbound generics show their declared default, or `?`.
      auto it = bindings->find(generic.name.name);
      std::string value = it != bindings->end() ? it->second.text()
                          : generic.defaultValue ? ast::printGenericArg(*generic.defaultValue)
                                                 : "?";
      out << generic.name.name << "\t" << value << "\n";
    }
  }
  if (options.memory) printMemory(*binding->model, out);

  std::vector<BlockRef> blocks = manifest::reachableBlocks(program.rootModules());
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
