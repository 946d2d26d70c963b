// The autodiff pass: finds derivative requests in the cell and in every function specialisation
// it reaches (ad_scope.cpp), lowers them (ad_request.cpp, ad_indexed.cpp), and afterwards checks
// structurally that none survived (check_no_autodiff_left).
#include "lang/passes/autodiff.h"

#include <functional>

#include "lang/passes/ad_rewrite.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;
using namespace ad;

namespace {

// Facts of a function specialisation: its own tables first (specialisations share nodes).
Facts facts_for(CompileCtx& cx, const Unit* u) {
  Facts f(cx);
  if (u) f.prefer(u);
  return f;
}

// Is every request in the function `fn` by a binding of its own (a parameter, a local)? One
// by a global (`fn f() { let l = v * v; @l / @w }` with v computed from w outside) stays E013:
// inside the function w's data flow cannot be followed, and lowered at the call it would be.
bool by_own_bindings(const NodeRef& fn, const std::unordered_set<DefId>& own) {
  bool ok = true;
  ir::for_each_node(fn, [&](const NodeRef& n) {
    if (!is_quotient(n)) return;
    NodeRef x = quotient_by(n);
    while (x && x->kind == Kind::Index) x = ir::index_base(x);
    ok = ok && x && (x->kind == Kind::Name || x->kind == Kind::Path) && own.count(x->def);
  });
  return ok;
}

// The errors reported since `from` when every one is an E013, taken out of cx.diags (the
// specialisation's requests are then lowered at its calls instead); empty otherwise.
std::vector<Diagnostic> take_refusals(CompileCtx& cx, size_t from) {
  const std::vector<Diagnostic>& now = cx.diags.all();
  if (now.size() <= from) return {};
  for (size_t i = from; i < now.size(); ++i)
    if (now[i].warning || now[i].code != "E013") return {};
  std::vector<Diagnostic> all = cx.diags.take();
  std::vector<Diagnostic> mine(std::make_move_iterator(all.begin() + static_cast<long>(from)),
                               std::make_move_iterator(all.end()));
  all.resize(from);
  for (auto& d : all) cx.diags.report(std::move(d));
  return mine;
}

// Calls of the refused specialisations inlined in the cell and in the bodies of the other
// function specialisations (which are then refused in turn, and inlined into their callers, a
// level per two rounds). True when something was inlined and no error stands; a refused
// specialisation none of whose calls could be inlined keeps its errors.
bool inline_refused(CompileCtx& cx, std::unordered_map<std::string, std::vector<Diagnostic>>& refused) {
  std::unordered_set<std::string> keys, used;
  for (auto& [k, ds] : refused) keys.insert(k);
  bool any = false;
  for (size_t i = 1; i < cx.units.size(); ++i) {
    Unit& u = *cx.units[i];
    if (u.key.empty() || keys.count(u.key) || !u.body || u.body->kind != Kind::Fn) continue;
    auto ad = cx.ad_bodies.find(u.key);
    NodeRef fn = ad != cx.ad_bodies.end() ? ad->second : u.body;
    NodeRef body = ir::callable_body(fn);
    NodeRef nb = inline_refused_calls(cx, body, keys, used, &u);
    if (nb == body) continue;
    cx.ad_bodies[u.key] = ir::with_callable_body(fn, nb);
    any = true;
  }
  Unit& cell = cx.cell();
  NodeRef nb = inline_refused_calls(cx, cell.body, keys, used, nullptr);
  any = any || nb != cell.body;
  cell.body = nb;
  for (auto& [k, ds] : refused)
    if (!used.count(k))
      for (auto& d : ds) cx.diags.report(std::move(d));
  if (!any || cx.diags.has_errors()) return false;
  ++cx.ad_rewrites;
  return true;
}

}  // namespace

