// The combiners of Einstein reductions (SPEC §5.3), named once. Reduce and LReduce nodes keep
// the source spelling in `name`; passes and executors switch on this enum instead of comparing
// strings or inventing integer codes.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "lang/ir/node.h"

namespace ein::ir {

enum class ReduceOp : uint8_t { Sum, Prod, Max, Min, All, Any, ArgMax, ArgMin };

inline std::optional<ReduceOp> reduce_op_from_name(std::string_view s) {
  if (s == "sum") return ReduceOp::Sum;
  if (s == "prod") return ReduceOp::Prod;
  if (s == "max") return ReduceOp::Max;
  if (s == "min") return ReduceOp::Min;
  if (s == "all") return ReduceOp::All;
  if (s == "any") return ReduceOp::Any;
  if (s == "argmax") return ReduceOp::ArgMax;
  if (s == "argmin") return ReduceOp::ArgMin;
  return std::nullopt;
}

inline const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Prod: return "prod";
    case ReduceOp::Max: return "max";
    case ReduceOp::Min: return "min";
    case ReduceOp::All: return "all";
    case ReduceOp::Any: return "any";
    case ReduceOp::ArgMax: return "argmax";
    case ReduceOp::ArgMin: return "argmin";
  }
  return "?";
}

// The combiner of a Reduce or LReduce node (the parser only accepts the eight spellings).
inline ReduceOp reduce_op(const Node& n) {
  if (auto op = reduce_op_from_name(n.name)) return *op;
  throw std::logic_error("internal compiler error: reduction `" + n.name + "`");
}

inline bool is_arg_reduce(ReduceOp op) { return op == ReduceOp::ArgMax || op == ReduceOp::ArgMin; }
inline bool is_logical_reduce(ReduceOp op) { return op == ReduceOp::All || op == ReduceOp::Any; }

}  // namespace ein::ir
