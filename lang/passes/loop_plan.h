// The loop plan (the last pass, on the lowered IR): how native code runs each loop, decided on
// the IR so that %ir shows it before any C++ is printed and codegen only prints it.
//
//  - unrolled: a loop of at most 16 iterations known before the run (a small reduction, a 3×3
//    window); the C compiler unrolls it, and a loop around nothing but such loops is innermost.
//  - innermost: the body holds no other loop (unrolled ones aside): strip-mined (the interrupt
//    flag is polled once per strip instead of per element) and, when its iterations are
//    independent (parallel, not sequential), an `omp simd` loop. A loop known to run at most 256
//    times is not strip-mined.
//  - work: static points one iteration executes (for a reduction: the whole reduction), the one
//    work estimate (static_points); unknown extents count as 16. A parallel loop opens a thread
//    team only when iterations × work reaches kParallelPoints (about a millisecond of work: a
//    fork/join, and on a busy machine a wait for a descheduled thread, costs that much).
//  - carry: a sequential loop around one store `X[t] = f(X[t - 1], ...)` (`X[t + 1]` reversed)
//    into a non-bool tensor, its other subscripts names bound outside the loop (a row of a 2-D
//    recurrence: `P[i, j] = P[i, j - 1] * X[i, j]`, the row `i` fixed), keeps the previous step's value in a register instead of a
//    store-to-load round trip (and a `% W` index the C compiler cannot see through) on the
//    critical path of every step. When the step depends on nothing else that changes (no loop
//    variable, no other read of X, only pure operations), it is a fixed function: once a step
//    returns its input bit for bit, the rest is a fill (decaying adjoints sink into subnormals,
//    where every multiply costs a microcode assist; the bits are those of computing each step).
//
// A planned contraction (contraction_plan) is computed before its nest in the kernel's fast
// version, where it is a read, not a loop: `innermost`/`work` have a second value for that
// version (`*_contracted`), taken when every contraction in `planned` was computed first.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "lang/ir/node.h"

namespace ein {

struct CompileCtx;
struct Unit;

// Points of work from which a parallel loop opens a thread team.
inline constexpr int64_t kParallelPoints = int64_t{1} << 20;

struct ScalarCarry {
  std::unordered_set<uint32_t> reads;  // the Index nodes `X[t - 1]` it replaces
  bool fixed_point = false;            // the step is a function of the carried value alone
  size_t axis = 0;                     // the store's subscript that is the loop's variable
  std::string tensor;                  // X (for %ir)
};

// Unit::loops, keyed by the node id of an LFor, a reduction's LoopVar or an LReduce.
struct LoopFact {
  std::optional<double> trip;  // iterations, when known before the run (LFor, LoopVar)
  bool unrolled = false;       // LFor, LoopVar: at most 16 iterations
  // LFor: its body; LReduce: its body (then its variables, innermost when all are unrolled).
  bool innermost = false, innermost_contracted = false;
  double work = 1, work_contracted = 1;  // LFor: per iteration; LReduce: the whole reduction
  std::vector<uint32_t> planned;         // planned contractions (LReduce ids) inside it
  bool team = false;  // LFor: parallel, under no other parallel loop (opens the thread team)
  std::optional<ScalarCarry> carry;      // LFor
};

void loop_plan(CompileCtx& cx);

// One work estimate: points a statement executes per run, the product of the trip counts along
// its deepest loop chain (tiering, parallel thresholds and blocking). A loop whose bounds move
// together with an outer variable counts its most points (int_fold.h trip_bound: a segment of
// a checkpointed sweep). A trip count not known before the run counts as `unknown_trip`, or makes the answer unknown when that is nullopt; a
// node `skip` accepts counts as one point (a reduction computed elsewhere).
std::optional<double> static_points(const CompileCtx& cx, const Unit& u, const ir::NodeRef& n,
                                    std::optional<double> unknown_trip,
                                    const std::function<bool(const ir::NodeRef&)>& skip = nullptr);
// Points of the loop lo..hi when both bounds are known (exact: i64::MIN..i64::MAX has 2^64 - 1).
std::optional<double> static_trip(const CompileCtx& cx, const Unit& u, const ir::NodeRef& lo, const ir::NodeRef& hi);

// The loop's plan for %ir's execution plan line ("" when there is nothing to say).
std::string describe_loop(const Unit& u, const ir::NodeRef& loop);

}  // namespace ein
