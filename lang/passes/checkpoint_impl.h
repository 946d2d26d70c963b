#pragma once
// Internal to lang/passes/checkpoint*.cpp: the pass's rewriter (what the pass does: checkpoint.h).
// checkpoint.cpp finds a primal recurrence, its reverse sweep and the reductions beside them;
// checkpoint_rewrite.cpp builds the segmented (or blocked) sweeps and applies the windows.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lang/passes/context.h"

namespace ein::ckpt {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

// v + c for v among `vars` (a loop's variable and the clause variables bound to it), also
// nested: the adjoint's `(m + 1) - 1`.
std::optional<int64_t> offset_of(const NodeRef& e, const std::unordered_set<DefId>& vars);
bool is_ref(const NodeRef& n, DefId d);
bool reads_of(const NodeRef& n, DefId d);
bool names_def(const NodeRef& n, DefId d);  // a Name or a Path resolved to d
// The loop variable of `loop` and the clause variables bound to it inside (`LLet m = t`).
std::unordered_set<DefId> time_vars(const NodeRef& loop);

struct Range {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  void add(int64_t x) { lo = std::min(lo, x), hi = std::max(hi, x); }
  void add(const Range& r) {
    if (r.any()) add(r.lo), add(r.hi);
  }
  bool any() const { return lo <= hi; }
};

// A reduction over the rows whose terms are added per segment: a scalar `let x = sum[t, ..](..)`
// (partial sums per segment, then their sum), or a tensor whose one clause stores such a sum at
// each of its points — the adjoint of a vector parameter, `d_W[j, k] = sum[t](d_h[t, j] *
// h[t - 1, k])` — which adds each segment's terms into itself.
struct Reduction {
  size_t stmt;
  DefId t;         // its LoopVar along the rows
  int64_t lo, hi;  // its range
  NodeRef red;     // the LReduce
  NodeRef clause;  // tensors: the clause (a loop per axis around the store)
};

// What the statements beside a primal P and its adjoint A read of them (Checkpoint::readers).
struct Readers {
  std::vector<Reduction> reds;
  Range e, a;                   // offsets of P's and A's rows read by the reductions' terms
  Range a_points;               // constant rows of A read elsewhere
  int64_t end_min = INT64_MAX;  // lowest constant row of P read elsewhere
  bool a_whole = false;         // A read otherwise: it keeps every row
  bool ok = true;
};

// Marks the unit's tensors whose statements write every point (adding zero stores for a few
// boxes none writes) with kFilledLater: no zero fill of a reused block (checkpoint_fill.cpp).
void mark_filled(CompileCtx& cx, Unit& u);

class Checkpoint {
 public:
  Checkpoint(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

  void run();

  static NodeRef hoisted(const NodeRef& prog);

 private:
  ir::TypeRef type_of(const NodeRef& t);

  std::optional<std::vector<int64_t>> extents(const NodeRef& t);

  // The recurrence loop of an LTensor (recurrence_order's fact on axis 0).
  NodeRef time_loop(const NodeRef& t, bool reverse, int64_t* lookback);

  bool movable(DefId d);

  bool try_primal(size_t ip);

  // Time loops run together (checkpoint_fuse.cpp): P at ip and the recurrences beside it.
  bool try_fuse(size_t ip);
  std::optional<int64_t> beside(size_t ip, size_t iq, int64_t b, int64_t T,
                                const std::unordered_map<DefId, size_t>& defined_at);
  // Every store of `t` outside its time loop writes a row below b (its base rows).
  bool rows_below(const NodeRef& t, const NodeRef& tloop, int64_t b);
  // A forward recurrence P: base rows below b, then one time loop [b, T) writing whole rows (so a
  // recomputed or windowed row is complete), lookback L.
  struct Primal {
    NodeRef loop;
    std::vector<int64_t> ext;
    int64_t L = 0, b = 0, T = 0;
  };
  std::optional<Primal> primal_recurrence(const NodeRef& P);
  // Where each top-level tensor and let binding of the unit is last written (statement index).
  std::unordered_map<DefId, size_t> definitions();

  // The statements other than P's (at ip; none when ip is npos) and A's (at ia) that read P or
  // A: reductions whose terms can be added per segment, and the rows the others read.
  Readers readers(size_t ip, size_t ia, DefId P, DefId A, int64_t T);

  // A reverse sweep A whose primal is not a statement of this unit: a session cell's gradient of
  // a recurrence an earlier cell defined (a global, stored whole). Nothing is recomputed; the
  // sweep runs in blocks, each followed by its terms of the reductions, and A keeps a window
  // instead of every row (the blocked plan of a stored primal). Only when every tensor the
  // terms read besides A comes from outside this unit: a primal in this unit is try_primal's.
  bool try_adjoint(size_t ia);

  // Applies `row_ok` to the row index of every read of `d` in `n`; false when one fails or `d`
  // is named otherwise (whole), unless `whole` takes that case.
  bool scan(const NodeRef& n, DefId d, const std::function<bool(const NodeRef&)>& row_ok,
            bool* whole = nullptr);

  static NodeRef innermost(NodeRef n);

  // The one clause of a float tensor that stores a `sum` at each of its points: a loop per axis
  // (variables in order), then `T[v0, v1, ..] = sum[..](..)` not reading T.
  NodeRef summed_clause(const NodeRef& t);

  std::optional<Reduction> reduction(size_t j, const NodeRef& r, DefId P, DefId A, size_t ia,
                                     const std::unordered_map<DefId, size_t>& defined_at, Range& e,
                                     Range& a);

  // A segment number read inside a kernel comes in as a scalar argument: it needs its type.
  NodeRef seg_ref(DefId s);

  DefId new_index(const std::string& name);

  NodeRef new_tensor(const std::string& name, DefId d, DType dt, std::vector<int64_t> shape,
                     std::vector<NodeRef> stmts, std::string aux = "");

  // A later statement writing into tensor `t` (allocated by an earlier one).
  NodeRef resumed(const NodeRef& t, std::vector<NodeRef> stmts);

  NodeRef loop(DefId v, const std::string& name, NodeRef lo, NodeRef hi, NodeRef body,
               uint32_t flags);

  NodeRef typed_index(DefId d, const std::string& name, std::vector<NodeRef> args, DType dt);

  // `dst[rows_dst(j), x..] = src[rows_src(j), x..]` for j in [0, n) and every x: whole rows.
  NodeRef copy_rows(DefId dst, const std::string& dname, std::vector<NodeRef> dst_pre, DefId src,
                    const std::string& sname, std::vector<NodeRef> src_pre,
                    const std::vector<int64_t>& ext, DType dt, int64_t n,
                    const std::function<NodeRef(const NodeRef&)>& dst_row,
                    const std::function<NodeRef(const NodeRef&)>& src_row);

  // Reads and stores of `from` become reads and stores of `to` (the segment buffer).
  // With `keep_constant_rows`, reads at a row that folds to a constant stay reads of `from`: rows
  // near its end, which its window keeps (an adjoint loop that also seeds its last row reads
  // `u[T - 1, ..]` there; the segment buffer holds only the current segment's rows).
  NodeRef renamed(const NodeRef& n, DefId from, DefId to, const std::string& name,
                  bool keep_constant_rows = false);

  bool rewrite(size_t ip, size_t ia, const NodeRef& ploop, const NodeRef& aloop,
               const std::vector<int64_t>& ext, const std::vector<int64_t>& aext, int64_t T,
               int64_t b, int64_t L, int64_t La, int64_t alo, int64_t ahi, int64_t e0, int64_t e1,
               const Range& a, int64_t end_min, int64_t low_max, const Range& a_points,
               bool a_whole, const std::vector<Reduction>& reds);
  NodeRef apply_windows(const NodeRef& n);

  int64_t spacing(int64_t T, int64_t Lc, double row_p, double row_a, double fixed_bytes) const;
  static constexpr double kSegmentCache = 1.5 * 1048576.0;  // three quarters of a 2 MiB L2
  static constexpr double kBlockCache =
      64.0 * 1024.0;  // a block of stored rows: L1 and L2's nearest part

  std::unordered_map<DefId, int64_t> windows_;
  bool stored_only_ = false;  // the primal of try_primal stays as it is
  Span span_;                 // of the primal: where a failure in the generated loops points
  CompileCtx& cx_;
  Unit& u_;
};

}  // namespace ein::ckpt
