// Compiles MLIR source through linnet::codegen::emitSharedObject, writes the
// bytes to a temporary file and dlopens it.
#include "test/unit/codegen/CodegenTestUtil.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

#include "compiler/codegen/Pipeline.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

namespace linnet::codegen::testing {

CompiledModule::CompiledModule(const std::string& source) {
  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext context(registry);
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic& d) {
    llvm::raw_string_ostream(diagnostics) << d.getLocation() << ": " << d << "\n";
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  if (!module) {
    error_ = "parse failed:\n" + diagnostics;
    return;
  }
  llvm::Expected<std::string> library = emitSharedObject(*module, TargetOptions::host());
  if (!library) {
    error_ = llvm::toString(library.takeError());
    return;
  }
  char path[] = "/tmp/linnet-codegen-test-XXXXXX.so";
  int fd = mkstemps(path, 3);
  if (fd < 0) {
    error_ = "mkstemps failed";
    return;
  }
  close(fd);
  path_ = path;
  std::ofstream(path_, std::ios::binary).write(library->data(), library->size());
  handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) error_ = dlerror();
}

CompiledModule::~CompiledModule() {
  if (handle_) dlclose(handle_);
  if (!path_.empty()) unlink(path_.c_str());
}

void* CompiledModule::symbol(const std::string& name) const {
  return handle_ ? dlsym(handle_, name.c_str()) : nullptr;
}

EntryFn CompiledModule::entry(const std::string& name) const {
  return reinterpret_cast<EntryFn>(symbol("linnet_entry_" + name));
}

uint16_t toBF16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isnan(f)) return 0x7fc0;
  bits += 0x7fff + ((bits >> 16) & 1);  // round to nearest even
  return static_cast<uint16_t>(bits >> 16);
}

float fromBF16(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace linnet::codegen::testing
