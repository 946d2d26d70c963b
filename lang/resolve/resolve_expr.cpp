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
      ir::DefId d = lookup_path(e->path, e->span);
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
    case Kind::Cast: return ir::with_kids(e, {expr(ir::cast_expr(e)), ir::cast_type(e)});
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
  std::vector<NodeRef> slots = resolve_slots(ir::reduce_slots(r), true);
  std::vector<NodeRef> kids{resolve_where_value(ir::reduce_body(r))};
  kids.insert(kids.end(), slots.begin(), slots.end());
  scopes.pop_back();
  return ir::with_kids(r, std::move(kids));
}

NodeRef ResolveWalker::resolved_clause(const NodeRef& c, const NodeRef& value, bool binds) {
  if (!binds) return ir::with_kids(c, {value});
  ir::DefId d = define(c->name, DefKind::Local, c->span);
  return ir::edited(c, [&](ir::Node& n) {
    n.kids = {value};
    n.def = d;
  });
}

std::vector<NodeRef> ResolveWalker::resolve_slots(ir::Kids slots, bool reduction) {
  std::vector<NodeRef> out;
  for (const NodeRef& s : slots) {
    switch (s->kind) {
      case Kind::IdxVar: out.push_back(ir::with_def(s, define(s->name, DefKind::Index, s->span))); break;
      case Kind::IdxIn: {
        NodeRef range = expr(ir::idxin_range(s));
        ir::DefId d = define(s->name, DefKind::Index, s->span);
        out.push_back(ir::edited(s, [&](ir::Node& n) {
          n.kids = {range};
          n.def = d;
        }));
        break;
      }
      case Kind::IdxRest: out.push_back(ir::with_def(s, define(s->name, DefKind::Rest, s->span))); break;
      case Kind::IdxLit:
        if (reduction)
          error("E001", "a reduction index cannot be a literal", s->span, "expected an index name");
        out.push_back(s);
        break;
      default: out.push_back(s); break;
    }
  }
  return out;
}

NodeRef ResolveWalker::resolve_lambda(const NodeRef& l) {
  scopes.push_back(Scope{ScopeKind::Lambda, {}, l->id});
  R.captures[l->id];  // a lambda with no captures still has an (empty) entry
  std::vector<NodeRef> params;
  for (const NodeRef& p : ir::lambda_params(l))
    params.push_back(ir::with_def(p, define(p->name, DefKind::Param, p->span)));
  std::vector<NodeRef> kids{expr(ir::lambda_body(l))};
  kids.insert(kids.end(), params.begin(), params.end());
  scopes.pop_back();
  return ir::with_kids(l, std::move(kids));
}

NodeRef ResolveWalker::resolve_comp(const NodeRef& c) {
  scopes.push_back(Scope{ScopeKind::Block, {}, 0});
  std::vector<NodeRef> clauses;
  for (const NodeRef& k : ir::comp_clauses(c)) {
    NodeRef v = expr(ir::comp_clause_expr(k));
    clauses.push_back(resolved_clause(k, v, k->kind == Kind::CompGen || k->kind == Kind::CompLet));
  }
  std::vector<NodeRef> kids{expr(ir::comp_elem(c))};
  kids.insert(kids.end(), clauses.begin(), clauses.end());
  scopes.pop_back();
  return ir::with_kids(c, std::move(kids));
}

NodeRef ResolveWalker::resolve_match(const NodeRef& m) {
  std::vector<NodeRef> kids{expr(ir::match_scrutinee(m))};
  for (const NodeRef& arm : ir::match_arms(m)) {
    scopes.push_back(Scope{ScopeKind::Block, {}, 0});
    NodeRef pat = bind_pattern(ir::arm_pattern(arm), DefKind::Local);
    NodeRef guard = opt_expr(ir::arm_guard(arm));
    NodeRef body = expr(ir::arm_body(arm));
    scopes.pop_back();
    kids.push_back(ir::with_kids(arm, {pat, guard, body}));
  }
  return ir::with_kids(m, std::move(kids));
}

}  // namespace ein
