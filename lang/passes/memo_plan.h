// The memo plan (a pass after guard_split, on the lowered IR): which calls and block statements
// inside loops the interpreter may compute once and reuse while the loop variables they read
// keep their values. In
//
//     let H[t in 1..T, i] = { let hp[e] = H[t - 1, e] * 3.0; let p = softmax(hp); p[i] + x0[i] };
//
// `hp` and `p` depend on t only, but an interpreted clause evaluates its block at every point
// (t, i): 32 softmaxes per step where one is needed. `let c[i] = x[i] - mean(x);` computed mean(x)
// at every point (20000 points: 157 s), `sum[j](softmax(x)[j] * c[j])` once per term.
//
// A node is marked (ir::kInvariantCall) when it is a call of a function without effects (through
// every function it reaches), or a `let` / local tensor inside a block, and
//   - it sits inside a loop (a clause's LFor or a reduction) and does not read the innermost
//     loop's variable, directly or through a local defined inside the loops (otherwise it would
//     change at every point and the memo would only cost);
//   - no lambda is inside it, and it reads nothing whose dependence on the loops is unknown
//     (comprehension and pattern variables bound inside the loops);
//   - it reads the tensor being computed around it (a recurrence's earlier steps) only where
//     that is already final: the statement's outermost loop `v` indexes every store at one axis,
//     and every read of the tensor in the node has `v ± c` (c ≠ 0) at that axis. While v keeps its
//     value, the nest writes only points with v there, none of which the node reads.
// The interpreter (engine/interp/memo.cpp) keys a marked node's value on the frame slots it reads
// (loop variables, locals) and keeps it for one statement of the tensor around it, one call frame
// or one top-level statement. Values never change: the memo only skips recomputation.
#pragma once

namespace ein {

struct CompileCtx;

void memo_plan(CompileCtx& cx);

}  // namespace ein
