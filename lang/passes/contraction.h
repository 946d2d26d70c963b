// Contractions: a reduction over indices of an expression of tensor reads whose subscripts are
// plain indices. One matcher (match_contraction) and one layout analysis (gemm_shape) serve
// every consumer — the contraction plan (BLAS, register-tiled kernels, contraction paths),
// exec_facts' strategy and %ir — so they cannot disagree about what a matrix product is.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lang/ir/node.h"
#include "lang/ir/reduce_op.h"

namespace ein {

struct Unit;

// A tensor read of a contraction. Each subscript is an index variable of the contraction (a
// variable of the enclosing loop nest or of the reduction), or fixed: an expression that does not
// change inside the nest (`h[t - 1, k]` inside a time step: axis 0 is fixed).
struct ContractionOperand {
  ir::NodeRef read;             // the Index node; its base is a Name
  std::vector<ir::DefId> axes;  // per axis: the variable, or invalid when fixed
  // Gathered (match_contraction with `gather`): a subscript combines variables — a convolution's
  // `mel[c, t + a]`, a strided `h[c, 2 * t + a]`. `axes` is then the layout of a packed copy with
  // one axis per variable (any order the contraction plan picks), which codegen fills by
  // evaluating the read at every point before the BLAS call.
  bool gathered = false;
  // A computed operand (match_contraction with `gather`): the product of the body's factors
  // whose reads use only these variables (`d_Z[n, j] * (1 - Z[n, j] * Z[n, j])`, a dense
  // layer's gradient), packed like a gathered read; `read` is its first read.
  ir::NodeRef value;
  bool uses(ir::DefId d) const;
  int axis_of(ir::DefId d) const;  // -1 when absent
};

struct Contraction {
  ir::NodeRef reduce;  // the LReduce
  ir::ReduceOp op = ir::ReduceOp::Sum;
  std::vector<ContractionOperand> operands;  // distinct reads (a read repeated in the body is one)
  // Product form (`sum` of a product of the operands and of nest-invariant scalar factors).
  bool product = false;
  std::vector<ir::NodeRef> scalars;
  std::vector<ir::DefId> free;    // nest variables the operands use, outer to inner
  std::vector<ir::DefId> summed;  // the reduction's variables, in order
  // Per summed variable, its constant lower bound (0 unless `gather`: a recurrence's parameter
  // gradient sums over t from 1). A variable starting above 0 is read only through packed
  // copies, which evaluate it at lo + their own index.
  std::vector<int64_t> summed_lo;
  // The same contraction as two computed operands (match_contraction with `gather`, when the
  // product's factors read two sets of variables): tried first, as BLAS only; this one otherwise.
  std::shared_ptr<Contraction> grouped;
  bool offset() const {
    for (int64_t l : summed_lo)
      if (l != 0) return true;
    return false;
  }
  int64_t lo_of(ir::DefId d) const {
    for (size_t i = 0; i < summed.size() && i < summed_lo.size(); ++i)
      if (summed[i] == d) return summed_lo[i];
    return 0;
  }
};

// Matches reduction `r` (an LReduce) evaluated inside a loop nest over `nest` (outer to inner):
// a sum, max or min over variables with constant lower bound 0 and nest-invariant extents, whose
// body reads tensors only through plain or fixed subscripts, each variable at most once per read,
// every summed variable in some read, and otherwise computes from literals and nest-invariant
// names, math intrinsics and calls of functions of `u` whose lowered body is a scalar expression
// (std::math's wrappers; no other reads, no nested reductions).
// `len(X)` of a named array: an extent, invariant like a DimOf (generic functions keep it as a
// call because X's extents are only known per call).
bool is_len_call(const ir::NodeRef& x);

std::optional<Contraction> match_contraction(const ir::NodeRef& r, const std::vector<ir::DefId>& nest,
                                             const Unit* u = nullptr, bool gather = false);

// A product contraction of two operands as one GEMM per batch point:
//   C[batch.., m.., n..] = α · A(m.., k..) · B(k.., n..)
// Each group of variables is consecutive, in one order, in every tensor that has it; in A and
// B (and C) the inner group ends at the last axis, which has unit stride, so every batch point
// is a row-major matrix with a leading dimension. `ta`/`tb`: A is stored [k.., m..], B [n.., k..].
// An empty m or n group is a GEMV (the vector's k group must be its last axes).
struct GemmShape {
  int a = 0, b = 1;  // operand indices
  std::vector<ir::DefId> batch, m, n, k;
  bool ta = false, tb = false;
};

// The GEMM view of a two-operand product contraction writing a destination whose axes are the
// variables `dest` (a permutation of c.free), or nullopt when the layouts do not allow one.
std::optional<GemmShape> gemm_shape(const Contraction& c, const std::vector<ir::DefId>& dest);

// One pairwise step of a factorised contraction (ContractionPlan::path) as one GEMM or GEMV: X's
// layout is its kept variables M then the summed ones S (or S then M), Y's is S then its kept
// ones N (or N then S), S in the same order in both, no variable kept by both (a batch), and the
// result's layout is [M.., N..]. Transposed storage is a BLAS flag, so every layout of a matrix
// chain qualifies, not only A[i,k] B[k,l] C[l,j]. A step whose layouts allow none is loops.
struct StepGemm {
  bool swap = false;      // X is the step's second operand (only that order gives the destination)
  bool x_s_last = false;  // X stored [M.., S..] (else [S.., M..])
  bool y_s_last = false;  // Y stored [N.., S..] (else [S.., N..])
  std::vector<ir::DefId> m, n, k;  // k: S in X's (and Y's) order
  // A matrix times a vector (OpenBLAS's GEMM with one column is several times slower).
  bool gemv() const { return m.empty() != n.empty(); }
};

// The GEMM view of a step over operands laid out as `a` and `b` (their variables in storage
// order), summing `sum`; `dest` is the layout the result must have (the last step's), or null
// when the step lays out its result itself.
std::optional<StepGemm> step_gemm(const std::vector<ir::DefId>& a, const std::vector<ir::DefId>& b,
                                  const std::vector<ir::DefId>& sum, const std::vector<ir::DefId>* dest);

// Every tensor read an operand evaluates (its read, or each read of its computed value).
std::vector<ir::NodeRef> operand_reads(const ContractionOperand& o);

// The factors of a product tree `a * b * c` (a node that is no product is its own factor).
void mul_factors(const ir::NodeRef& e, std::vector<ir::NodeRef>& out);

// "A[i, k] B[k, j]"-style text of the operands (for %ir).
std::string contraction_text(const Contraction& c);

}  // namespace ein
