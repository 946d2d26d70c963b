// Expression-level resolution: names, paths, scoped constructs (blocks, reductions, lambdas,
// comprehensions, match arms).
#include "lang/resolve/resolver_impl.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;

NodeRef ResolveWalker::expr(const NodeRef& e) {
  if (!e) return e;
  switch (e->kind) {
    case Kind::IntLit:
    case Kind::FloatLit:
    case Kind::BoolLit:
    case Kind::StrLit:
    case Kind::Error:
    case Kind::TyPrim:
    case Kind::TyArray:
    case Kind::TyDim:
    case Kind::TyJagged:
    case Kind::TyTuple:
    case Kind::TyFn: return e;
    case Kind::Name: {
      ir::DefId d = lookup(e->name, e->span);
      return d.valid() ? ir::with_def(e, d) : e;
    }
    case Kind::Path: {
      ir::DefId d = lookup_path(e->name, e->span);
      return d.valid() ? ir::with_def(e, d) : e;
    }
    case Kind::RestIdx: {
      ir::DefId d = lookup(e->name, e->span);
      if (d.valid() && R.info(d).kind != DefKind::Rest) {
        error("E004", "`.." + e->name + "` is not a rest pattern of this declaration", e->span,
              "not a rest index", "declare it in the brackets: `let y[.." + e->name + "] = ...`");
        return e;
      }
      return d.valid() ? ir::with_def(e, d) : e;
    }
    case Kind::Cast: return ir::with_kids(e, {expr(e->kids[0]), e->kids[1]});
    case Kind::Block: return resolve_block(e);
    case Kind::Reduce: return resolve_reduce(e);
    case Kind::Lambda: return resolve_lambda(e);
    case Kind::Comp: return resolve_comp(e);
    case Kind::Match: return resolve_match(e);
    case Kind::Where: return resolve_where_value(e);
    default: {
      std::vector<NodeRef> kids;
      kids.reserve(e->kids.size());
      for (auto& k : e->kids) kids.push_back(opt_expr(k));
      return ir::with_kids(e, std::move(kids));
    }
  }
}

NodeRef ResolveWalker::resolve_block(const NodeRef& b) {
  if (!b || b->kind != Kind::Block) return expr(b);
  scopes.push_back(Scope{ScopeKind::Block, {}, 0});
  auto kids = resolve_stmts(b->kids, b->has(ir::kHasTail), false);
  scopes.pop_back();
  return ir::with_kids(b, std::move(kids));
}

// Slots of a declaration or reduction introduce index DefIds visible in the body only.
NodeRef ResolveWalker::resolve_reduce(const NodeRef& r) {
  scopes.push_back(Scope{ScopeKind::Index, {}, 0});
  std::vector<NodeRef> kids = r->kids;
  for (size_t i = ir::reduce_slot_begin(); i < kids.size(); ++i) {
    const NodeRef& s = kids[i];
    switch (s->kind) {
      case Kind::IdxVar: kids[i] = ir::with_def(s, define(s->name, DefKind::Index, s->span)); break;
      case Kind::IdxIn: {
        NodeRef range = expr(s->kids[0]);
        ir::DefId d = define(s->name, DefKind::Index, s->span);
        kids[i] = ir::edited(s, [&](ir::Node& n) {
          n.kids[0] = range;
          n.def = d;
        });
        break;
      }
      case Kind::IdxRest: kids[i] = ir::with_def(s, define(s->name, DefKind::Rest, s->span)); break;
      case Kind::IdxLit:
        error("E001", "a reduction index cannot be a literal", s->span, "expected an index name");
        break;
      default: break;
    }
  }
  kids[0] = resolve_where_value(kids[0]);
  scopes.pop_back();
  return ir::with_kids(r, std::move(kids));
}

NodeRef ResolveWalker::resolve_lambda(const NodeRef& l) {
  scopes.push_back(Scope{ScopeKind::Lambda, {}, l->id});
  R.captures[l->id];  // a lambda with no captures still has an (empty) entry
  std::vector<NodeRef> kids = l->kids;
  for (size_t i = ir::lambda_param_begin(); i < kids.size(); ++i)
    kids[i] = ir::with_def(kids[i], define(kids[i]->name, DefKind::Param, kids[i]->span));
  kids[0] = expr(kids[0]);
  scopes.pop_back();
  return ir::with_kids(l, std::move(kids));
}

NodeRef ResolveWalker::resolve_comp(const NodeRef& c) {
  scopes.push_back(Scope{ScopeKind::Block, {}, 0});
  std::vector<NodeRef> kids = c->kids;
  for (size_t i = 1; i < kids.size(); ++i) {
    const NodeRef& k = kids[i];
    NodeRef v = expr(k->kids[0]);
    if (k->kind == Kind::CompGen || k->kind == Kind::CompLet) {
      ir::DefId d = define(k->name, DefKind::Local, k->span);
      kids[i] = ir::edited(k, [&](ir::Node& n) {
        n.kids[0] = v;
        n.def = d;
      });
    } else {
      kids[i] = ir::with_kids(k, {v});
    }
  }
  kids[0] = expr(kids[0]);
  scopes.pop_back();
  return ir::with_kids(c, std::move(kids));
}

NodeRef ResolveWalker::resolve_match(const NodeRef& m) {
  std::vector<NodeRef> kids = m->kids;
  kids[0] = expr(kids[0]);
  for (size_t i = 1; i < kids.size(); ++i) {
    const NodeRef& arm = kids[i];
    scopes.push_back(Scope{ScopeKind::Block, {}, 0});
    NodeRef pat = bind_pattern(arm->kids[0], DefKind::Local);
    NodeRef guard = opt_expr(arm->kids[1]);
    NodeRef body = expr(arm->kids[2]);
    scopes.pop_back();
    kids[i] = ir::with_kids(arm, {pat, guard, body});
  }
  return ir::with_kids(m, std::move(kids));
}

}  // namespace ein
