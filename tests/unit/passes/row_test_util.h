// Shared by the row_inline and row_step unit tests: what the analysed cell holds after the
// rewrite, outside function items (a callee keeps its own body).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {

// Nodes of `kind` in the analysed cell, outside function items.
inline std::vector<ir::NodeRef> cell_nodes(Compiled& c, ir::Kind kind) {
  std::vector<ir::NodeRef> out;
  std::function<void(const ir::NodeRef&)> walk = [&](const ir::NodeRef& k) {
    if (!k || k->kind == ir::Kind::Fn) return;
    if (k->kind == kind) out.push_back(k);
    for (auto& x : k->kids) walk(x);
  };
  walk(c.cell().body);
  return out;
}

// Calls in the analysed cell (after the rewrite and its re-analysis) whose callee is `fn`.
inline int calls_of(Compiled& c, const std::string& fn) {
  int n = 0;
  for (auto& k : nodes_of(c.cell().body, ir::Kind::Call)) n += ir::call_callee(*k)->name == fn;
  return n;
}

}  // namespace ein::testing
