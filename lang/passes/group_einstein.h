#pragma once
#include "lang/ir/node.h"

namespace ein {
struct CompileCtx;

// Consecutive Einstein clauses of one binding (they share a DefId since resolution) become one
// EinGroup statement (thesis §5.1), in the cell and in every nested block. A top-level group
// named in CompileCtx::joined gets the clauses of the previous cell's definition in front, its
// reads of that definition renamed to the group (SPEC §11).
ir::NodeRef group_einstein(const ir::NodeRef& body, CompileCtx& cx);

// Fills CompileCtx::join_candidates from the resolved cell: its top-level indexed definitions
// that read their own name, come before any other binding of that name in the cell, and whose
// name the previous cell bound to an indexed definition that holds a value.
void find_join_candidates(const ir::NodeRef& program, CompileCtx& cx);
}  // namespace ein
