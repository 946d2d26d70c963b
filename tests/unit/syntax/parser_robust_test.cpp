// Robustness (SPEC §9): every conformance program parses, and no input — prefixes of real
// programs, mutations, token soup, random bytes, deep nesting — crashes or hangs the parser.
// Every result must also respect the kid layouts of lang/ir/node.h and carry valid spans.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "lang/syntax/parser.h"

namespace ein {
namespace {

namespace fs = std::filesystem;
using ir::Kind;

fs::path conformance_dir() {
  std::error_code ec;
  fs::path p = fs::absolute(fs::path(__FILE__), ec);
  for (fs::path d = p.parent_path(); !d.empty(); d = d.parent_path()) {
    for (const char* rel : {"shared/conformance/cases", "../shared/conformance/cases"}) {
      fs::path c = d / rel;
      if (fs::is_directory(c, ec)) return fs::canonical(c, ec);
    }
    if (d == d.root_path()) break;
  }
  return {};
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<fs::path> conformance_files() {
  std::vector<fs::path> out;
  fs::path dir = conformance_dir();
  if (dir.empty()) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".ein") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Session files hold several cells separated by `// %%` lines; each cell is its own program.
std::vector<std::string> cells_of(const fs::path& p, const std::string& text) {
  if (p.filename().string().find(".cells.") == std::string::npos) return {text};
  std::vector<std::string> cells(1);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("// %%", 0) == 0) cells.emplace_back();
    else cells.back() += line + "\n";
  }
  return cells;
}

// ---- structural invariants ----------------------------------------------------------------------

struct Checker {
  const SourceMap& sm;
  uint32_t file;
  bool saw_error = false;
  std::string problem;

  void fail(const ir::Node& n, const std::string& what) {
    if (problem.empty()) problem = std::string(ir::kind_name(n.kind)) + ": " + what;
  }
  bool is(const ir::NodeRef& k, std::initializer_list<Kind> kinds) {
    if (!k) return false;
    for (Kind x : kinds)
      if (k->kind == x) return true;
    return false;
  }

