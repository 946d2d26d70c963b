// Requests in a function body lowered where the function is called (autodiff.cpp's fallback).
//
// A request inside a generic function is lowered once per specialisation (types and ranks),
// where the parameters' extents are run-time values. Code that iterates as many times as an
// extent says — std's det/lu (`lu_steps` recursing until t == n), solve (`eliminate`), inv (a
// comprehension over 0..n) — unrolls on the tape only when that count folds, so
// `fn g(M) { let l = det(M); @l / @M }` was E013 although `@l / @M` of the same code at top level
// works. When a specialisation's requests are refused (E013), each call of that specialisation in
// the cell becomes the body inlined in place:
//
//     g(M)   ->   { let M' = M; let l = det(M'); @l / @M' }
//
// The parameters become block-local lets bound to the arguments, so the request differentiates
// with respect to the same binding as in the function (its argument's own definition is not
// followed: the derivative is by the parameter), values read from outside stay what they were,
// and the extents fold from the arguments. The next autodiff round lowers the inlined request;
// if it is refused there too, its E013 stands (reported at the function's code, as before).
#include "lang/passes/ad_rewrite.h"

namespace ein::ad {

using ir::Kind;

namespace {

struct CallInliner {
  CompileCtx& cx;
  Facts& facts;
  const std::unordered_set<std::string>& keys;  // specialisations whose requests were refused
  const Unit* within;                            // whose body is walked (nullptr: the cell)
  std::unordered_set<std::string>& used;

  NodeRef inline_call(const NodeRef& call, const Unit& u) {
    const NodeRef& fn = u.body;
    ir::Kids params = ir::callable_params(fn);
    ir::Kids args = ir::call_args(call);
    if (params.size() != args.size()) return nullptr;
    Copier cp(cx, facts);
    std::vector<NodeRef> stmts;
    for (size_t a = 0; a < params.size(); ++a) {
      const NodeRef& p = params[a];
      if (!p->def.valid()) return nullptr;
      DefId pd = cx.resolver.new_def(p->name, DefKind::Local, p->span);
      // A scalar keeps the specialisation's type (a literal argument `0.1` of an f64
      // parameter); an array takes its argument's type and extents (what the fallback is for).
      TypeRef pt;
      if (auto it = u.def_types.find(p->def); it != u.def_types.end()) pt = it->second;
      bool scalar = pt && pt->k == ir::Type::K::Scalar;
      stmts.push_back(scalar ? let_typed(p->name, pd, args[a], pt) : let_stmt(p->name, pd, args[a]));
      cp.subst[p->def] = name(p->name, pd);
    }
    NodeRef body = cp.copy(ir::callable_body(fn));
    if (body->kind == Kind::Block && body->has(ir::kHasTail)) {
      for (const NodeRef& s : ir::block_stmts(body)) stmts.push_back(s);
    } else if (body->kind == Kind::Block) {
      return nullptr;  // a body without a value: nothing a request could return
    } else {
      stmts.push_back(body);
    }
    return ir::make({.kind = Kind::Block, .span = call->span, .kids = std::move(stmts), .flags = ir::kHasTail});
  }

  NodeRef walk(const NodeRef& n) {
    if (!n || n->kind == Kind::Lambda || n->kind == Kind::Fn || n->kind == Kind::DiffFn) return n;
    std::vector<NodeRef> kids;
    bool changed = false;
    for (const NodeRef& k : n->kids) {
      kids.push_back(walk(k));
      changed = changed || kids.back() != k;
    }
    NodeRef m = changed ? ir::with_kids(n, std::move(kids)) : n;
    if (n->kind != Kind::Call) return m;
    const Unit* u = facts.call_target(n, within);
    if (!u || u->kind != Unit::Kind::Fn || !keys.count(u->key) || !u->body || u->body->kind != Kind::Fn) return m;
    NodeRef b = inline_call(m, *u);
    if (!b) return m;
    used.insert(u->key);
    return b;
  }
};

}  // namespace

NodeRef inline_refused_calls(CompileCtx& cx, const NodeRef& body, const std::unordered_set<std::string>& keys,
                             std::unordered_set<std::string>& used, const Unit* within) {
  Facts facts(cx);
  if (within) facts.prefer(within);
  CallInliner in{cx, facts, keys, within, used};
  return in.walk(body);
}

}  // namespace ein::ad
