// The one tree type of the compiler. The parser builds it (the AST), the resolver rebuilds it with
// DefIds, passes rewrite it, and Einstein lowering produces its loop/reduction kinds. Nodes are
// immutable and shared; analyses keep their facts in side tables keyed by Node::id.
//
// Kid layouts are fixed per kind: the comments below describe them, lang/ir/layout.h states
// them as a table that the factories check, and generates the named accessors from it.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lang/ir/mod_path.h"
#include "lang/syntax/source.h"

namespace ein::ir {

// Identity of a definition (thesis §3.3). Crates: kUserCrate for cells and local modules,
// kBuiltinCrate for builtins, kStdCrate for the standard library.
struct DefId {
  uint32_t crate = 0;
  uint32_t index = 0;  // 0 = none
  bool valid() const { return index != 0; }
  bool operator==(const DefId&) const = default;
  auto operator<=>(const DefId&) const = default;
};
inline constexpr uint32_t kUserCrate = 0;
inline constexpr uint32_t kBuiltinCrate = 1;
inline constexpr uint32_t kStdCrate = 2;

// name: field `name`, aux: field `aux`, ival/fval/flags: payload fields.
// clang-format off
#define EIN_NODE_KINDS(X)                                                                        \
  /* ---- program structure ---- */                                                              \
  X(Program)      /* kids: stmt...   flags: kHasTail => last kid is the trailing expression */   \
  X(Block)        /* kids: stmt...   flags: kHasTail => last kid is the block's value       */   \
  /* ---- literals and atoms ---- */                                                             \
  X(IntLit)       /* ival = value (non-negative; '-' is Unary)                              */   \
  X(FloatLit)     /* fval = value, name = source text                                        */   \
  X(BoolLit)      /* ival = 0/1                                                              */   \
  X(StrLit)       /* name = decoded text (escapes processed)                                */   \
  X(Interp)       /* kids: (StrLit | InterpHole)...  an interpolated string                 */   \
  X(InterpHole)   /* kids: expr   aux = format spec after ':' ("" if none), e.g. ".4f"      */   \
  X(Name)         /* name = identifier; def = resolved DefId (after resolution)             */   \
  X(Path)         /* path = segments (>= 2); name = their spelling; def = resolved item     */   \
  X(ArrayLit)     /* kids: element...                                                        */   \
  X(TupleLit)     /* kids: element... (>= 2, or 0 for unit "()")                            */   \
  X(RangeLit)     /* kids: lo, hi   flags: kInclusive for "..="                             */   \
  /* ---- operators ---- */                                                                      \
  X(Unary)        /* kids: operand  ival = UnOp                                             */   \
  X(Binary)       /* kids: lhs, rhs ival = BinOp                                            */   \
  X(Cast)         /* kids: expr, type                                                        */   \
  X(Call)         /* kids: callee, arg...   ("x |> f" parses to Call(f, x))                 */   \
  X(Index)        /* kids: base, index...   an index is an expr or a RestIdx                */   \
  X(RestIdx)      /* name = rest name in an access: x[..b, i]                               */   \
  X(Member)       /* kids: base   name = field; kTupleField: ival = position ("t.1")     */   \
  X(Diff)         /* kids: expr   "@expr" (autodiff differential)                           */   \
  /* ---- control ---- */                                                                        \
  X(If)           /* kids: cond, then(Block), else?(Block or If)                            */   \
  X(Match)        /* kids: scrutinee, Arm...                                                 */   \
  X(Arm)          /* kids: pattern, guard?, body                                             */   \
  X(Lambda)       /* kids: body, Param...                                                    */   \
  X(Param)        /* name = parameter name; kids: type?                                      */   \
  X(Comp)         /* kids: element, (CompGen | CompGuard | CompLet)...                      */   \
  X(CompGen)      /* name = variable; kids: iterable                                         */   \
  X(CompGuard)    /* kids: cond                                                              */   \
  X(CompLet)      /* name = variable; kids: value                                            */   \
  /* ---- Einstein notation ---- */                                                              \
  X(Reduce)       /* name = op (sum prod max min all any argmax argmin); kids: body, slot...*/   \
  X(IdxVar)       /* name = index name                                                       */   \
  X(IdxIn)        /* name = index name; kids: range expr  ("i in 0..N")                     */   \
  X(IdxLit)       /* ival = literal position (in declarations only)                         */   \
  X(IdxRest)      /* name = rest name ("..b") in declaration or reduction slots             */   \
  X(Where)        /* kids: expr, (WBind | WGuard | WDerived)..., WElse?                     */   \
  X(WBind)        /* name = local; kids: value    ("where z = expr")                         */   \
  X(WDerived)     /* name = derived index; kids: index expr (made by classify_where)       */   \
  X(WGuard)       /* kids: cond                                                              */   \
  X(WElse)        /* kids: fallback value ("where cond else e")                             */   \
  /* ---- patterns ---- */                                                                       \
  X(PWild)        /* "_"                                                                     */   \
  X(PLit)         /* kids: literal expr (IntLit/FloatLit/BoolLit/StrLit, or Unary neg of one)*/  \
  X(PRange)       /* kids: lo, hi (literal exprs)   flags: kInclusive                       */   \
  X(PBind)        /* name = bound variable                                                   */   \
  X(PAt)          /* name = bound variable; kids: pattern   ("n @ 1..=9": bind and test)    */   \
  X(PArray)       /* kids: pattern... with at most one PRest   ("[a, ..rest, z]")          */   \
  X(PRest)        /* name = binding of the middle part, or "" for a bare ".."              */   \
  X(POr)          /* kids: pattern...                                                        */   \
  X(PTuple)       /* kids: pattern...                                                        */   \
  /* ---- types (annotations) ---- */                                                            \
  X(TyPrim)       /* name = "i32" "f64" "bool" "str" "int" "float" ...                       */   \
  X(TyArray)      /* kids: elem, TyDim...   flags: kAnyRank for "[T; *]"; no dims = "[T]"  */   \
  X(TyDim)        /* ival = extent, or -1 for "?"                                            */   \
  X(TyJagged)     /* kids: elem                                                              */   \
  X(TyTuple)      /* kids: elem... (0 kids = unit "()")                                      */   \
  X(TyFn)         /* kids: ret, param...                                                     */   \
  /* ---- statements and items ---- */                                                          \
  X(Let)          /* kids: pattern (PBind | PTuple), type?, value                            */   \
  X(EinDecl)      /* name = tensor name; kids: value, slot... (IdxVar|IdxIn|IdxLit|IdxRest) */   \
  X(Const)        /* name; kids: type?, value       flags: kPub                             */   \
  X(Fn)           /* name; kids: ret_type?, body(Block), Param...    flags: kPub            */   \
  X(DiffFn)       /* "@fn": same layout as Fn                                                */   \
  X(Use)          /* path; name = its spelling; ival = UseKind; aux = alias; kids: UseItem...*/   \
  X(UseItem)      /* path below the Use; name = its spelling; aux = alias or ""            */   \
  X(Mod)          /* name; kids: item... (inline) ; ival = 1 if inline  flags: kPub         */   \
  X(StructDecl)   /* name (parsed only; E011 later)                                          */   \
  X(EnumDecl)     /* name (parsed only; E011 later)                                          */   \
  X(ExprStmt)     /* kids: expr (an expression statement ending in ';')                     */   \
  X(Error)        /* placeholder produced by parser error recovery                           */   \
  /* ---- made by passes (never by the parser) ---- */                                          \
  X(EinGroup)     /* name, def = the tensor; kids: EinDecl clause... (group_einstein)       */   \
  X(LTensor)      /* def = tensor; kids: LShape, stmt...  ival = DType; materialises a tensor*/  \
  X(LShape)       /* kids: extent expr... (allocation shape, then element shape)            */   \
  X(LFor)         /* def = loop var; kids: lo, hi, body   flags: kParallel/kSequential      */   \
  X(LStore)       /* def = tensor; kids: value, index...                                     */   \
  X(LAccum)       /* def = tensor; kids: value, index...  adds value at the point (scatter) */   \
  X(LLet)         /* def = local; kids: value   (statement inside lowered loops)             */   \
  X(LIf)          /* kids: cond, then-stmt, else-stmt?                                       */   \
  X(LSeq)         /* kids: stmt...                                                           */   \
  X(LCheck)       /* kids: cond, help? (StrLit)  name = code, aux = message; fails if !cond */  \
  X(LReduce)      /* name = op; kids: body, LoopVar..., LCheck...  (guards: LGuard in body)*/   \
  X(LoopVar)      /* def = index; kids: lo, hi                                               */   \
  X(LLetIn)       /* def = local; kids: value, body  (expression form of a where-binding)    */   \
  X(DimOf)        /* kids: tensor expr   ival = axis  (runtime extent)                       */   \
  X(IMin)         /* kids: a, b  (integer min, range intersection)                           */   \
  X(IMax)         /* kids: a, b  (integer max)                                               */   \
  X(LGuard)       /* kids: cond, value: in a reduction body, a false cond skips the point  */   \
  X(LNop)         /* does nothing (an item statement after lowering)                         */
// clang-format on

enum class Kind : uint8_t {
#define EIN_X(k) k,
  EIN_NODE_KINDS(EIN_X)
#undef EIN_X
      Count_
};
const char* kind_name(Kind k);

enum class UnOp : int64_t { Neg, Not };
enum class BinOp : int64_t { Add, Sub, Mul, Div, Mod, Pow, Eq, Ne, Lt, Le, Gt, Ge, And, Or, In };
const char* binop_spelling(BinOp op);
const char* unop_spelling(UnOp op);

enum UseKind : int64_t { UsePath = 0, UseList = 1, UseGlob = 2 };

// Flag bits.
inline constexpr uint32_t kHasTail = 1u << 0;
inline constexpr uint32_t kInclusive = 1u << 1;
inline constexpr uint32_t kPub = 1u << 2;
inline constexpr uint32_t kAnyRank = 1u << 3;
inline constexpr uint32_t kParallel = 1u << 4;    // LFor: iterations independent
inline constexpr uint32_t kSequential = 1u << 5;  // LFor: recurrence axis, in order
inline constexpr uint32_t kLocal = 1u << 6;       // Name: a frame slot (ival = slot)
inline constexpr uint32_t kProven = 1u << 7;      // Index: in bounds by range analysis
inline constexpr uint32_t kPrepared = 1u << 8;    // Fn: grouping/where-classification done
inline constexpr uint32_t kWindowed = 1u << 9;    // Index/LStore: circular buffer on axis 0
inline constexpr uint32_t kHasElem = 1u << 10;    // LTensor: elements are arrays
inline constexpr uint32_t kReverse = 1u << 11;    // EinGroup/LFor: recurrence runs from high to low
inline constexpr uint32_t kJagged = 1u << 12;     // ArrayLit: builds a list of rows (jagged[T])
inline constexpr uint32_t kUnaryPlus = 1u << 13;  // Binary: `+x`, parsed as `x * 1` (identity on numbers)
// EinGroup/LTensor: an adjoint or tangent declaration written by autodiff. Its points that no
// clause covers are zero by construction (SPEC §5.4), so recurrence_cover asks for no base case.
inline constexpr uint32_t kAdjoint = 1u << 14;
// Member: a tuple field (`t.0`), its position in ival; the name keeps the spelling.
inline constexpr uint32_t kTupleField = 1u << 15;
// LTensor: more statements of a tensor an earlier LTensor of the same def allocated (a
// checkpointed sweep's segment, lang/passes/checkpoint.h): nothing is allocated again.
inline constexpr uint32_t kResume = 1u << 16;
// LTensor: later (resumed) statements write every point before anything reads one, so a reused
// buffer is not zero-filled first (a checkpoint tensor: 10 MB for the 10^3 x 10^4 heat gradient).
inline constexpr uint32_t kFilledLater = 1u << 17;
// Call: reads nothing that varies over the innermost declaration around it and calls a function
// without effects: the interpreter computes it once per run of that declaration
// (lang/passes/lower_einstein.cpp mark_invariant_calls, engine/interp/call.cpp).
inline constexpr uint32_t kInvariantCall = 1u << 18;

struct Node;
using NodeRef = std::shared_ptr<const Node>;

struct Node {
  Kind kind;
  Span span;
  std::vector<NodeRef> kids;
  std::string name;
  std::string aux;
  ModPath path;  // Path, Use, UseItem: the written module path (resolution reads only this)
  DefId def;
  int64_t ival = 0;
  double fval = 0.0;
  uint32_t flags = 0;
  int32_t slot = -1;  // frame slot of a local (set by frame layout after lowering)
  int8_t dt = -1;     // element DType of the node's value, when scalar-based (frame layout)
  uint32_t id = 0;    // unique per process; key of all side tables

