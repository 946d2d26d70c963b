// The contraction plan (a pass after frame_layout): for each contraction inside a parallel loop
// nest — a clause's loops, or the space loops of a recurrence step — decide how it is computed
// before the nest runs, and where its result goes. Codegen prints these decisions; %ir lists
// them (describe_contractions). The interpreter ignores them.
//
//   Blas   a product of two operands whose layouts are a (batched) GEMM or GEMV (gemm_shape):
//          one BLAS call per batch point, when the sizes are worth it at run time.
//   Tiled  any other two-operand contraction C[i.., j..] = ⊕_k f(X[i.., k..], Y[k.., j..]) with
//          ⊕ in {sum, max, min}: a register-tiled loop nest vectorised along the j group (Y is
//          packed when j is not its unit-stride axis), summing in the interpreter's order.
//   Factorised  a sum of a product of three or more operands (a matrix chain, a basis change,
//          A·B·x) wherever it sits in the store value: contracted two at a time along the
//          cheapest order (an exhaustive search over pairings, opt_einsum's "optimal"), each step
//          one GEMM/GEMV when its operands are matrices in disguise, else a loop nest; the
//          intermediates are scratch. (A clause that is nothing but the sum is printed by
//          codegen's einsum.cpp, the same path with the mode-product chain as a fast path in
//          front; any other place by contract_steps.cpp.) This is the only place that orders
//          the steps.
//   Partial  any other reduction that uses only some of the nest's variables (the norms in a
//          hand-expanded distance `sum[k](Q[j, k] * Q[j, k])`, a column sum `sum[k](X[k, j])`
//          under a row loop): computed once per point of the variables it uses, into scratch,
//          instead of once per point of the nest. Loop-invariant code motion only moves a
//          reduction out of loops inside all of its variables; this also covers an outer one.
//          A reduction whose reads walk memory along its innermost free variable (a column sum
//          `sum[i](X[i, j])`, also when it uses every variable of the nest) is computed
//          `columns`: the summed variables outside, a vector of points inside, each point still
//          combining its terms in the interpreter's sequential order.
//
// The result goes into the clause's own tensor when the contraction covers exactly the points
// the clause stores (in place; the store then reads it back at the point), else into scratch
// laid out over its free variables. When the store value is α·R with α invariant, nothing is
// left to do after the contraction ("whole").
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "lang/passes/contraction.h"

namespace ein {

struct CompileCtx;

enum class ContractionKernel : uint8_t { Blas, Tiled, Factorised, Partial };

// One pairwise step of a factorised contraction. Operands are numbered 0..n-1, the result of
// step s is n + s. `keep` is the result's layout (the last step's is the plan's dest).
// `gemm` is the step as one BLAS call (step_gemm over the operands' layouts; the last step's
// result must be laid out as the plan's dest), taken when the extents are the arrays' own at run
// time; the step's loops stay behind it. Empty: loops only.
struct PairStep {
  int a = 0, b = 0;
  std::vector<ir::DefId> keep, sum;
  std::optional<StepGemm> gemm;
};

struct ContractionPlan {
  Contraction c;
  ContractionKernel kernel = ContractionKernel::Tiled;
  uint32_t nest_root = 0;          // id of the outermost LFor of the nest
  std::vector<ir::DefId> nest;     // the nest's variables, outer to inner
  std::vector<ir::DefId> dest;     // the result's axes (c.free in storage order)
  bool in_place = false;           // the result is stored in the clause's tensor
  bool whole = false;              // the store value is α·R or R / d: no loop after it
  bool guarded = false;            // under a branch: operands' extents are checked at run time
  std::vector<ir::NodeRef> alpha;  // whole: invariant factors of the store value outside R
  ir::NodeRef divisor;             // whole: the d of R / d
  GemmShape gemm;                  // Blas
  int x = 0, y = 1;                // Tiled: the operand of the rows, the one of the columns
  bool columns = false;            // Partial: computed with the free variables innermost
  std::vector<PairStep> path;      // Factorised
  double path_cost = 0, naive_cost = 0;  // multiply-adds (extents not known statically: 16)
  // Factorised, whole and in place: a chain of mode products  C[o1..om] = Σ X[s1..sm] M1 .. Mm,
  // each M_k a matrix pairing the core's axis k with the result's axis k (either orientation).
  // einsum.cpp puts m GEMMs in front of the path, taken when the extents are the arrays' own.
  int chain_core = -1;     // the core X (an operand index), -1: no chain
  std::vector<int> chain;  // M_k per axis k of the core
};

void contraction_plan(CompileCtx& cx);

// "factorised into N pairwise steps (1) = A·B over [k], ...": a Factorised plan's path, as %ir
// and the kernel's plan print it.
std::string describe_path(const ContractionPlan& p);

// One line per planned contraction of the unit, for %ir's execution plan.
std::string describe_contractions(const Unit& u);

}  // namespace ein
