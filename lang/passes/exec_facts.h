#pragma once
#include <string>

namespace ein {
struct CompileCtx;
struct Unit;

// Execution facts (thesis §5.4): per lowered clause, how it may run — "vectorized" (no calls of
// user functions, no self-reads: every point independent, whole-array evaluation possible),
// "gemm" (a sum of a product of two accesses over one reduction index that matches a matrix
// product up to transposition), or "scalar". Recorded in Unit::strategies for the clause's
// outermost loop, so the interpreter, codegen and %ir agree.
void exec_facts(CompileCtx& cx);

// The execution plan of a unit's lowered code, one line per tensor (storage: whole or a window)
// and loop (recurrence axis and lookback, strategy, parallel or sequential), for %ir.
std::string describe_exec_plan(const Unit& u);
}  // namespace ein
