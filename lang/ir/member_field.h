// The fields a Member node (`x.shape`, `t.1`) can name, read once from the node. Type inference,
// shape analysis, the interpreter and codegen switch on this enum; the spelling in `name` is
// only shown to the user (an unknown field's message).
#pragma once
#include <cstdint>

#include "lang/ir/node.h"

namespace ein::ir {

enum class MemberField : uint8_t {
  Tuple,    // `t.1`: a tuple element, its position in the node's ival
  Shape,    // `.shape`: the extents, an i32 vector
  Length,   // `.length`: the extent of axis 0 (1 for a scalar), a list's or string's length
  Size,     // `.size`: the number of elements
  Rank,     // `.rank`: the number of axes
  Unknown,  // any other name: an E002 where it is used
};

inline MemberField member_field(const Node& n) {
  if (n.has(kTupleField)) return MemberField::Tuple;
  if (n.name == "shape") return MemberField::Shape;
  if (n.name == "length") return MemberField::Length;
  if (n.name == "size") return MemberField::Size;
  if (n.name == "rank") return MemberField::Rank;
  return MemberField::Unknown;
}
inline MemberField member_field(const NodeRef& n) { return member_field(*n); }

}  // namespace ein::ir
