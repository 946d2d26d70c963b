#pragma once
#include "lang/ir/node.h"

namespace ein {
struct CompileCtx;

// Classifies where-clauses (thesis §5.3, SPEC §5.4): a binding whose value is an integer
// expression of index variables only ("where ih = oh + kh") becomes WDerived — a derived index
// that range analysis folds into accesses; other bindings stay WBind (a local value); guards
// stay WGuard. A range written in a where ("where k in 0..3") is E012.
ir::NodeRef classify_where(const ir::NodeRef& body, CompileCtx& cx);
}  // namespace ein
