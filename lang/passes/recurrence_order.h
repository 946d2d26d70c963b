#pragma once

namespace ein {
struct CompileCtx;

// Recurrence dependency extraction and ordering (SPEC §5.5, thesis §5.6-5.7), on lowered
// LTensors. A clause that reads its own tensor is recurrent; each self-read gives a dependence
// vector over the clause's loops. Reads that are not backward in the evaluation order (x[t + 1],
// or the point being written) are E012. Loops that carry a dependence are kSequential, the rest
// kParallel; if slot order is illegal, a carrier loop is moved outermost.
// With a recurrence carried by an outer axis, every clause that loops over that axis is fused
// into one time loop (clauses with a literal there, the initial conditions, run first), and the
// clauses of one step are ordered by their same-step dependencies (cycle: E012). The time loop's
// axis and lookback go to Unit::recurrences (for storage windows and %ir).
void recurrence_order(CompileCtx& cx);
}  // namespace ein
