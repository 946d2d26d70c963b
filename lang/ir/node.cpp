#include "lang/ir/node.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace ein::ir {
namespace {

std::atomic<uint32_t> g_next_id{1};

const char* const kKindNames[] = {
#define EIN_X(k) #k,
    EIN_NODE_KINDS(EIN_X)
#undef EIN_X
};

uint64_t mix(uint64_t h, uint64_t v) {
  // FNV-1a style mixing over 64-bit words; structure hashes only need to be stable in-process
  // and across processes for the kernel cache, so no randomisation.
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

uint64_t hash_str(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string fmt_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void print_rec(std::ostringstream& os, const NodeRef& n, const PrintOptions& opt, int depth) {
  if (!n) {
    os << "_";
    return;
  }
  os << "(" << kind_name(n->kind);
  switch (n->kind) {
    case Kind::IntLit: os << " " << n->ival; break;
    case Kind::FloatLit: os << " " << (n->name.empty() ? fmt_double(n->fval) : n->name); break;
    case Kind::BoolLit: os << (n->ival ? " true" : " false"); break;
    case Kind::StrLit: {
      os << " \"";
      for (char c : n->name) {
        if (c == '\n') os << "\\n";
        else if (c == '"') os << "\\\"";
        else if (c == '\\') os << "\\\\";
        else os << c;
      }
      os << "\"";
      break;
    }
    case Kind::Unary: os << " " << unop_spelling(static_cast<UnOp>(n->ival)); break;
    case Kind::Binary: os << " " << binop_spelling(static_cast<BinOp>(n->ival)); break;
    case Kind::IdxLit: case Kind::TyDim: os << " " << n->ival; break;
    case Kind::DimOf: os << " axis=" << n->ival; break;
    case Kind::Use: os << " " << n->name << " kind=" << n->ival; break;
    default:
      if (!n->name.empty()) os << " " << n->name;
      break;
  }
  if (!n->aux.empty()) os << " aux=" << n->aux;
  if (opt.defids && n->def.valid()) os << " #" << n->def.crate << ":" << n->def.index;
  if (opt.defids && n->slot >= 0) os << " $" << n->slot;
  if (n->flags) {
    os << " [";
    bool first = true;
    auto flag = [&](uint32_t f, const char* s) {
      if (n->has(f)) {
        os << (first ? "" : " ") << s;
        first = false;
      }
    };
    flag(kHasTail, "tail");
    flag(kInclusive, "incl");
    flag(kPub, "pub");
    flag(kAnyRank, "anyrank");
    flag(kParallel, "parallel");
    flag(kSequential, "sequential");
    flag(kLocal, "local");
    flag(kProven, "proven");
    flag(kPrepared, "prepared");
    flag(kWindowed, "windowed");
    flag(kHasElem, "elem");
    flag(kReverse, "reverse");
    flag(kJagged, "jagged");
    flag(kUnaryPlus, "unaryplus");
    flag(kAdjoint, "adjoint");
    flag(kTupleField, "field");
    flag(kResume, "resume");
    flag(kFilledLater, "filled_later");
    for (uint32_t b = 18; b < 32; ++b) flag(1u << b, ("f" + std::to_string(b)).c_str());
    os << "]";
  }
  if (opt.spans && n->span.valid()) os << " @" << n->span.lo << "-" << n->span.hi;
  bool leaf_kids = true;
  for (auto& k : n->kids)
    if (k && !k->kids.empty()) leaf_kids = false;
  for (auto& k : n->kids) {
    if (opt.indent > 0 && !leaf_kids) {
      os << "\n" << std::string(static_cast<size_t>((depth + 1) * opt.indent), ' ');
    } else {
      os << " ";
    }
    print_rec(os, k, opt, depth + 1);
  }
  os << ")";
}

// Layout specs by kind, from EIN_NODE_LAYOUTS (nullptr = unchecked).
struct LayoutTable {
  const char* spec[static_cast<size_t>(Kind::Count_)] = {};
  LayoutTable() {
#define EIN_L(kind, s) spec[static_cast<size_t>(Kind::kind)] = s;
#define EIN_NONE(kind, pos, acc)
    EIN_NODE_LAYOUTS(EIN_L, EIN_NONE, EIN_NONE)
#undef EIN_L
#undef EIN_NONE
    spec[static_cast<size_t>(Kind::DiffFn)] = spec[static_cast<size_t>(Kind::Fn)];
    spec[static_cast<size_t>(Kind::LAccum)] = spec[static_cast<size_t>(Kind::LStore)];
  }
};
const LayoutTable& layouts() {
  static const LayoutTable t;
  return t;
}

[[noreturn]] void bad_layout(const Node& n, const std::string& what) {
  throw std::logic_error(std::string("internal compiler error: ") + kind_name(n.kind) +
                         " node " + what + " (layout \"" +
                         layouts().spec[static_cast<size_t>(n.kind)] + "\")");
}

}  // namespace

void check_layout(const Node& n) {
  const char* spec = layouts().spec[static_cast<size_t>(n.kind)];
  if (!spec) return;
  size_t fixed = 0, optional_end = 0;
  bool tail = false;
  for (const char* c = spec; *c; ++c) {
    if (*c == '*') tail = true;
    else if (*c == '?') ++optional_end;
    else ++fixed;
  }
  size_t k = n.kids.size();
  if (k < fixed) bad_layout(n, "has " + std::to_string(k) + " kids, needs at least " + std::to_string(fixed));
  if (!tail && k > fixed + optional_end)
    bad_layout(n, "has " + std::to_string(k) + " kids, allows at most " + std::to_string(fixed + optional_end));
  size_t pos = 0;
  for (const char* c = spec; *c && pos < k; ++c) {
    if (*c == '*') {
      for (; pos < k; ++pos)
        if (!n.kids[pos]) bad_layout(n, "has a null kid at tail position " + std::to_string(pos));
      break;
    }
    if (*c == 'r' && !n.kids[pos]) bad_layout(n, "has a null required kid " + std::to_string(pos));
    ++pos;
  }
}

bool has_layout_of(const Node& n, Kind k) {
  return n.kind == k || (k == Kind::Fn && n.kind == Kind::DiffFn) || (k == Kind::LStore && n.kind == Kind::LAccum);
}

void detail::layout_misuse(const Node& n, Kind expected, const char* accessor) {
  throw std::logic_error(std::string("internal compiler error: ") + accessor + " applied to a " +
                         kind_name(n.kind) + " node (it reads " + kind_name(expected) + ")");
}

const char* kind_name(Kind k) {
  auto i = static_cast<size_t>(k);
  return i < static_cast<size_t>(Kind::Count_) ? kKindNames[i] : "?";
}

const char* binop_spelling(BinOp op) {
  switch (op) {
    case BinOp::Add: return "+";
    case BinOp::Sub: return "-";
    case BinOp::Mul: return "*";
    case BinOp::Div: return "/";
    case BinOp::Mod: return "%";
    case BinOp::Pow: return "**";
    case BinOp::Eq: return "==";
    case BinOp::Ne: return "!=";
    case BinOp::Lt: return "<";
    case BinOp::Le: return "<=";
    case BinOp::Gt: return ">";
    case BinOp::Ge: return ">=";
    case BinOp::And: return "&&";
    case BinOp::Or: return "||";
    case BinOp::In: return "in";
  }
  return "?";
}

const char* unop_spelling(UnOp op) { return op == UnOp::Neg ? "-" : "!"; }

NodeRef make(NodeInit init) {
  auto n = std::make_shared<Node>();
  n->kind = init.kind;
  n->span = init.span;
  n->kids = std::move(init.kids);
  n->name = std::move(init.name);
  n->aux = std::move(init.aux);
  n->path = std::move(init.path);
  n->def = init.def;
  n->ival = init.ival;
  n->fval = init.fval;
  n->flags = init.flags;
  n->slot = -1;
  n->dt = -1;
  n->id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  check_layout(*n);
  return n;
}

NodeRef make_int(int64_t v, Span s) { return make({.kind = Kind::IntLit, .span = s, .ival = v}); }
NodeRef make_float(double v, Span s) {
  return make({.kind = Kind::FloatLit, .span = s, .fval = v});
}
NodeRef make_bool(bool v, Span s) {
  return make({.kind = Kind::BoolLit, .span = s, .ival = v ? 1 : 0});
}
NodeRef make_str(std::string v, Span s) {
  return make({.kind = Kind::StrLit, .span = s, .name = std::move(v)});
}
NodeRef make_name(std::string name, DefId def, Span s) {
  return make({.kind = Kind::Name, .span = s, .name = std::move(name), .def = def});
}
NodeRef make_unary(UnOp op, NodeRef a, Span s) {
  return make({.kind = Kind::Unary, .span = s, .kids = {std::move(a)},
               .ival = static_cast<int64_t>(op)});
}
NodeRef make_binary(BinOp op, NodeRef a, NodeRef b, Span s) {
  return make({.kind = Kind::Binary, .span = s, .kids = {std::move(a), std::move(b)},
               .ival = static_cast<int64_t>(op)});
}
NodeRef make_call(NodeRef callee, std::vector<NodeRef> args, Span s) {
  std::vector<NodeRef> kids;
  kids.reserve(args.size() + 1);
  kids.push_back(std::move(callee));
  for (auto& a : args) kids.push_back(std::move(a));
  return make({.kind = Kind::Call, .span = s, .kids = std::move(kids)});
}

NodeRef with_kids(const NodeRef& n, std::vector<NodeRef> kids) {
  if (kids.size() == n->kids.size()) {
    bool same = true;
    for (size_t i = 0; i < kids.size() && same; ++i) same = kids[i] == n->kids[i];
    if (same) return n;
  }
  return edited(n, [&](Node& m) { m.kids = std::move(kids); });
}

NodeRef with_def(const NodeRef& n, DefId def) {
  return edited(n, [&](Node& m) { m.def = def; });
}

NodeRef edited(const NodeRef& n, const std::function<void(Node&)>& edit) {
  auto m = std::make_shared<Node>(*n);
  edit(*m);
  check_layout(*m);
  return m;
}

NodeRef fresh_copy(const NodeRef& n) {
  if (!n) return n;
  auto m = std::make_shared<Node>(*n);
  for (auto& k : m->kids) k = fresh_copy(k);
  m->id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  return m;
}

std::string to_sexpr(const NodeRef& n, const PrintOptions& opt) {
  std::ostringstream os;
  print_rec(os, n, opt, 0);
  return os.str();
}

bool structurally_equal(const NodeRef& a, const NodeRef& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  if (a->kind != b->kind || a->name != b->name || a->aux != b->aux || a->path != b->path || a->def != b->def ||
      a->ival != b->ival || a->flags != b->flags || a->slot != b->slot || a->kids.size() != b->kids.size())
    return false;
  if (std::memcmp(&a->fval, &b->fval, sizeof(double)) != 0) return false;
  for (size_t i = 0; i < a->kids.size(); ++i)
    if (!structurally_equal(a->kids[i], b->kids[i])) return false;
  return true;
}

uint64_t structural_hash(const NodeRef& n) {
  if (!n) return 0x51ed270b27ull;
  uint64_t h = static_cast<uint64_t>(n->kind) + 1;
  h = mix(h, hash_str(n->name));
  h = mix(h, hash_str(n->aux));
  for (const std::string& seg : n->path.segs) h = mix(h, hash_str(seg));
  h = mix(h, (static_cast<uint64_t>(n->def.crate) << 32) | n->def.index);
  h = mix(h, static_cast<uint64_t>(n->ival));
  uint64_t fb;
  std::memcpy(&fb, &n->fval, sizeof fb);
  h = mix(h, fb);
  h = mix(h, n->flags);
  h = mix(h, static_cast<uint64_t>(static_cast<int64_t>(n->slot)));
  for (auto& k : n->kids) h = mix(h, structural_hash(k));
  return h;
}

}  // namespace ein::ir
