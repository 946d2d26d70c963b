// Visitor bases generated from the node-kind X-macro (ARCHITECTURE "IR conventions").
//  - StrictVisitor<R>: one pure virtual per kind; for code that must handle every kind
//    explicitly (printers, backends).
//  - RecursiveVisitor: default walks all kids; override the kinds a pass cares about.
//  - Mutator: post-order rebuild; returns the same node when nothing changed.
#pragma once
#include "lang/ir/node.h"

namespace ein::ir {

template <class R>
class StrictVisitor {
 public:
  virtual ~StrictVisitor() = default;
  R visit(const NodeRef& n) {
    switch (n->kind) {
#define EIN_X(k) \
  case Kind::k: return visit_##k(n);
      EIN_NODE_KINDS(EIN_X)
#undef EIN_X
      default: break;
    }
    return R();
  }

 protected:
#define EIN_X(k) virtual R visit_##k(const NodeRef& n) = 0;
  EIN_NODE_KINDS(EIN_X)
#undef EIN_X
};

class RecursiveVisitor {
 public:
  virtual ~RecursiveVisitor() = default;
  // Returns false from pre() to skip a subtree.
  void walk(const NodeRef& n) {
    if (!n || !pre(n)) return;
    for (auto& k : n->kids) walk(k);
    post(n);
  }

 protected:
  virtual bool pre(const NodeRef&) { return true; }
  virtual void post(const NodeRef&) {}
};

class Mutator {
 public:
  virtual ~Mutator() = default;
  NodeRef mutate(const NodeRef& n) {
    if (!n) return n;
    if (NodeRef r = pre(n)) return r;
    std::vector<NodeRef> kids;
    kids.reserve(n->kids.size());
    for (auto& k : n->kids) kids.push_back(mutate(k));
    return post(with_kids(n, std::move(kids)));
  }

 protected:
  // Returning non-null from pre() replaces the subtree without visiting it.
  virtual NodeRef pre(const NodeRef&) { return nullptr; }
  virtual NodeRef post(const NodeRef& n) { return n; }
};

// Calls f on every node of the tree (pre-order).
template <class F>
void for_each_node(const NodeRef& n, F&& f) {
  if (!n) return;
  f(n);
  for (auto& k : n->kids) for_each_node(k, f);
}

// Does `n` read the binding `d` anywhere (a name resolved to it)?
inline bool mentions(const NodeRef& n, DefId d) {
  bool hit = false;
  for_each_node(n, [&](const NodeRef& x) { hit = hit || (x->kind == Kind::Name && x->def == d); });
  return hit;
}

// A lowered function body that only computes a value — no tensor definitions, loops, stores,
// statements, lambdas, comprehensions, matches or strings: what a kernel can inline. Without
// `reads`, also no tensor reads or reductions: a scalar function of its parameters.
inline bool expression_body(const NodeRef& body, bool reads = true) {
  bool ok = true;
  for_each_node(body, [&](const NodeRef& x) {
    switch (x->kind) {
      case Kind::Index:
      case Kind::LReduce: ok = ok && reads; break;
      case Kind::LTensor:
      case Kind::LFor:
      case Kind::LStore:
      case Kind::LAccum:
      case Kind::ExprStmt:
      case Kind::Lambda:
      case Kind::Comp:
      case Kind::Match:
      case Kind::Interp:
      case Kind::StrLit: ok = false; break;
      default: break;
    }
  });
  return ok;
}

}  // namespace ein::ir
