// Internal to type inference: the per-unit walker.
#pragma once
#include <unordered_set>

#include "lang/ir/kid_families.h"
#include "lang/passes/context.h"
#include "lang/passes/type_infer.h"
#include "lang/passes/type_store.h"
#include "lang/resolve/builtins.h"

namespace ein {

struct InferShared {
  TypeStore store;
  std::unordered_map<ir::DefId, ir::NodeRef> consts_typed;  // const defs whose value was typed
  std::unordered_set<const Unit*> recursed;  // in-progress specs called before their type was known
  std::unordered_set<const Unit*> self_closed;  // specs whose body alone fixed every type
};

// type_infer_const.cpp: literals and constant expressions must fit their final types (E002).
void check_constant_ranges(CompileCtx& cx);

class Infer {
 public:
  Infer(CompileCtx& cx, InferShared& sh, Unit& u) : cx(cx), sh(sh), ts(sh.store), u(u) {}

  CompileCtx& cx;
  InferShared& sh;
  TypeStore& ts;
  Unit& u;

  // type_infer.cpp: statements and units
  void run_cell();
  void run_function(const std::vector<ir::NodeRef>& params, const ir::NodeRef& body,
                    const ir::NodeRef& ret_annotation);
  void stmt(const ir::NodeRef& s);
  ir::TypeRef block(const ir::NodeRef& b);
  void let(const ir::NodeRef& s);
  void bind_pattern(const ir::NodeRef& pat, const ir::TypeRef& t, Span at);
  void check_callable(const ir::TypeRef& sig, const ir::TypeRef& callee, const ir::NodeRef& at);
  void check_literal_extents(const ir::NodeRef& ann, const ir::NodeRef& value);
  ir::TypeRef ein_group(const ir::NodeRef& g);
  int determine_rests(const ir::NodeRef& body);
  int prescan_rest(const ir::NodeRef& group, ir::DefId rest);
  ir::TypeRef def_type(ir::DefId d, Span at);
  void set_def(ir::DefId d, const ir::TypeRef& t, bool global);
  ir::TypeRef const_type(ir::DefId d, Span at);

  // type_infer_expr.cpp
  ir::TypeRef expr(const ir::NodeRef& e);
  ir::TypeRef expr_inner(const ir::NodeRef& e);
  ir::TypeRef binary(const ir::NodeRef& e);
  // The type of two values one expression may give (if/else, match arms, `x + 1` beside a
  // run-time typed x): a value typed only at run time makes a literal's type run-time too.
  ir::TypeRef join_runtime(const ir::TypeRef& a, const ir::TypeRef& b);
  ir::TypeRef cast(const ir::NodeRef& e);
  ir::TypeRef index(const ir::NodeRef& e);
  ir::TypeRef member(const ir::NodeRef& e);
  ir::TypeRef reduce(const ir::NodeRef& e);
  ir::TypeRef where(const ir::NodeRef& e);
  ir::TypeRef match(const ir::NodeRef& e);
  ir::TypeRef comp(const ir::NodeRef& e);
  ir::TypeRef array_lit(const ir::NodeRef& e);
  std::optional<int64_t> static_int(const ir::NodeRef& e);
  std::optional<int64_t> promised_rank(const ir::NodeRef& e, int depth);
  std::optional<bool> static_bool(const ir::NodeRef& e);
  ir::TypeRef index_slots(ir::Kids slots);
  void pattern(const ir::NodeRef& p, const ir::TypeRef& scrut);

  // type_infer_call.cpp (builtin_call: type_infer_builtin.cpp)
  ir::TypeRef call(const ir::NodeRef& e);
  ir::TypeRef builtin_call(Builtin b, const ir::NodeRef& e, std::vector<ir::TypeRef>& args);
  bool only_literal_vars(const ir::TypeRef& t);
  bool is_open(const Unit& spec);  // parameters or result still hold inference variables
  bool has_var(const ir::TypeRef& t);  // holds an inference variable (through arrays, tuples)
  ir::NodeRef literal_arg(const ir::NodeRef& a) const;
  // Unannotated `let`s of this unit bound to a non-empty array literal (`let ops = [a, b];`):
  // passed to einsum they are a list of operands, like the literal written at the call.
  std::unordered_map<ir::DefId, ir::NodeRef> listed_lets;
  ir::NodeRef listed_operands(const ir::NodeRef& a) const {
    if (!a) return nullptr;
    if (a->kind == ir::Kind::ArrayLit) return a->kids.empty() ? nullptr : a;
    if (a->kind != ir::Kind::Name || !a->def.valid()) return nullptr;
    auto it = listed_lets.find(a->def);
    return it == listed_lets.end() ? nullptr : it->second;
  }
  std::vector<int64_t> known_extents(const ir::NodeRef& a);
  // type_infer_npy.cpp: `load_npy` / `save_npy` with a literal path.
  ir::TypeRef npy_load(const ir::NodeRef& call);
  void npy_save(const ir::NodeRef& call, const ir::TypeRef& value);
  // Does t (through arrays, tuples and bound variables) contain the unknown type of an error?
  bool mentions_unknown(const ir::TypeRef& t, int depth = 0) const;
  Unit* specialize(const ir::TypeRef& callee, std::vector<ir::TypeRef> args,
                   const ir::NodeRef& call_node);

  // A recurrence's clause being typed: the branches in tail position of its value (if/match
  // arms, block tails) give the element type as soon as each is typed, so a self-read in a
  // later branch (`if t == 0 { x_f64[0] } else { ln(abs(s[t - 1]) + 1.0) }`) sees f64, not a
  // variable that a generic call defaults to f32.
  ir::TypeRef pending_elem_;
  ir::DefId pending_def_;
  std::unordered_set<uint32_t> pending_tails_;
  bool reads_pending(const ir::NodeRef& e) const;
  void collect_tails(const ir::NodeRef& e);

  // helpers
  ir::TypeRef set(const ir::NodeRef& n, ir::TypeRef t) {
    u.types[n->id] = t;
    return t;
  }
  bool expect(const ir::TypeRef& want, const ir::TypeRef& got, Span at, const std::string& what);
  std::string show(const ir::TypeRef& t) { return ir::type_name(ts.deep(t, false)); }
  ir::TypeRef resolved(const ir::TypeRef& t) { return ts.shallow(t); }
  void type_cast_literals(const ir::NodeRef& operand, const ir::TypeRef& st, const ir::TypeRef& target_elem);
  void err(const std::string& code, const std::string& msg, Span at,
           const std::string& label = "", const std::string& help = "") {
    cx.error(code, msg, at, label, help);
  }
};

}  // namespace ein
