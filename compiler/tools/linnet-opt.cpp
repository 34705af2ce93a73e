// linnet-opt: mlir-opt with the `linnet` dialect and linnet's passes
// (convert-linnet-to-linalg, linnet-approximate-math, linnet-entry-abi) on
// top of every upstream dialect and pass, for the lit tests in
// test/dialect, test/conversion and test/codegen.
#include "compiler/codegen/Passes.h"
#include "compiler/codegen/Pipeline.h"
#include "compiler/conversion/Passes.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char** argv) {
  mlir::registerAllPasses();
  linnet::conversion::registerLinnetConversionPasses();
  linnet::codegen::registerLinnetCodegenPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  linnet::codegen::registerDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "linnet optimizer driver\n", registry));
}
