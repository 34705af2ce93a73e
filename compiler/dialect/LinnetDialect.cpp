// Registers the `linnet` dialect's ops and attributes; the generated
// printers and parsers of the kind attributes come from LinnetAttrs.cpp.inc.
#include "compiler/dialect/LinnetDialect.h"

#include "compiler/dialect/LinnetOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include "compiler/dialect/LinnetDialect.cpp.inc"
#include "compiler/dialect/LinnetEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "compiler/dialect/LinnetAttrs.cpp.inc"

namespace linnet::dialect {

void LinnetDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "compiler/dialect/LinnetOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "compiler/dialect/LinnetAttrs.cpp.inc"
      >();
}

}  // namespace linnet::dialect
