// The loop nest of one lowered clause, read the way the recurrence passes need it.
//
// Why shared: recurrence_cover (which points a clause defines) and recurrence_order (in which
// order the clauses and their loops run) both see a clause as "its LFor chain, the statement
// inside it, and the index it stores at on each axis of its own tensor"; they used to peel the
// nest each in its own copy.
#pragma once
#include <vector>

#include "lang/ir/layout.h"
#include "lang/ir/visitor.h"

namespace ein {

struct LoopNest {
  std::vector<ir::NodeRef> loops;  // the LFor chain, outer to inner
  ir::NodeRef body;                // the statement inside the innermost loop
  std::vector<ir::NodeRef> write;  // the first store to `self`: its index per axis
};

inline LoopNest peel_nest(const ir::NodeRef& nest, ir::DefId self) {
  LoopNest n;
  ir::NodeRef cur = nest;
  while (cur->kind == ir::Kind::LFor) {
    n.loops.push_back(cur);
    cur = ir::lfor_body(*cur);
  }
  n.body = cur;
  ir::for_each_node(cur, [&](const ir::NodeRef& x) {
    if (x->kind == ir::Kind::LStore && x->def == self && n.write.empty()) {
      auto idx = ir::lstore_index(*x);
      n.write.assign(idx.begin(), idx.end());
    }
  });
  return n;
}

}  // namespace ein
