// Tests of the pipeline's stages and outputs without running code: what each
// Stage leaves in the module, that stages may be resumed, the LLVM IR and
// assembly outputs, and errors reported through diagnostics.
#include <gtest/gtest.h>

#include "compiler/codegen/Pipeline.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

namespace linnet::codegen {
namespace {

constexpr const char* kSource = R"mlir(
  func.func @f(%n: index, %x: tensor<?x4xf32>) -> tensor<?x4xf32> attributes {linnet.entry = "f"} {
    %e = linnet.unary <exp> %x : tensor<?x4xf32> -> tensor<?x4xf32>
    %y = linnet.binary <mul> %e, %x : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
    return %y : tensor<?x4xf32>
  })mlir";

struct CodegenStages : ::testing::Test {
  CodegenStages() {
    mlir::DialectRegistry registry;
    registerDialects(registry);
    context.appendDialectRegistry(registry);
    module = mlir::parseSourceString<mlir::ModuleOp>(kSource, &context);
  }
  // Names of the dialects of all ops in the module.
  std::set<std::string> dialects() {
    std::set<std::string> names;
    module->walk([&](mlir::Operation* op) { names.insert(op->getName().getDialectNamespace().str()); });
    return names;
  }
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

TEST_F(CodegenStages, StagesInOrder) {
  ASSERT_TRUE(module);
  TargetOptions host = TargetOptions::host();
  ASSERT_TRUE(mlir::succeeded(lowerTo(*module, Stage::Linnet, host)));
  EXPECT_TRUE(dialects().count("linnet"));

  ASSERT_TRUE(mlir::succeeded(lowerTo(*module, Stage::Linalg, host)));
  EXPECT_FALSE(dialects().count("linnet"));
  EXPECT_TRUE(dialects().count("linalg"));

  ASSERT_TRUE(mlir::succeeded(lowerTo(*module, Stage::Bufferized, host)));
  EXPECT_TRUE(dialects().count("memref"));
  module->walk([](mlir::func::FuncOp f) {
    for (mlir::Type t : f.getArgumentTypes()) EXPECT_FALSE(mlir::isa<mlir::TensorType>(t));
  });

  ASSERT_TRUE(mlir::succeeded(lowerTo(*module, Stage::LLVM, host)));
  // The dynamic batch may be large: the threaded copy of the loops is
  // OpenMP ops on LLVM types, translated with the rest.
  EXPECT_EQ(dialects(), (std::set<std::string>{"builtin", "llvm", "omp"}));
  // Resuming at the last stage is a no-op.
  ASSERT_TRUE(mlir::succeeded(lowerTo(*module, Stage::LLVM, host)));
}

TEST_F(CodegenStages, NoThreadsWithoutMinWork) {
  ASSERT_TRUE(module);
  TargetOptions host = TargetOptions::host();
  host.parallelMinWork = 0;
  ASSERT_TRUE(mlir::succeeded(lowerTo(*module, Stage::LLVM, host)));
  EXPECT_EQ(dialects(), (std::set<std::string>{"builtin", "llvm"}));
}

TEST_F(CodegenStages, LLVMIRAndAssembly) {
  ASSERT_TRUE(module);
  TargetOptions host = TargetOptions::host();
  llvm::Expected<std::string> ir = emitLLVMIR(*module, host);
  ASSERT_TRUE(static_cast<bool>(ir)) << llvm::toString(ir.takeError());
  EXPECT_NE(ir->find("define void @linnet_entry_f(ptr"), std::string::npos) << *ir;
  // exp is a polynomial, not a libm call.
  EXPECT_EQ(ir->find("@expf"), std::string::npos) << *ir;
  // The elementwise loop is vectorized by LLVM (every x86-64 has SSE2).
  EXPECT_NE(ir->find(" x float>"), std::string::npos) << *ir;
  // The input module is left as it was.
  EXPECT_TRUE(dialects().count("linnet"));

  llvm::Expected<std::string> assembly = emitAssembly(*module, host);
  ASSERT_TRUE(static_cast<bool>(assembly)) << llvm::toString(assembly.takeError());
  EXPECT_NE(assembly->find("linnet_entry_f:"), std::string::npos);
}

TEST(CodegenErrors, EntryOnPrivateFunctionIsDiagnosed) {
  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext context(registry);
  std::string message;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic& d) {
    message += d.str();
    return mlir::success();
  });
  auto module = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
    func.func private @g(%x: tensor<4xf32>) -> tensor<4xf32> attributes {linnet.entry = "g"} {
      return %x : tensor<4xf32>
    })mlir", &context);
  ASSERT_TRUE(module);
  llvm::Expected<std::string> library = emitSharedObject(*module, TargetOptions::host());
  ASSERT_FALSE(static_cast<bool>(library));
  std::string error = llvm::toString(library.takeError());
  EXPECT_NE(error.find("public function"), std::string::npos) << error;
  EXPECT_NE(message.find("public function"), std::string::npos) << message;
}

// The products' prefetch distances follow the CPU's name (Pipeline.cpp
// says why): none for a row of one token on any Zen; inside cache tiles
// 1536 bytes on Zen 4, none from Zen 5 on; 768 bytes elsewhere.
TEST(CodegenTarget, PrefetchDistancesByCpu) {
  auto target = [](const char* cpu) {
    TargetOptions t;
    t.cpu = cpu;
    return t;
  };
  EXPECT_EQ(target("sapphirerapids").rowPrefetchBytes(), 768);
  EXPECT_EQ(target("sapphirerapids").tileRowPrefetchBytes(), 768);
  EXPECT_EQ(target("znver4").rowPrefetchBytes(), 0);
  EXPECT_EQ(target("znver4").tileRowPrefetchBytes(), 1536);
  EXPECT_EQ(target("znver3").tileRowPrefetchBytes(), 1536);
  EXPECT_EQ(target("znver5").rowPrefetchBytes(), 0);
  EXPECT_EQ(target("znver5").tileRowPrefetchBytes(), 0);
  EXPECT_EQ(target("znver").tileRowPrefetchBytes(), 768);  // no generation: not a Zen name LLVM knows
  EXPECT_EQ(target("").tileRowPrefetchBytes(), 768);
}

}  // namespace
}  // namespace linnet::codegen
