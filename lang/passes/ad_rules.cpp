// `@fn` rules (`@fn f(x, a) { .. @x .. @a }`): a call's tangent from its rule, with the rule's
// recomputations of the function's own result read from a stored output, the terms of inactive
// parameters dropped, and a rule that gives no term for an active parameter refused (E013).
#include "lang/passes/ad_common.h"

namespace ein::ad {

using ir::BinOp;
using ir::Kind;

namespace {

// Replaces `@p` (Diff of a rule parameter) by the parameter's tangent.
NodeRef replace_diffs(const NodeRef& n, const std::unordered_map<DefId, NodeRef>& t) {
  if (!n) return n;
  if (n->kind == Kind::Diff && ir::diff_expr(n)->kind == Kind::Name) {
    auto it = t.find(ir::diff_expr(n)->def);
    if (it != t.end()) return it->second;
    return flit(0.0);
  }
  std::vector<NodeRef> kids;
  for (auto& k : n->kids) kids.push_back(replace_diffs(k, t));
  return ir::with_kids(n, std::move(kids));
}

// The rule's value without the terms of parameters whose tangent is zero (nullptr: no term
// left). `expm1(min(x, 0)) * @alpha` with a literal alpha is no term at all, as finite
// differences see it, not `.. * 0.0` (which kept a layer's gradient from being one GEMM and is
// NaN where the factor is infinite). Products, quotients and negations of a dropped term are
// dropped; sums keep the other side.
NodeRef without_inactive(const NodeRef& n, const std::unordered_set<DefId>& inactive) {
  if (!n) return n;
  if (n->kind == Kind::Diff && ir::diff_expr(n)->kind == Kind::Name &&
      inactive.count(ir::diff_expr(n)->def))
    return nullptr;
  if (n->kind == Kind::Binary) {
    auto op = static_cast<BinOp>(n->ival);
    if (op == BinOp::Add || op == BinOp::Sub || op == BinOp::Mul || op == BinOp::Div) {
      NodeRef l = without_inactive(ir::bin_lhs(n), inactive),
              r = without_inactive(ir::bin_rhs(n), inactive);
      if (l == ir::bin_lhs(n) && r == ir::bin_rhs(n)) return n;
      if (op == BinOp::Add) return add(l, r);
      if (op == BinOp::Sub) return sub(l, r);
      if (op == BinOp::Mul) return l && r ? ir::with_kids(n, {l, r}) : nullptr;
      return l && r ? ir::with_kids(n, {l, r})
             : l    ? ir::with_kids(n, {l, ir::bin_rhs(n)})
                    : nullptr;
    }
  }
  if (n->kind == Kind::Unary && static_cast<ir::UnOp>(n->ival) == ir::UnOp::Neg) {
    NodeRef o = without_inactive(ir::unary_operand(n), inactive);
    return o == ir::unary_operand(n) ? n : o ? ir::with_kids(n, {o}) : nullptr;
  }
  std::vector<NodeRef> kids;
  bool changed = false;
  for (auto& k : n->kids) {
    NodeRef c = without_inactive(k, inactive);
    if (!c && k) c = flit(0.0);  // (inside anything else: a zero value)
    changed = changed || c != k;
    kids.push_back(c);
  }
  return changed ? ir::with_kids(n, std::move(kids)) : n;
}

using ir::mentions;

// `body` (a rule's value) with every recomputation of the function's own result replaced by
// `value`: a call of the function on exactly the rule's parameters, or the function's body
// expression over them (`__tanh(x)` for `fn tanh(x) { __tanh(x) }`).
NodeRef reuse_result(const NodeRef& body, const ir::Node& fn, ir::Kids rule_params, DefId fn_def,
                     const NodeRef& value) {
  ir::Kids fparams = ir::fn_params(fn);
  if (fparams.size() != rule_params.size()) return body;
  std::unordered_map<DefId, DefId> to_rule;
  for (size_t i = 0; i < fparams.size(); ++i) to_rule[fparams[i]->def] = rule_params[i]->def;
  NodeRef fb = ir::fn_body(fn);
  if (fb && fb->kind == Kind::Block && fb->has(ir::kHasTail) && ir::block_stmts(fb).size() == 1)
    fb = ir::block_stmts(fb)[0];
  std::function<NodeRef(const NodeRef&)> rename = [&](const NodeRef& n) -> NodeRef {
    if (!n) return n;
    if (n->kind == Kind::Name) {
      auto it = to_rule.find(n->def);
      if (it == to_rule.end()) return n;
      auto c = std::make_shared<ir::Node>(*n);
      c->def = it->second;
      return c;
    }
    std::vector<NodeRef> kids;
    for (auto& k : n->kids) kids.push_back(rename(k));
    return ir::with_kids(n, std::move(kids));
  };
  NodeRef own = fb ? rename(fb) : nullptr;
  auto is_result = [&](const NodeRef& n) {
    if (own && ir::structurally_equal(n, own)) return true;
    if (n->kind != Kind::Call || ir::call_callee(n)->def != fn_def) return false;
    ir::Kids a = ir::call_args(n);
    if (a.size() != rule_params.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i]->kind != Kind::Name || a[i]->def != rule_params[i]->def) return false;
    return true;
  };
  std::function<NodeRef(const NodeRef&)> walk = [&](const NodeRef& n) -> NodeRef {
    if (!n) return n;
    if (is_result(n)) return value;
    std::vector<NodeRef> kids;
    bool changed = false;
    for (auto& k : n->kids) {
      kids.push_back(walk(k));
      changed = changed || kids.back() != k;
    }
    return changed ? ir::with_kids(n, std::move(kids)) : n;
  };
  return walk(body);
}

}  // namespace