  bool has(uint32_t f) const { return (flags & f) != 0; }
  const NodeRef& kid(size_t i) const { return kids[i]; }
  size_t size() const { return kids.size(); }
};

// ---- construction -------------------------------------------------------------------------
// The only way to make nodes. Assigns a fresh id and checks the kid layout (check_layout).
struct NodeInit {
  Kind kind;
  Span span{};
  std::vector<NodeRef> kids{};
  std::string name{};
  std::string aux{};
  ModPath path{};
  DefId def{};
  int64_t ival = 0;
  double fval = 0.0;
  uint32_t flags = 0;
};
NodeRef make(NodeInit init);

// Convenience factories for the common kinds.
NodeRef make_int(int64_t v, Span s = {});
NodeRef make_float(double v, Span s = {});
NodeRef make_bool(bool v, Span s = {});
NodeRef make_str(std::string v, Span s = {});
NodeRef make_name(std::string name, DefId def = {}, Span s = {});
NodeRef make_unary(UnOp op, NodeRef a, Span s = {});
NodeRef make_binary(BinOp op, NodeRef a, NodeRef b, Span s = {});
NodeRef make_call(NodeRef callee, std::vector<NodeRef> args, Span s = {});

// Rewrites keep the node's id: a rewritten node is "the same node with new parts", so facts in
// side tables (types, call targets) survive mutator passes. Brand-new nodes come from make().
// A copy of `n` with new kids. Returns `n` itself when the kids are pointer-identical, so
// mutators preserve sharing.
NodeRef with_kids(const NodeRef& n, std::vector<NodeRef> kids);
// A copy of `n` with a different DefId.
NodeRef with_def(const NodeRef& n, DefId def);
// A copy of `n` with arbitrary field edits applied by `edit`.
NodeRef edited(const NodeRef& n, const std::function<void(Node&)>& edit);
// A deep copy with fresh ids everywhere (used when one source subtree must appear twice with
// different facts).
NodeRef fresh_copy(const NodeRef& n);

// ---- printing and comparison ----------------------------------------------------------------
// S-expression dump: (Binary + (Name x #0:12) (IntLit 1)). DefIds print as #crate:index.
struct PrintOptions {
  bool defids = true;  // print #c:i after names
  bool spans = false;  // print @line:col
  int indent = 2;      // pretty-print width per level (0 = one line)
};
std::string to_sexpr(const NodeRef& n, const PrintOptions& opt = {});
// Structural equality and hash: ignore id and span, compare everything else recursively.
bool structurally_equal(const NodeRef& a, const NodeRef& b);
uint64_t structural_hash(const NodeRef& n);

}  // namespace ein::ir

// Named accessors and the layout table (after Node, so layout.h can define inline accessors).
#include "lang/ir/layout.h"  // IWYU pragma: export

template <>
struct std::hash<ein::ir::DefId> {
  size_t operator()(const ein::ir::DefId& d) const noexcept {
    return (static_cast<size_t>(d.crate) << 32) ^ d.index;
  }
};
