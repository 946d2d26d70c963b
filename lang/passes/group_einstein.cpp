#include "lang/passes/group_einstein.h"

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"

namespace ein {
namespace {

using ir::Kind;
using ir::NodeRef;

class Grouper : public ir::Mutator {
 protected:
  NodeRef post(const NodeRef& n) override {
    if (n->kind != Kind::Program && n->kind != Kind::Block) return n;
    std::vector<NodeRef> out;
    bool changed = false;
    for (size_t i = 0; i < n->kids.size(); ++i) {
      const NodeRef& s = n->kids[i];
      if (!s || s->kind != Kind::EinDecl) {
        out.push_back(s);
        continue;
      }
      std::vector<NodeRef> clauses{s};
      while (i + 1 < n->kids.size() && n->kids[i + 1] && n->kids[i + 1]->kind == Kind::EinDecl &&
             n->kids[i + 1]->def == s->def) {
        clauses.push_back(n->kids[++i]);
      }
      Span span = clauses.front()->span;
      for (auto& c : clauses) span = Span::join(span, c->span);
      out.push_back(ir::make({.kind = Kind::EinGroup, .span = span, .kids = std::move(clauses),
                              .name = s->name, .def = s->def}));
      changed = true;
    }
    if (!changed) return n;
    return ir::edited(n, [&](ir::Node& m) { m.kids = std::move(out); });
  }
};

}  // namespace

NodeRef group_einstein(const NodeRef& body, CompileCtx&) {
  Grouper g;
  return g.mutate(body);
}

}  // namespace ein
