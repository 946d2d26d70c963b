// Internal to engine/codegen: a scoped C++ text emitter with common-subexpression elimination
// and loop-invariant code motion (seeds: A_iNF §3-4, Ein §3.6 "outlining").
//
// Code is built as a chain of open scopes (kernel body, loops, branches). A pure value is
// declared once, in the outermost scope where all its operands exist — "inserted at the
// outermost point where it does not invalidate lexical scope constraints" — and found again by
// its C text, which is canonical because operands are SSA temporaries.
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "lang/ir/dtype.h"

namespace ein::codegen {

// How far a value may move: Cheap pure values cross loops and branches, Costly ones (calls,
// reductions) cross loops but not branches (evaluating them speculatively would waste time),
// Pinned ones (may fail, read memory being written, or are mutable) stay where they are.
enum class Motion { Cheap, Costly, Pinned };

// Extents of allocated tensors (and loop variables bounded by them) are below 2^48: no memory
// holds more elements.
constexpr int kExtentBits = 48;

struct Val {
  std::string c;           // C expression: a name or a literal
  DType dt = DType::I32;
  int level = 0;           // scope where the value exists (0 = kernel entry)
  bool index = false;      // an int64 loop index (dt is the language type it has as a value)
  int bits = 64;           // indices: |value| < 2^bits is known (extents and loop variables
                           // over them: kExtentBits). Arithmetic whose result stays below
                           // 2^63 by these bounds is plain C; anything else is checked (E006)
  bool is_const = false;   // an integer literal, value in `ival`
  int64_t ival = 0;
};

struct Scope {
  std::string header;
  std::string code;
  bool cond = false;
  std::unordered_map<std::string, std::string> cse;
  std::unordered_map<std::string, Val> planned;  // values of cse_plan's groups (Gen::value)
};

class Emitter {
 public:
  Emitter();
  int depth() const { return static_cast<int>(chain_.size()) - 1; }
  std::string fresh(const char* prefix);

  void line(const std::string& s) { line_at(depth(), s); }
  void line_at(int level, const std::string& s);

  // Declares `const T name = expr;` for a value whose operands exist at `level`, in the scope
  // its Motion allows, or returns the temporary that already holds the same expression.
  Val define(DType dt, const std::string& ctype, const std::string& expr, int level, Motion m);
  // Looks up an expression already defined in a visible scope.
  const std::string* find(const std::string& key) const;
  void remember(int level, const std::string& key, const std::string& name);
  // A value of a planned common subexpression (lang/passes/cse_plan.h) visible here, by its key;
  // keep() records one in the scope at its level.
  const Val* planned(const std::string& key) const;
  void keep(const std::string& key, const Val& v);

  // Scopes: `header` opens (e.g. "for (...) {"), close() appends "}" and moves the text into
  // the parent. Loop scopes bound loop variables; cond scopes are branches.
  void open(const std::string& header, bool cond);
  void close(const std::string& footer = "}");
  // Closes a loop scope whose header holds the OpenMP line `pragma` (with an `if(cond)` clause)
  // as `if (cond) { loop with pragma } else { the same loop without it }`: entering a parallel
  // region costs ~0.35 µs even when its if() is false, which adds up when a sequential loop (a
  // recurrence's time axis) enters it at every step. `footer` as for close().
  void close_twin(const std::string& footer, const std::string& pragma, const std::string& cond);
  // A scope's header can be rewritten until it closes (loops learn their guards late).
  std::string& header(int level) { return chain_[static_cast<size_t>(level)]->header; }
  bool is_cond(int level) const { return chain_[static_cast<size_t>(level)]->cond; }
  // The innermost branch scope at or below the current depth (-1: none).
  int innermost_cond() const;

  // Emitting into an ancestor scope: the scopes above `level` are set aside until ~Detour.
  class Detour {
   public:
    Detour(Emitter& e, int level);
    ~Detour();
    Detour(const Detour&) = delete;
    Detour& operator=(const Detour&) = delete;

   private:
    Emitter& e_;
    std::vector<std::unique_ptr<Scope>> saved_;
  };

  // The finished text of the outermost scope (call when every other scope is closed).
  std::string text() const;

 private:
  std::vector<std::unique_ptr<Scope>> chain_;
  int counter_ = 0;
};

}  // namespace ein::codegen