  void check(const ir::NodeRef& np, int depth = 0) {
    if (!np || !problem.empty()) return;
    const ir::Node& n = *np;
    size_t sz = n.size();
    size_t text_size = sm.file(file).text.size();
    if (n.span.file != file || n.span.lo > n.span.hi || n.span.hi > text_size)
      fail(n, "bad span");
    if (depth > 2000) return fail(n, "tree too deep");
    auto exact = [&](size_t k) { if (sz != k) fail(n, "kid count " + std::to_string(sz)); };
    auto at_least = [&](size_t k) { if (sz < k) fail(n, "kid count " + std::to_string(sz)); };
    std::vector<size_t> nullable;
    switch (n.kind) {
      case Kind::Error: saw_error = true; exact(0); break;
      case Kind::Program: case Kind::Block:
        if (n.has(ir::kHasTail)) at_least(1);
        break;
      case Kind::IntLit: case Kind::FloatLit: case Kind::BoolLit: case Kind::StrLit:
      case Kind::Name: case Kind::Path: case Kind::RestIdx: case Kind::IdxVar: case Kind::IdxLit:
      case Kind::IdxRest: case Kind::PWild: case Kind::PBind: case Kind::PRest: case Kind::TyPrim: case Kind::TyDim:
      case Kind::UseItem: case Kind::StructDecl: case Kind::EnumDecl:
        exact(0);
        break;
      case Kind::TupleLit: if (sz == 1) fail(n, "one-element tuple"); break;
      case Kind::Interp:
        at_least(1);
        for (auto& k : n.kids) if (!is(k, {Kind::StrLit, Kind::InterpHole})) fail(n, "part");
        break;
      case Kind::RangeLit: case Kind::Binary: case Kind::Cast: case Kind::PRange: exact(2); break;
      case Kind::Unary: case Kind::Member: case Kind::Diff: case Kind::InterpHole:
      case Kind::CompGen: case Kind::CompGuard: case Kind::CompLet: case Kind::IdxIn:
      case Kind::WBind: case Kind::WGuard: case Kind::WElse: case Kind::PLit: case Kind::TyJagged:
      case Kind::PAt:
      case Kind::ExprStmt:
        exact(1);
        break;
      case Kind::Call: case Kind::TyArray: case Kind::TyFn: at_least(1); break;
      case Kind::Index: case Kind::Comp: case Kind::Where: case Kind::POr: at_least(2); break;
      case Kind::If:
        exact(3);
        nullable = {2};
        if (sz == 3 && !is(n.kids[1], {Kind::Block})) fail(n, "then");
        if (sz == 3 && n.kids[2] && !is(n.kids[2], {Kind::Block, Kind::If})) fail(n, "else");
        break;
      case Kind::Match:
        at_least(1);
        for (size_t i = 1; i < sz; ++i) if (!is(n.kids[i], {Kind::Arm})) fail(n, "arm");
        break;
      case Kind::Arm: exact(3); nullable = {1}; break;
      case Kind::Lambda:
        at_least(1);
        for (size_t i = 1; i < sz; ++i) if (!is(n.kids[i], {Kind::Param})) fail(n, "param");
        break;
      case Kind::Param: exact(1); nullable = {0}; break;
      case Kind::Reduce: case Kind::EinDecl: {
        at_least(2);
        bool decl = n.kind == Kind::EinDecl;
        for (size_t i = 1; i < sz; ++i)
          if (!is(n.kids[i], {Kind::IdxVar, Kind::IdxIn, Kind::IdxRest}) &&
              !(decl && is(n.kids[i], {Kind::IdxLit})))
            fail(n, "slot");
        break;
      }
      case Kind::Let:
        exact(3);
        nullable = {1};
        if (sz == 3 && !is(n.kids[0], {Kind::PBind, Kind::PTuple})) fail(n, "pattern");
        break;
      case Kind::Const: exact(2); nullable = {0}; break;
      case Kind::Fn: case Kind::DiffFn:
        at_least(2);
        nullable = {0};
        if (sz >= 2 && !is(n.kids[1], {Kind::Block})) fail(n, "body");
        for (size_t i = 2; i < sz; ++i) if (!is(n.kids[i], {Kind::Param})) fail(n, "param");
        break;
      case Kind::Use:
        for (auto& k : n.kids) if (!is(k, {Kind::UseItem})) fail(n, "item");
        break;
      default: break;
    }
    for (size_t i = 0; i < sz; ++i) {
      bool may_be_null = std::find(nullable.begin(), nullable.end(), i) != nullable.end();
      if (!n.kids[i] && !may_be_null) fail(n, "null kid " + std::to_string(i));
      check(n.kids[i], depth + 1);
    }
  }
};

// Parses `text` and checks every invariant; returns the result for further checks.
ParseResult parse_checked(const std::string& text, const std::string& what) {
  SourceMap sm;
  uint32_t id = sm.add("t", text);
  ParseResult r = parse_program(sm, id);
  EXPECT_TRUE(r.program && r.program->kind == Kind::Program) << what;
  Checker c{sm, id, false, ""};
  c.check(r.program);
  EXPECT_EQ(c.problem, "") << what;
  if (c.saw_error) {
    EXPECT_FALSE(r.diags.empty()) << what;
  }
  if (r.incomplete) {
    EXPECT_FALSE(r.diags.empty()) << what;
  }
  EXPECT_LE(r.diags.size(), syntax_detail::kMaxDiags) << what;
  for (const auto& d : r.diags) {
    EXPECT_EQ(d.code, "E001") << what;
    EXPECT_EQ(d.primary.file, id) << what;
    EXPECT_LE(d.primary.hi, text.size()) << what;
    EXPECT_FALSE(d.message.empty()) << what;
  }
  return r;
}

TEST(ParseRobust, ConformanceProgramsParse) {
  auto files = conformance_files();
  if (files.empty()) GTEST_SKIP() << "shared/conformance/cases not found";
  size_t parsed = 0;
  for (const auto& f : files) {
    std::string text = read_file(f);
    std::string name = f.filename().string();
    if (name == "e01_syntax.ein" || name == "e19_unbalanced.ein") {
      // Exactly one E001, on the line that the .err file names.
      std::string err = read_file(fs::path(f).replace_extension(".err"));
      int line = std::atoi(err.substr(err.find(' ') + 1).c_str());
      SourceMap sm;
      ParseResult r = parse_program(sm, sm.add(name, text));
      ASSERT_EQ(r.diags.size(), 1u) << name;
      EXPECT_EQ(sm.start(r.diags[0].primary).line, line) << name;
      EXPECT_FALSE(r.incomplete) << name;
      ++parsed;
      continue;
    }
    for (const std::string& cell : cells_of(f, text)) {
      ParseResult r = parse_checked(cell, name);
      for (const auto& d : r.diags) ADD_FAILURE() << name << ": " << d.message;
      EXPECT_EQ(completeness(cell), "complete") << name;
      ++parsed;
    }
  }
  EXPECT_GE(parsed, 40u);
}

TEST(ParseRobust, EveryPrefixOfEveryConformanceFile) {
  auto files = conformance_files();
  if (files.empty()) GTEST_SKIP() << "shared/conformance/cases not found";
  for (const auto& f : files) {
    std::string text = read_file(f);
    for (size_t n = 0; n <= text.size(); ++n) {
      ParseResult r = parse_checked(text.substr(0, n), f.filename().string() + " prefix " +
                                                           std::to_string(n));
      if (::testing::Test::HasFailure()) return;  // one broken prefix is enough to debug
    }
  }
}

TEST(ParseRobust, MutatedConformanceFiles) {
  auto files = conformance_files();
  if (files.empty()) GTEST_SKIP() << "shared/conformance/cases not found";
  std::mt19937 rng(12345);
  const std::string alphabet = "()[]{};,.:=<>|&!@\"\\{}+-*/%_ \nax09e";
  for (const auto& f : files) {
    std::string text = read_file(f);
    if (text.empty()) continue;
    for (int round = 0; round < 60; ++round) {
      std::string m = text;
      int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits && !m.empty(); ++e) {
        size_t pos = rng() % m.size();
        switch (rng() % 3) {
          case 0: m.erase(pos, 1 + rng() % 3); break;
          case 1: m.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
          default: m[pos] = alphabet[rng() % alphabet.size()]; break;
        }
      }
      parse_checked(m, f.filename().string() + " mutation " + std::to_string(round));
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(ParseRobust, TokenSoupAndRandomBytes) {
  std::mt19937 rng(777);
  const std::vector<std::string> vocab = {
      "let", "fn", "@fn", "pub", "use", "mod", "const", "if", "else", "match", "where", "in", "as",
      "struct", "enum", "true", "x", "y", "sum", "max", "_", "1", "2.5", ".5", "\"s{x}\"", "\"",
      "(", ")", "[", "]", "{", "}", ";", ",", ".", "..", "..=", ":", "::", "=", "==", "=>", "->",
      "|", "||", "|>", "+", "-", "*", "**", "/", "%", "<", ">=", "&&", "!", "@", "?", "\n", " "};
  for (int round = 0; round < 3000; ++round) {
    std::string s;
    int len = static_cast<int>(rng() % 60);
    for (int i = 0; i < len; ++i) s += vocab[rng() % vocab.size()] + " ";
    parse_checked(s, "soup: " + s);
    if (::testing::Test::HasFailure()) return;
  }
  for (int round = 0; round < 500; ++round) {
    std::string s(rng() % 200, '\0');
    for (char& c : s) c = static_cast<char>(rng() % 256);
    parse_checked(s, "random bytes " + std::to_string(round));
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(ParseRobust, DeepNestingOfEveryKind) {
  const std::vector<std::pair<std::string, std::string>> shapes = {
      {"let x = ", "("},        {"let x = ", "["},           {"let x = ", "{"},
      {"let x = ", "if a {"},   {"let x = ", "match a { _ => "}, {"let x = ", "|x| "},
      {"let x = ", "- "},       {"let x = ", "sum[i]("},     {"let x = ", "2 ** "},
      {"let x: ", "["},         {"let x: ", "("},            {"let ", "("},
      {"match a { ", "("},      {"fn f() { ", "fn g() { "},  {"", "mod m { "},
      {"let x = ", "\"{"},      {"let x = ", "f("},          {"let x = ", "a["},
      {"let x = ", "[y | y in "}, {"", "{"},                  {"let x = ", "@"}};
  for (const auto& [head, rep] : shapes) {
    std::string s = head;
    for (int i = 0; i < 20000; ++i) s += rep;
    ParseResult r = parse_checked(s, head + rep);
    EXPECT_FALSE(r.diags.empty()) << head + rep;
  }
  // Balanced but too deep: one error, and the statement after it survives.
  for (const auto& [open, close] : std::vector<std::pair<std::string, std::string>>{
           {"{", "}"}, {"(", ")"}, {"[", "]"}, {"-(", ")"}}) {
    std::string s = "let x = ";
    for (int i = 0; i < 50000; ++i) s += open;
    s += "1";
    for (int i = 0; i < 50000; ++i) s += close;
    ParseResult r = parse_checked(s + ";\nlet after = 1;", "balanced " + open);
    ASSERT_EQ(r.diags.size(), 1u) << open;
    EXPECT_EQ(r.diags[0].message, "nesting too deep");
    EXPECT_EQ(r.program->kids.back()->kind, Kind::Let) << open;
  }
  // Long flat inputs are fine.
  std::string flat;
  for (int i = 0; i < 20000; ++i) flat += "let a" + std::to_string(i) + " = [1, 2, 3];\n";
  EXPECT_TRUE(parse_checked(flat, "flat").diags.empty());
}

}  // namespace
}  // namespace ein
