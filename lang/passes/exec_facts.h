#pragma once

namespace ein {
struct CompileCtx;

// Execution facts (thesis §5.4): per lowered clause, how it may run — "vectorized" (no calls of
// user functions, no self-reads: every point independent, whole-array evaluation possible),
// "gemm" (a sum of a product of two accesses over one reduction index that matches a matrix
// product up to transposition), or "scalar". Written into the aux of the clause's outermost loop
// (or of the LTensor for loop-free clauses) so the interpreter, codegen and %ir agree.
void compute_exec_facts(CompileCtx& cx);
}  // namespace ein
