// Helpers for the interpreter tests: a Session whose print() output is captured, and accessors
// for what a cell did (output, first error code, the line of its primary span).
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "engine/session/session.h"
#include "engine/value/value.h"

namespace ein::testing {

class Sess {
 public:
  explicit Sess(int max_depth = 5000, const std::string& jit = "never") {
    SessionOptions o;
    o.out = [this](const std::string& s) { out_ += s; };
    o.jit = jit;
    o.max_depth = max_depth;
    s = std::make_unique<Session>(o);
  }
  // Runs a cell; returns what it printed (the captured output of this cell only).
  std::string run(const std::string& code) {
    out_.clear();
    last = s->run_cell(code);
    return out_;
  }
  // First diagnostic code of the last cell ("" when it succeeded).
  std::string code() const { return last.diags.empty() ? "" : last.diags[0].code; }
  // Line of the first diagnostic's primary span, from the rendered " --> cell[N]:LINE:COL".
  int line() const {
    auto p = last.rendered.find(" --> ");
    if (p == std::string::npos) return 0;
    p = last.rendered.find(':', p);
    return p == std::string::npos ? 0 : std::atoi(last.rendered.c_str() + p + 1);
  }
  std::string value_text(const std::string& name) const {
    auto v = s->value_of(name);
    return v ? format_value(*v) : "<unbound>";
  }

  std::unique_ptr<Session> s;
  CellResult last;

 private:
  std::string out_;
};

}  // namespace ein::testing
