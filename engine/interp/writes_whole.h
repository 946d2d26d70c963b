// Does a tensor's definition write every point of its storage before reading any? Then the
// block it is stored in need not be zeroed first (Tensor::alloc_overwritten). Used by
// exec_tensor; `eval` gives the value of a bound expression, or -1 when it cannot be known.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "lang/ir/node.h"

namespace ein {

bool writes_every_point(const ir::NodeRef& t, const std::vector<int64_t>& shape,
                        const std::function<int64_t(const ir::NodeRef&)>& eval);

}  // namespace ein