NodeRef Forward::custom_rule(const NodeRef& e, const std::vector<NodeRef>& t, const NodeRef& rule,
                             const NodeRef& fn) {
  const NodeRef& callee = ir::call_callee(e);
  ir::Kids args = ir::call_args(e);
  std::vector<NodeRef> stmts;
  std::unordered_map<DefId, NodeRef> dmap;
  ir::Kids rule_params = ir::fn_params(*rule);
  for (size_t a = 0; a < rule_params.size() && a < t.size(); ++a) {
    const NodeRef& p = rule_params[a];
    stmts.push_back(let_typed(p->name, p->def, args[a], facts_.type(args[a])));
    DefId dp = cx_.resolver.new_def("d" + p->name, DefKind::Local, p->span);
    stmts.push_back(
        let_stmt("d" + p->name, dp, t[a] ? t[a] : flit(0.0), facts_.float_dtype(args[a])));
    dmap[p->def] = name("d" + p->name, dp);
  }
  // A rule without `@p` for a parameter p whose tangent is not zero would drop that term
  // (leaky_relu's rule had no `@alpha`: `@L / @alpha` printed 0).
  for (size_t a = 0; a < rule_params.size() && a < t.size(); ++a) {
    bool named = false;
    ir::for_each_node(ir::fn_body(*rule), [&](const NodeRef& n) {
      named = named || (n->kind == Kind::Diff && ir::diff_expr(n)->kind == Kind::Name &&
                        ir::diff_expr(n)->def == rule_params[a]->def);
    });
    if (t[a] && !named)
      unsupported("a parameter its derivative rule gives no term for (`@" + rule_params[a]->name +
                      "` in `@fn " + callee->name + "`)",
                  e->span);
  }
  std::unordered_set<DefId> inactive;
  for (size_t a = 0; a < rule_params.size() && a < t.size(); ++a)
    if (!t[a]) inactive.insert(rule_params[a]->def);
  NodeRef rbody = replace_diffs(without_inactive(ir::fn_body(*rule), inactive), dmap);
  if (!rbody) rbody = flit(0.0);
  auto st = stored.find(e.get());
  if (st != stored.end() && fn && fn->kind == Kind::Fn) {
    rbody = reuse_result(rbody, *fn, rule_params, callee->def, st->second);
    // A parameter the rule no longer reads need not be evaluated (its let is the whole
    // argument expression, e.g. a contraction).
    std::vector<NodeRef> kept;
    for (size_t i = 0; i < stmts.size(); ++i) {
      bool param_let = i % 2 == 0;
      if (param_let && !mentions(rbody, ir::let_pattern(*stmts[i])->def)) continue;
      kept.push_back(stmts[i]);
    }
    stmts = std::move(kept);
  }
  // The parameters the rule still reads, from a stored intermediate when the sweep has one.
  for (auto& st2 : stmts) {
    if (st2->kind != Kind::Let) continue;
    for (size_t a = 0; a < rule_params.size() && a < args.size(); ++a)
      if (ir::let_pattern(*st2)->def == rule_params[a]->def) {
        NodeRef v = arg_value(args[a]);
        if (v != args[a])
          st2 = let_typed(rule_params[a]->name, rule_params[a]->def, v, facts_.type(args[a]));
      }
  }
  return ad::alias_block(std::move(stmts), rbody);
}

}  // namespace ein::ad