void autodiff(CompileCtx& cx) {
  // Function bodies: per specialisation, since the derivative code depends on the parameters'
  // types and ranks. The rewritten body replaces the function for that specialisation when the
  // cell is analysed again (type inference looks it up by the specialisation key).
  // A specialisation whose requests are refused (E013) has its calls in the cell inlined
  // instead (ad_callsite.cpp: extents known there fold; det/solve/inv iterate by them).
  std::unordered_map<std::string, std::vector<Diagnostic>> refused;
  for (size_t i = 1; i < cx.units.size(); ++i) {
    Unit& u = *cx.units[i];
    const NodeRef& b = u.body;
    if (!b || !has_diff(b) || u.key.empty() || (b->kind != Kind::Fn && b->kind != Kind::Lambda)) continue;
    Facts facts = facts_for(cx, &u);
    Rewriter rw(cx, facts);
    for (const NodeRef& p : ir::callable_params(b)) rw.add_leaf(p->def);
    std::unordered_set<DefId> own = binders_in(b);
    ir::for_each_node(b, [&](const NodeRef& n) {
      if ((n->kind == Kind::Name || n->kind == Kind::Path) && n->def.valid() && !own.count(n->def)) rw.add_outer(n->def);
    });
    const NodeRef& body = ir::callable_body(b);
    // An expression body is a block with only a tail.
    NodeRef list = body->kind == Kind::Block ? body : block({}, body);
    const size_t reported = cx.diags.all().size();
    NodeRef nb = rw.statements(list);
    if (b->kind == Kind::Fn && by_own_bindings(b, own))
      if (std::vector<Diagnostic> r = take_refusals(cx, reported); !r.empty()) {
        refused[u.key] = std::move(r);
        continue;
      }
    if (nb == list) continue;
    cx.ad_bodies[u.key] = ir::with_callable_body(b, nb);

    ++cx.ad_rewrites;
  }
  // The inlined bodies are typed by the next round's analysis; their requests (and the cell's
  // others) are lowered then.
  if (!refused.empty() && inline_refused(cx, refused)) return;
  Unit& cell = cx.cell();
  bool earlier_differentials = false;  // `df / dx` of differentials bound in earlier cells
  if (cx.persist && !cx.persist->differentials.empty())
    ir::for_each_node(cell.body, [&](const NodeRef& n) {
      if (n->kind == Kind::Name && cx.persist->differentials.count(n->def)) earlier_differentials = true;
    });
  if (!has_diff(cell.body) && !earlier_differentials) return;
  Facts facts(cx);
  Rewriter rw(cx, facts);
  NodeRef nb = rw.statements(cell.body, true);
  if (nb != cell.body || rw.changed) ++cx.ad_rewrites;
  cell.body = nb;
}

// Structural: after the autodiff rounds no request may remain anywhere — in the cell, in a
// function or closure specialisation, in a nested block or clause body. Each survivor is E013
// naming where it stands, so a request can never turn into a silent value. (Function and closure
// bodies are checked through their specialisations: one never called never runs.)
void check_no_autodiff_left(CompileCtx& cx) {
  for (auto& u : cx.units) {
    if (!u->body) continue;
    std::function<void(const NodeRef&, const char*)> walk = [&](const NodeRef& n, const char* where) {
      // Function items are checked through their specialisations (an uncalled one never runs).
      if (!n || n->kind == Kind::DiffFn || ((n->kind == Kind::Fn || n->kind == Kind::Lambda) && n != u->body)) return;
      if (n->kind == Kind::Diff) {
        cx.error("E013", std::string("this derivative request could not be lowered ") + where, n->span,
                 "request left after autodiff",
                 "the target and the parameter must be named bindings visible here");
        return;
      }
      const char* inner = where;
      switch (n->kind) {
        case Kind::EinDecl: inner = "(inside an Einstein declaration)"; break;
        case Kind::Reduce: inner = "(inside a reduction)"; break;
        case Kind::Comp: inner = "(inside a comprehension)"; break;
        default: break;
      }
      if (n->kind == Kind::Block && where[0] == '(' && std::string(where) == "(at the top level)")
        inner = "(inside a block)";
      for (auto& k : n->kids) walk(k, inner);
    };
    walk(u->body, u->kind == Unit::Kind::Cell ? "(at the top level)"
                  : u->kind == Unit::Kind::Lambda ? "(inside a closure)" : "(inside a function)");
    if (cx.diags.has_errors()) return;
  }
  // Every lowered request has the shape of its target followed by its parameter's.
  for (auto& c : cx.ad_shape_checks)
    for (auto& u : cx.units) {
      auto it = u->types.find(c.id);
      if (it == u->types.end()) continue;
      int r = ir::rank_of(it->second);
      if (r < 0 || r == c.rank) continue;
      cx.error("E013", "cannot differentiate this: the derivative came out with " + std::to_string(r) +
                           " axes instead of " + std::to_string(c.rank),
               c.span, "not lowered correctly",
               "a derivative has the target's axes followed by the parameter's; a construct "
               "between them is not differentiated elementwise");
      return;
    }
}

std::vector<Span> request_spans(const CompileCtx& cx) {
  std::vector<Span> out;
  for (auto& u : cx.units)
    ir::for_each_node(u->body, [&](const NodeRef& n) {
      if (n->kind == Kind::Diff && n->span.valid()) out.push_back(n->span);
    });
  return out;
}

void blame_requests(CompileCtx& cx, const std::vector<Span>& requests) {
  if (requests.empty() || !cx.diags.has_errors()) return;
  auto inside = [&](const Span& s) {
    for (auto& r : requests)
      if (s.valid() && s.file == r.file && s.lo >= r.lo && s.hi <= r.hi) return true;
    return false;
  };
  std::vector<Diagnostic> ds = cx.diags.take();
  for (auto& d : ds) {
    if (d.warning || d.code == "E013" || !inside(d.primary)) continue;
    // The primal passed every analysis before autodiff; what fails at the request's own span is
    // the code generated for it, so the request is what could not be lowered (SPEC §7).
    d.notes.insert(d.notes.begin(), "the code generated for this derivative failed with " + d.code + ": " +
                                        d.message);
    d.message = "cannot differentiate this: " + d.message;
    d.code = "E013";
    if (d.primary_label.empty()) d.primary_label = "derivative not lowered";
  }
  for (auto& d : ds) cx.diags.report(std::move(d));
}

}  // namespace ein
