#pragma once
#include "lang/ir/node.h"

namespace ein {
struct CompileCtx;

// Consecutive Einstein clauses of one binding (they share a DefId since resolution) become one
// EinGroup statement (thesis §5.1), in the cell and in every nested block.
ir::NodeRef group_einstein(const ir::NodeRef& body, CompileCtx& cx);
}  // namespace ein
