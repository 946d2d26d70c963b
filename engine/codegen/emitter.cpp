#include "engine/codegen/emitter.h"

#include <algorithm>

namespace ein::codegen {

Emitter::Emitter() { chain_.push_back(std::make_unique<Scope>()); }

std::string Emitter::fresh(const char* prefix) { return prefix + std::to_string(counter_++); }

void Emitter::line_at(int level, const std::string& s) {
  Scope& sc = *chain_[static_cast<size_t>(level)];
  sc.code.append(static_cast<size_t>(2 * (level + 1)), ' ');
  sc.code += s;
  sc.code += '\n';
}

const std::string* Emitter::find(const std::string& key) const {
  for (size_t i = chain_.size(); i-- > 0;) {
    auto it = chain_[i]->cse.find(key);
    if (it != chain_[i]->cse.end()) return &it->second;
  }
  return nullptr;
}

void Emitter::remember(int level, const std::string& key, const std::string& name) {
  chain_[static_cast<size_t>(level)]->cse[key] = name;
}

const Val* Emitter::planned(const std::string& key) const {
  for (size_t i = chain_.size(); i-- > 0;) {
    auto it = chain_[i]->planned.find(key);
    if (it != chain_[i]->planned.end()) return &it->second;
  }
  return nullptr;
}

void Emitter::keep(const std::string& key, const Val& v) {
  chain_[static_cast<size_t>(std::clamp(v.level, 0, depth()))]->planned[key] = v;
}

int Emitter::innermost_cond() const {
  for (size_t i = chain_.size(); i-- > 0;)
    if (chain_[i]->cond) return static_cast<int>(i);
  return -1;
}

Val Emitter::define(DType dt, const std::string& ctype, const std::string& expr, int level,
                    Motion m) {
  // The key includes the type: the same text may denote different conversions.
  std::string key = ctype + "|" + expr;
  if (const std::string* hit = find(key)) {
    // A hit in a visible scope: its level is where it was placed, which is <= ours.
    for (size_t i = chain_.size(); i-- > 0;)
      if (chain_[i]->cse.count(key)) return Val{*hit, dt, static_cast<int>(i)};
  }
  int target = depth();
  if (m == Motion::Cheap) target = level;
  else if (m == Motion::Costly) target = std::max(level, innermost_cond());
  if (target < 0) target = 0;
  if (target > depth()) target = depth();
  std::string name = fresh("t");
  line_at(target, "const " + ctype + " " + name + " = " + expr + ";");
  remember(target, key, name);
  return Val{name, dt, target};
}

void Emitter::open(const std::string& header, bool cond) {
  // The header is written when the scope closes, so values hoisted into the parent meanwhile
  // land before it.
  auto s = std::make_unique<Scope>();
  s->header = header;
  s->cond = cond;
  chain_.push_back(std::move(s));
}

void Emitter::close(const std::string& footer) {
  std::unique_ptr<Scope> s = std::move(chain_.back());
  chain_.pop_back();
  Scope& parent = *chain_.back();
  std::string pad(static_cast<size_t>(2 * (depth() + 1)), ' ');
  std::string header = s->header;  // may hold pragma lines
  for (size_t at = 0; (at = header.find('\n', at)) != std::string::npos; at += pad.size() + 1)
    header.insert(at + 1, pad);
  parent.code += pad + header + "\n";
  parent.code += s->code;
  parent.code += pad + footer;
  parent.code += '\n';
}

void Emitter::close_twin(const std::string& footer, const std::string& pragma, const std::string& cond) {
  Scope& s = *chain_.back();
  size_t at = s.header.find(pragma);
  // A body holding a label (a short-circuit reduction's `r_done:;`) is not copied: two copies
  // in one function would define the label twice (a recurrence step with an inlined softmax's
  // adjoint, whose `any` exits early). The loop then has no serial twin, which only costs the
  // thread team's start when its work is small.
  if (at == std::string::npos || footer.empty() || s.code.find("_done:;") != std::string::npos) {
    close(footer);
    return;
  }
  // header = [guard prefix] pragma loop-head; footer = "}" (loop) [+ "}" (guard's else)].
  std::string pre = s.header.substr(0, at), head = s.header.substr(at + pragma.size());
  std::string pad(static_cast<size_t>(2 * depth()), ' ');
  std::string body = s.code;
  s.header = pre + "if (" + cond + ") {\n" + pragma + head;
  s.code = body + pad + "}\n" + pad + "} else {\n" + pad + head + "\n" + body;
  close("}\n" + pad + "}" + footer.substr(1));
}

Emitter::Detour::Detour(Emitter& e, int level) : e_(e) {
  size_t keep = static_cast<size_t>(level) + 1;
  while (e_.chain_.size() > keep) {
    saved_.push_back(std::move(e_.chain_.back()));
    e_.chain_.pop_back();
  }
}

Emitter::Detour::~Detour() {
  while (!saved_.empty()) {
    e_.chain_.push_back(std::move(saved_.back()));
    saved_.pop_back();
  }
}

std::string Emitter::text() const { return chain_.front()->code; }

}  // namespace ein::codegen
