// The body copier of row_inline (see row_inline.h): a callee's specialised body copied once for
// all rows of a site, its names given their meaning at the site (a declaration over the rows, the
// argument's row, an expression evaluated once). row_inline.cpp finds the sites and decides the
// rows; this file copies bodies; row_step.cpp turns a copy into a block inside a recurrence step.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lang/ir/node.h"
#include "lang/passes/context.h"

namespace ein::row_inline_detail {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

// A copy of `n` with a fresh id (two inlined copies of one body must not share the per-node
// tables of the cell) and the given kids; facts of the lowering tiers are not carried over.
NodeRef remade(const NodeRef& n, std::vector<NodeRef> kids, DefId def);
NodeRef index(NodeRef base, std::vector<NodeRef> subs, Span at);
NodeRef block(std::vector<NodeRef> stmts, NodeRef tail, Span at);
bool binder_kind(Kind k);
std::unordered_set<DefId> names_in(const NodeRef& e);  // resolved names `e` reads
bool has_call(const NodeRef& e);
// A condition the specialisation decides (rank and shape tests: `a >= 0 && a < rank`).
std::optional<bool> fold_bool(const CompileCtx& cx, const Unit& u, const NodeRef& e);
// Every call in `n` (through every function it reaches) is without effects or checks: a value
// that may be computed once instead of once per row.
bool pure(const CompileCtx& cx, const NodeRef& n, std::unordered_set<DefId>& seen, int depth = 0);

// What a name of the callee's body stands for in the inlined copy.
struct Meaning {
  enum class K { Lifted, Row, Expr } k = K::Expr;
  DefId def{};                  // Lifted: the declaration over the rows
  std::string name{};
  NodeRef base{};               // Row: the array the row is read from
  std::vector<NodeRef> subs{};  // Row: its subscripts, in the site's index names
  NodeRef expr{};               // Expr: what stands in place
  // Row: the row goes through an elementwise call with a derivative rule (`exp(S[i])`): each
  // read is that call on the elements read (`exp(S[i, k])`), the row at argument `wrap_at`.
  NodeRef wrap{};
  size_t wrap_at = 0;
};

struct Copy {
  const Unit* spec = nullptr;
  std::unordered_map<DefId, Meaning> meaning;
  std::unordered_map<DefId, DefId> fresh;  // the body's binders -> their copies
  std::vector<DefId> rows;                 // the site's row indices
  std::unordered_map<DefId, DefId> cur;    // row index -> its name in the declaration being built
  std::vector<NodeRef> out;                // declarations built so far
  // A recurrence step's own row (row_step.cpp): no rows are lifted, and a reduction's index
  // gets its range from the specialisation (the row's extent cannot be inferred from reads of
  // the tensor being defined).
  bool step = false;
  DefId self{};  // the recurrence's tensor (step)
  // A step's declarations -> the extent of each axis (null where unknown), for `dim(e, 0)`.
  std::unordered_map<DefId, std::vector<NodeRef>> extents;
  bool ok = true;
  std::string why;  // the first reason it does not apply (EIN_ROW_INLINE=trace)
};

class RowCopier {
 public:
  RowCopier(CompileCtx& cx, Unit& unit) : cx_(cx), cell_(unit) {}

  // The body's statements (a block, or a branch its specialisation took) into c.out; the tail's
  // meaning goes to `*result`.
  void body(Copy& c, const NodeRef& b, Meaning* result);
  // A read of what `m` stands for, at the current rows, indexed further by `more`.
  NodeRef read(Copy& c, const Meaning& m, std::vector<NodeRef> more, Span at);
  NodeRef copy(Copy& c, const NodeRef& e);
  void fail(Copy& c, const char* why);

 private:
  CompileCtx& cx_;
  Unit& cell_;

  NodeRef row_name(Copy& c, size_t r, Span at);
  std::vector<NodeRef> row_names(Copy& c, Span at);
  std::optional<int64_t> known_int(const Copy& c, const NodeRef& e);
  NodeRef in_cur(Copy& c, const NodeRef& e);
  NodeRef ranged_slot(Copy& c, const NodeRef& was, const NodeRef& now);
  NodeRef step_bound(Copy& c, const RangeFact& f, bool hi);
  std::vector<NodeRef> row_slots(Copy& c, Span at);
  NodeRef declare(const std::string& name, DefId d, const NodeRef& value, const std::vector<NodeRef>& slots,
                  Span at, uint32_t flags);
  DefId lifted(Copy& c, const NodeRef& binder);
  bool reads_rows(const Copy& c, const NodeRef& val) const;
  void scalar_let(Copy& c, const NodeRef& pat, const NodeRef& v);
  void value(Copy& c, const NodeRef& v, Meaning* result);
  Meaning call_value(Copy& c, const std::string& name, const NodeRef& v, int rank);
};

// row_step.cpp: the copy of a site whose row is the recurrence's own earlier row
// (`softmax(h[t - 1])[j]`) as one block in the step: scalar lets stay lets (computed once per
// step by the kernels' and the interpreter's hoisting), declarations without reductions are
// substituted where they are read; null (with c.why) when a declaration holds a reduction.
// Checks of the callee that read nothing `bound_here` (the statement's indices, its tensor,
// its locals) go to `before` (made once before the statement).
NodeRef step_block(RowCopier& cp, Copy& c, const Meaning& result, const std::vector<NodeRef>& subs, Span at,
                   const CompileCtx& cx, const std::function<bool(DefId)>& bound_here, std::vector<NodeRef>& before);

}  // namespace ein::row_inline_detail
