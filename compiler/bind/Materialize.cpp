// Materialize: BoundModel -> rt::Weights and rt::StateBuffers.
#include "compiler/bind/Materialize.h"

namespace linnet::bind {

namespace {
// The compiler's scalar types and the runtime's dtypes share their names.
rt::Expected<rt::DType> runtimeDType(ast::ScalarType type) {
  std::optional<rt::DType> dtype = rt::dtypeFromName(ast::scalarTypeName(type));
  if (!dtype) return rt::makeError("the runtime has no dtype `{}`", ast::scalarTypeName(type));
  return *dtype;
}
}  // namespace

rt::Expected<rt::Weights> loadWeights(const BoundModel& model, size_t maxConvertedBytes) {
  std::vector<rt::WeightRequest> requests;
  for (const BoundTensor& tensor : model.tensors) {
    if (!tensor.tensor) continue;  // an absent optional parameter
    rt::Expected<rt::DType> dtype = runtimeDType(tensor.dtype);
    if (!dtype.ok()) return dtype.error();
    requests.push_back({tensor.path, tensor.tensor, *dtype});
  }
  return rt::Weights::load(requests, maxConvertedBytes);
}

rt::Expected<rt::StateBuffers> allocateState(const BoundModel& model, size_t maxBytes) {
  std::vector<rt::StateSpec> specs;
  for (const BoundState& state : model.state) {
    rt::Expected<rt::DType> dtype = runtimeDType(state.dtype);
    if (!dtype.ok()) return dtype.error();
    specs.push_back({state.path, *dtype, state.shape});
  }
  return rt::StateBuffers::allocate(std::move(specs), maxBytes);
}

}  // namespace linnet::bind
