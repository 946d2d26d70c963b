// The memo of nodes lang/passes/memo_plan.cpp marks (ir::kInvariantCall): a call, a block `let`
// or a local tensor inside loops whose value depends on fewer loop variables than the point.
// Its value is kept with the values of the frame slots it read (its free locals: loop variables,
// block locals, parameters); the next evaluation with the same slot values reuses it. The pass
// proves the rest: no effects, and no read of a tensor while it changes. Entries live for one
// statement of the tensor around them, one call frame, or one top-level statement.
#include <algorithm>
#include <cstring>

#include "engine/interp/interp_impl.h"
#include "lang/ir/visitor.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;

namespace {

// The same value for every reader: numbers by value (floats bit for bit), arrays and other
// objects by identity. A tensor kept in a key stays alive with the entry, so its address cannot
// be reused by a new array while the entry exists.
bool same(const Value& a, const Value& b) {
  if (a.tag != b.tag) return false;
  switch (a.tag) {
    case Value::Tag::Unit: return true;
    case Value::Tag::Bool: return a.b == b.b;
    case Value::Tag::Int: return a.dt == b.dt && a.i == b.i;
    case Value::Tag::Float: return a.dt == b.dt && std::memcmp(&a.f, &b.f, sizeof a.f) == 0;
    case Value::Tag::Range: return a.r[0] == b.r[0] && a.r[1] == b.r[1];
    case Value::Tag::Tensor:
      return a.obj == b.obj && a.window.rows == b.window.rows && a.window.logical0 == b.window.logical0;
    default: return a.obj == b.obj;
  }
}

}  // namespace

std::vector<Value> Interpreter::Impl::memo_key(const NodeRef& n) {
  const auto where = std::make_pair(n->id, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(unit)));
  auto it = memo_slot_lists.find(where);
  if (it == memo_slot_lists.end()) {
    // The slots read inside the node, less those it defines itself (its own loops and lets:
    // their values before it runs are leftovers of its previous run).
    std::vector<int32_t> defined, read;
    ir::for_each_node(n, [&](const NodeRef& k) {
      if (k->slot < 0) return;
      (k->kind == Kind::Name ? read : defined).push_back(k->slot);
    });
    std::vector<int32_t> free;
    for (int32_t s : read)
      if (std::find(defined.begin(), defined.end(), s) == defined.end() &&
          std::find(free.begin(), free.end(), s) == free.end())
        free.push_back(s);
    it = memo_slot_lists.emplace(where, std::move(free)).first;
  }
  std::vector<Value> key;
  key.reserve(it->second.size());
  for (int32_t s : it->second) key.push_back((*frame)[static_cast<size_t>(s)]);
  return key;
}

const Value* Interpreter::Impl::memo_find(const NodeRef& n, const std::vector<Value>& key) {
  auto it = invariant_values.find({n->id, frame_gen});
  if (it == invariant_values.end() || it->second.key.size() != key.size()) return nullptr;
  for (size_t i = 0; i < key.size(); ++i)
    if (!same(it->second.key[i], key[i])) return nullptr;
  return &it->second.value;
}

void Interpreter::Impl::memo_keep(const NodeRef& n, std::vector<Value> key, const Value& v) {
  auto k = std::make_pair(n->id, frame_gen);
  auto [it, fresh] = invariant_values.try_emplace(k);
  // One entry per node: loops visit a key's points together, so the last key is the one to keep.
  it->second.key = std::move(key);
  it->second.value = v;
  if (fresh) invariant_log.push_back(k);
}

}  // namespace ein
