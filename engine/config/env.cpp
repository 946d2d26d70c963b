#include "engine/config/env.h"

#include <array>
#include <cctype>
#include <cstdlib>
#include <limits>

namespace ein::config {

namespace {

constexpr std::array<EnvInfo, 17> kTable{{
    {Env::MaxMemory, "EIN_MAX_MEMORY", "memory the tensors of one process may hold (E008 beyond)",
     "half the physical memory"},
    {Env::ShareDir, "EIN_SHARE_DIR", "directory of the standard library (share/)", "beside the executable"},
    {Env::Jit, "EIN_JIT", "native kernels: never, auto (large clauses) or always", "auto"},
    {Env::JitThreshold, "EIN_JIT_THRESHOLD", "points from which `auto` compiles a clause", "32768"},
    {Env::JitKeep, "EIN_JIT_KEEP", "when set, keep the generated kernel sources", "unset"},
    {Env::JitTrace, "EIN_JIT_TRACE", "when set, print the native tier's plan, load times and why each interpreted clause is not a kernel", "unset"},
    {Env::Cxx, "EIN_CXX", "C++ compiler for kernels", "c++"},
    {Env::CxxFlags, "EIN_CXXFLAGS", "its flags", "-O3 -march=native -fopenmp"},
    {Env::CacheDir, "EIN_CACHE_DIR", "kernel cache directory", "$XDG_CACHE_HOME/ein/kernels or ~/.cache/ein/kernels"},
    {Env::CacheMax, "EIN_CACHE_MAX", "kernel cache size limit", "256M"},
    {Env::Interp, "EIN_INTERP", "interpreter: vector (whole-array everywhere), scalar, or auto", "auto"},
    {Env::Gnuplot, "EIN_GNUPLOT", "gnuplot program for %plot", "gnuplot"},
    {Env::History, "EIN_HISTORY", "REPL history file (empty: in memory only)", "~/.ein_history"},
    {Env::AdMemory, "EIN_AD_MEMORY", "bytes a gradient may store before its recurrences are checkpointed",
     "64M, at most a quarter of EIN_MAX_MEMORY"},
    {Env::AdCheckpoint, "EIN_AD_CHECKPOINT", "force checkpoints every N steps in every checkpointable gradient", "unset"},
    {Env::RowInline, "EIN_ROW_INLINE", "calls on a row inlined as declarations over the rows: on, never, or trace (print each call's outcome)", "on"},
    {Env::RowFuse, "EIN_ROW_FUSE", "declarations over rows read only row by row computed per row in their consumer: on or never", "on"},
}};

constexpr bool rows_in_order() {
  for (size_t i = 0; i < kTable.size(); ++i)
    if (static_cast<size_t>(kTable[i].id) != i) return false;
  return true;
}
static_assert(rows_in_order(), "kTable's rows follow the order of Env");

}  // namespace

std::span<const EnvInfo> all() { return kTable; }

const EnvInfo& info(Env e) { return kTable[static_cast<size_t>(e)]; }

const char* raw(Env e) { return std::getenv(info(e).name); }

std::optional<std::string> value(Env e) {
  const char* v = raw(e);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

bool is_set(Env e) { return raw(e) != nullptr; }

namespace {

// Leading decimal digits of `s` (blanks around it ignored) into `n`; the rest goes to `suffix`.
bool leading_digits(const char* s, int64_t& n, std::string& suffix) {
  if (!s) return false;
  std::string t(s);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  size_t i = 0;
  while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
  size_t digits_begin = i;
  n = 0;
  for (; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i) {
    if (n > (std::numeric_limits<int64_t>::max() - 9) / 10) return false;
    n = n * 10 + (t[i] - '0');
  }
  if (i == digits_begin) return false;
  suffix = t.substr(i);
  return true;
}

}  // namespace

std::optional<int64_t> parse_count(const char* s) {
  int64_t n = 0;
  std::string rest;
  if (!leading_digits(s, n, rest) || !rest.empty()) return std::nullopt;
  return n;
}

std::optional<int64_t> count(Env e) { return parse_count(raw(e)); }

std::optional<int64_t> parse_bytes(const char* s) {
  int64_t n = 0;
  std::string suf;
  if (!leading_digits(s, n, suf)) return std::nullopt;
  for (char& c : suf) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  int shift = 0;
  if (suf.empty() || suf == "B") shift = 0;
  else if (suf == "K" || suf == "KB" || suf == "KIB") shift = 10;
  else if (suf == "M" || suf == "MB" || suf == "MIB") shift = 20;
  else if (suf == "G" || suf == "GB" || suf == "GIB") shift = 30;
  else if (suf == "T" || suf == "TB" || suf == "TIB") shift = 40;
  else return std::nullopt;
  if (shift && n > (std::numeric_limits<int64_t>::max() >> shift)) return std::nullopt;
  return n << shift;
}

std::optional<int64_t> bytes(Env e) { return parse_bytes(raw(e)); }

std::string help_text() {
  std::string out = "Environment:\n";
  for (auto& v : kTable) {
    std::string line = "  " + std::string(v.name);
    line.resize(22, ' ');
    out += line + v.meaning + " (default: " + v.fallback + ")\n";
  }
  return out;
}

}  // namespace ein::config
