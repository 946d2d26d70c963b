// Kid layouts of the node kinds, and the named accessors generated from them.
//
// Why a table: passes used to read children by position (`n->kids[2]`), so changing one kind's
// children meant hunting every reader. The table below is the single statement of each layout;
// `make()`, `with_kids()` and `edited()` check nodes against it (always: it is a table lookup),
// and the accessors are generated from it, so a reader names the child it wants.
//
// EIN_NODE_LAYOUTS(L, F, T):
//   L(Kind, "spec")    spec has one character per position: 'r' required (non-null),
//                      'o' present but may be null, '?' optional at the end (absent or null),
//                      '*' a variadic tail (any length, kids may not be null) — last only.
//   F(Kind, pos, acc)  a named fixed position: generates `acc(n)` (Node& or NodeRef).
//   T(Kind, pos, acc)  the variadic tail from pos: generates `acc(n)` (a span of kids) and
//                      `acc##_count(n)`.
// A kind without an L entry is unchecked (new kinds may start that way; give them one).
// Kinds that share a layout (DiffFn with Fn) are listed in kLayoutAlias in node.cpp.
#pragma once
#include <span>

#include "lang/ir/node.h"

namespace ein::ir {

// clang-format off
#define EIN_NODE_LAYOUTS(L, F, T)                                                              \
  L(Program, "*")        T(Program, 0, program_stmts)                                           \
  L(Block, "*")          T(Block, 0, block_stmts)                                               \
  L(IntLit, "") L(FloatLit, "") L(BoolLit, "") L(StrLit, "") L(Name, "") L(Path, "")            \
  L(Interp, "*")         T(Interp, 0, interp_parts)                                             \
  L(InterpHole, "r")     F(InterpHole, 0, hole_expr)                                            \
  L(ArrayLit, "*")       T(ArrayLit, 0, array_elems)                                            \
  L(TupleLit, "*")       T(TupleLit, 0, tuple_elems)                                            \
  L(RangeLit, "rr")      F(RangeLit, 0, range_lo) F(RangeLit, 1, range_hi)                      \
  L(Unary, "r")          F(Unary, 0, unary_operand)                                             \
  L(Binary, "rr")        F(Binary, 0, bin_lhs) F(Binary, 1, bin_rhs)                            \
  L(Cast, "rr")          F(Cast, 0, cast_expr) F(Cast, 1, cast_type)                            \
  L(Call, "r*")          F(Call, 0, call_callee) T(Call, 1, call_args)                          \
  L(Index, "r*")         F(Index, 0, index_base) T(Index, 1, index_args)                        \
  L(RestIdx, "")                                                                                \
  L(Member, "r")         F(Member, 0, member_base)                                              \
  L(Diff, "r")           F(Diff, 0, diff_expr)                                                  \
  L(If, "rr?")           F(If, 0, if_cond) F(If, 1, if_then) F(If, 2, if_else)                  \
  L(Match, "r*")         F(Match, 0, match_scrutinee) T(Match, 1, match_arms)                   \
  L(Arm, "ror")          F(Arm, 0, arm_pattern) F(Arm, 1, arm_guard) F(Arm, 2, arm_body)        \
  L(Lambda, "r*")        F(Lambda, 0, lambda_body) T(Lambda, 1, lambda_params)                  \
  L(Param, "?")          F(Param, 0, param_type)                                                \
  L(Comp, "r*")          F(Comp, 0, comp_elem) T(Comp, 1, comp_clauses)                         \
  L(CompGen, "r")        F(CompGen, 0, compgen_iter)                                            \
  L(CompGuard, "r")      F(CompGuard, 0, compguard_cond)                                        \
  L(CompLet, "r")        F(CompLet, 0, complet_value)                                           \
  L(Reduce, "r*")        F(Reduce, 0, reduce_body) T(Reduce, 1, reduce_slots)                   \
  L(IdxVar, "")                                                                                 \
  L(IdxIn, "r")          F(IdxIn, 0, idxin_range)                                               \
  L(IdxLit, "") L(IdxRest, "")                                                                  \
  L(Where, "r*")         F(Where, 0, where_expr) T(Where, 1, where_clauses)                     \
  L(WBind, "r")          F(WBind, 0, wbind_value)                                               \
  L(WDerived, "r")       F(WDerived, 0, wderived_index)                                         \
  L(WGuard, "r")         F(WGuard, 0, wguard_cond)                                              \
  L(WElse, "r")          F(WElse, 0, welse_value)                                               \
  L(PWild, "")                                                                                  \
  L(PLit, "r")           F(PLit, 0, plit_value)                                                 \
  L(PRange, "rr")        F(PRange, 0, prange_lo) F(PRange, 1, prange_hi)                        \
  L(PBind, "")                                                                                  \
  L(PAt, "r")            F(PAt, 0, pat_inner)                                                   \
  L(PArray, "*")         T(PArray, 0, parray_elems)                                             \
  L(PRest, "")                                                                                  \
  L(POr, "*")            T(POr, 0, por_alts)                                                    \
  L(PTuple, "*")         T(PTuple, 0, ptuple_elems)                                             \
  L(TyPrim, "")                                                                                 \
  L(TyArray, "r*")       F(TyArray, 0, tyarray_elem) T(TyArray, 1, tyarray_dims)                \
  L(TyDim, "")                                                                                  \
  L(TyJagged, "r")       F(TyJagged, 0, tyjagged_elem)                                          \
  L(TyTuple, "*")        T(TyTuple, 0, tytuple_elems)                                           \
  L(TyFn, "r*")          F(TyFn, 0, tyfn_ret) T(TyFn, 1, tyfn_params)                           \
  L(Let, "ror")          F(Let, 0, let_pattern) F(Let, 1, let_type) F(Let, 2, let_value)        \
  L(EinDecl, "r*")       F(EinDecl, 0, ein_value) T(EinDecl, 1, ein_slots)                      \
  L(Const, "or")         F(Const, 0, const_type) F(Const, 1, const_value)                       \
  L(Fn, "or*")           F(Fn, 0, fn_ret_type) F(Fn, 1, fn_body) T(Fn, 2, fn_params)            \
  L(Use, "*")            T(Use, 0, use_items)                                                   \
  L(UseItem, "")                                                                                \
  L(Mod, "*")            T(Mod, 0, mod_items)                                                   \
  L(StructDecl, "") L(EnumDecl, "")                                                             \
  L(ExprStmt, "r")       F(ExprStmt, 0, stmt_expr)                                              \
  L(Error, "")                                                                                  \
  L(EinGroup, "*")       T(EinGroup, 0, group_clauses)                                          \
  L(LTensor, "r*")       F(LTensor, 0, ltensor_shape) T(LTensor, 1, ltensor_stmts)              \
  L(LShape, "*")         T(LShape, 0, lshape_extents)                                           \
  L(LFor, "rrr")         F(LFor, 0, lfor_lo) F(LFor, 1, lfor_hi) F(LFor, 2, lfor_body)          \
  L(LStore, "r*")        F(LStore, 0, lstore_value) T(LStore, 1, lstore_index)                  \
  L(LLet, "r")           F(LLet, 0, llet_value)                                                 \
  L(LIf, "rr?")          F(LIf, 0, lif_cond) F(LIf, 1, lif_then) F(LIf, 2, lif_else)            \
  L(LSeq, "*")           T(LSeq, 0, lseq_stmts)                                                 \
  L(LCheck, "r?")        F(LCheck, 0, lcheck_cond) F(LCheck, 1, lcheck_help)                    \
  L(LReduce, "r*")       F(LReduce, 0, lreduce_body) T(LReduce, 1, lreduce_items)               \
  L(LoopVar, "rr")       F(LoopVar, 0, loopvar_lo) F(LoopVar, 1, loopvar_hi)                    \
  L(LLetIn, "rr")        F(LLetIn, 0, lletin_value) F(LLetIn, 1, lletin_body)                   \
  L(DimOf, "r")          F(DimOf, 0, dimof_tensor)                                              \
  L(IMin, "rr")          F(IMin, 0, imin_a) F(IMin, 1, imin_b)                                  \
  L(IMax, "rr")          F(IMax, 0, imax_a) F(IMax, 1, imax_b)                                  \
  L(LGuard, "rr")        F(LGuard, 0, lguard_cond) F(LGuard, 1, lguard_value)                   \
  L(LNop, "")
// clang-format on

// Throws std::logic_error naming the kind and the violated position when `n` does not match its
// kind's layout. Called by the node factories; callable by passes that build kids by hand.
void check_layout(const Node& n);

// True when `n` is of kind `k` or of a kind sharing k's layout (DiffFn for Fn).
bool has_layout_of(const Node& n, Kind k);

namespace detail {
[[noreturn]] void layout_misuse(const Node& n, Kind expected, const char* accessor);
inline void expect(const Node& n, Kind k, const char* acc) {
  if (n.kind != k && !has_layout_of(n, k)) layout_misuse(n, k, acc);
}
}  // namespace detail

using Kids = std::span<const NodeRef>;

#define EIN_LAYOUT_NONE(kind, spec)
#define EIN_FIELD_ACCESSOR(kind, pos, acc)                                              \
  inline const NodeRef& acc(const Node& n) {                                            \
    detail::expect(n, Kind::kind, #acc);                                                \
    static const NodeRef null_kid;                                                      \
    return (pos) < n.kids.size() ? n.kids[pos] : null_kid;                              \
  }                                                                                     \
  inline const NodeRef& acc(const NodeRef& n) { return acc(*n); }
#define EIN_TAIL_ACCESSOR(kind, pos, acc)                                               \
  inline Kids acc(const Node& n) {                                                      \
    detail::expect(n, Kind::kind, #acc);                                                \
    return n.kids.size() > (pos) ? Kids(n.kids).subspan(pos) : Kids();                  \
  }                                                                                     \
  inline Kids acc(const NodeRef& n) { return acc(*n); }                                 \
  inline size_t acc##_count(const Node& n) { return acc(n).size(); }                    \
  inline size_t acc##_count(const NodeRef& n) { return acc(*n).size(); }                \
  inline constexpr size_t acc##_begin() { return pos; }
EIN_NODE_LAYOUTS(EIN_LAYOUT_NONE, EIN_FIELD_ACCESSOR, EIN_TAIL_ACCESSOR)
#undef EIN_LAYOUT_NONE
#undef EIN_FIELD_ACCESSOR
#undef EIN_TAIL_ACCESSOR

// Older names kept for the passes that use them.
inline const NodeRef& tail_expr(const Node& block) { return block.kids.back(); }  // if kHasTail
inline size_t fn_param_begin() { return fn_params_begin(); }
inline size_t lambda_param_begin() { return lambda_params_begin(); }
inline size_t ein_slot_begin() { return ein_slots_begin(); }
inline size_t reduce_slot_begin() { return reduce_slots_begin(); }

}  // namespace ein::ir
