// Shared helpers of the codegen tests that read a cell's kernel plan and C++ (`%ir kernel`):
// the plan in the `always` tier, and whether a kernel of a tensor says something.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "engine/codegen/codegen.h"
#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {

// Every clause of the cell planned as a kernel (the `always` tier), whatever its size.
inline codegen::CellPlan plan_always(Compiled& c) {
  EXPECT_TRUE(c.ok) << c.rendered();
  codegen::PlanOptions o;
  o.mode = codegen::PlanOptions::Mode::Always;
  return codegen::plan_cell(*c.cx, o);
}

// The (first) clause kernel of `tensor`, or null.
inline const codegen::Kernel* clause_kernel(const codegen::CellPlan& p, const std::string& tensor) {
  for (auto& k : p.kernels)
    if (k.kind == codegen::KernelKind::Clause && k.tensor && k.tensor->name == tensor) return &k;
  return nullptr;
}

// Whether some clause kernel of `tensor` has `text` in its plan lines (or, with `source`, its C++).
inline bool any_kernel(const codegen::CellPlan& p, const std::string& tensor, const std::string& text,
                       bool source = false) {
  for (auto& k : p.kernels)
    if (k.kind == codegen::KernelKind::Clause && k.tensor && k.tensor->name == tensor) {
      if (source && k.source.find(text) != std::string::npos) return true;
      if (!source)
        for (auto& l : k.plan)
          if (l.find(text) != std::string::npos) return true;
    }
  return false;
}

}  // namespace ein::testing
