// engine/config: one table of EIN_* variables, accessors with the documented meaning of unset
// and empty values, one size parser, and no getenv of an EIN_* name anywhere else.
#include "engine/config/env.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using ein::config::Env;

namespace {

// __FILE__ may be relative to the build directory; the test binary lives in it.
fs::path repo_root() {
  std::error_code ec;
  fs::path exe_dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
  for (fs::path p : {fs::absolute(fs::path(__FILE__), ec), exe_dir / fs::path(__FILE__)}) {
    for (p = p.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path())
      if (fs::exists(p / "engine" / "config")) return p;
  }
  return {};
}

}  // namespace

TEST(ConfigEnv, TableNamesAreUniqueEinNamesInEnumOrder) {
  std::set<std::string> seen;
  size_t i = 0;
  for (auto& v : ein::config::all()) {
    EXPECT_EQ(static_cast<size_t>(v.id), i++);
    std::string n = v.name;
    EXPECT_EQ(n.rfind("EIN_", 0), 0u) << n;
    EXPECT_TRUE(seen.insert(n).second) << n << " twice";
    EXPECT_NE(std::string(v.meaning), "");
    EXPECT_NE(ein::config::help_text().find(n), std::string::npos) << n;
  }
  EXPECT_EQ(seen.size(), ein::config::all().size());
}

TEST(ConfigEnv, UnsetEmptyAndSetValues) {
  ::unsetenv("EIN_GNUPLOT");
  EXPECT_FALSE(ein::config::is_set(Env::Gnuplot));
  EXPECT_FALSE(ein::config::value(Env::Gnuplot).has_value());
  ::setenv("EIN_GNUPLOT", "", 1);
  EXPECT_TRUE(ein::config::is_set(Env::Gnuplot));  // EIN_HISTORY= means "in memory only"
  EXPECT_FALSE(ein::config::value(Env::Gnuplot).has_value());
  ::setenv("EIN_GNUPLOT", "/opt/gp", 1);
  EXPECT_EQ(ein::config::value(Env::Gnuplot).value_or(""), "/opt/gp");
  ::unsetenv("EIN_GNUPLOT");
}

TEST(ConfigEnv, SizesWithSuffixesAndMalformedOnes) {
  using ein::config::parse_bytes;
  EXPECT_EQ(parse_bytes("1048576"), 1048576);
  EXPECT_EQ(parse_bytes("512M"), int64_t{512} << 20);
  EXPECT_EQ(parse_bytes(" 2g "), int64_t{2} << 30);
  EXPECT_EQ(parse_bytes("64KiB"), int64_t{64} << 10);
  EXPECT_FALSE(parse_bytes("12 parsecs").has_value());
  EXPECT_FALSE(parse_bytes("").has_value());
  EXPECT_FALSE(parse_bytes(nullptr).has_value());
  EXPECT_FALSE(parse_bytes("99999999999999999999").has_value());
  EXPECT_FALSE(parse_bytes("9999999999T").has_value());  // overflows when shifted
}

// Counts (EIN_JIT_THRESHOLD, EIN_AD_CHECKPOINT): digits only; anything else means the default,
// never 0 points (which would compile every clause) or a spacing of 0.
TEST(ConfigEnv, CountsAndMalformedOnes) {
  using ein::config::parse_count;
  EXPECT_EQ(parse_count("32768"), 32768);
  EXPECT_EQ(parse_count(" 4 "), 4);
  EXPECT_EQ(parse_count("0"), 0);
  EXPECT_FALSE(parse_count("4k").has_value());
  EXPECT_FALSE(parse_count("-1").has_value());
  EXPECT_FALSE(parse_count("1e5").has_value());
  EXPECT_FALSE(parse_count("").has_value());
  EXPECT_FALSE(parse_count(nullptr).has_value());
  EXPECT_FALSE(parse_count("99999999999999999999").has_value());
  ::setenv("EIN_AD_CHECKPOINT", "six", 1);
  EXPECT_FALSE(ein::config::count(Env::AdCheckpoint).has_value());
  ::setenv("EIN_AD_CHECKPOINT", "6", 1);
  EXPECT_EQ(ein::config::count(Env::AdCheckpoint), 6);
  ::unsetenv("EIN_AD_CHECKPOINT");
}

// The documented table (docs/architecture.md, "Configuration") has a row for every variable.
TEST(ConfigEnv, EveryVariableIsDocumented) {
  fs::path root = repo_root();
  ASSERT_FALSE(root.empty());
  std::ifstream in(root / "docs" / "architecture.md");
  std::stringstream ss;
  ss << in.rdbuf();
  for (auto& v : ein::config::all())
    EXPECT_NE(ss.str().find("| `" + std::string(v.name) + "` |"), std::string::npos) << v.name;
}

// "One home per concept": a new EIN_* variable goes into the table, not into a getenv call.
TEST(ConfigEnv, NoOtherSourceReadsAnEinVariable) {
  fs::path root = repo_root();
  ASSERT_FALSE(root.empty());
  int files = 0;
  for (const char* dir : {"engine", "lang", "repl", "kernel"}) {
    for (auto& e : fs::recursive_directory_iterator(root / dir)) {
      auto ext = e.path().extension();
      if (ext != ".cpp" && ext != ".h") continue;
      if (e.path().parent_path().filename() == "config") continue;
      std::ifstream in(e.path());
      std::stringstream ss;
      ss << in.rdbuf();
      ++files;
      EXPECT_EQ(ss.str().find("getenv(\"EIN_"), std::string::npos) << e.path();
      // Nor through a local wrapper: an EIN_ name as a call's whole argument (`env("EIN_X")`).
      EXPECT_FALSE(std::regex_search(ss.str(), std::regex(R"re(\(\s*"EIN_[A-Z_]*"\s*\))re"))) << e.path();
    }
  }
  EXPECT_GT(files, 50);
}
