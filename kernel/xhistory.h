// The kernel's input history, answering history_request (tail, range, search).
//
// xeus stores each executed input through store_inputs() when the request asks for it; we keep
// them in memory, which is what a front end's history browser and %history-style tools need.
// Session number 0 means "this session" in Jupyter's convention. Only the newest kMaxEntries
// inputs (and at most kMaxBytes of their text) are kept: a kernel that runs for days, or is fed
// megabyte cells, must not grow without bound (issue 20; docs/jupyter.md).
#pragma once
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#ifdef EIN_HAVE_XEUS
#include <xeus/xhistory_manager.hpp>
#endif

namespace ein::kernel {

struct HistoryEntry {
  int session = 0;
  int line = 0;
  std::string input;
  std::string output;
};

// Pure logic, testable without xeus. Each query returns [session, line, input] triples, or
// [session, line, [input, output]] when output is requested.
class HistoryList {
 public:
  static constexpr size_t kMaxEntries = 1000;
  static constexpr size_t kMaxBytes = size_t(4) << 20;
  void add(int session, int line, const std::string& input, const std::string& output);
  nlohmann::json tail(int n, bool output) const;
  // Lines start <= line < stop; negative start/stop count from the end like IPython.
  nlohmann::json range(int session, int start, int stop, bool output) const;
  // Glob pattern (`*` any run, `?` one character); the newest n matches (n <= 0: all), oldest
  // first; unique keeps the newest of identical inputs.
  nlohmann::json search(const std::string& pattern, bool output, int n, bool unique) const;

 private:
  nlohmann::json item(const HistoryEntry& e, bool output) const;
  mutable std::mutex mu_;
  std::deque<HistoryEntry> entries_;
  size_t bytes_ = 0;  // text held by entries_
};

bool glob_match(const std::string& pattern, const std::string& text);

#ifdef EIN_HAVE_XEUS
class HistoryManager final : public xeus::xhistory_manager {
 public:
  // xeus 2.4.1 passes a constant line number to store_inputs; `line` supplies the execution
  // count of the input being stored instead.
  explicit HistoryManager(std::function<int()> line) : line_(std::move(line)) {}

 private:
  void configure_impl() override {}
  void store_inputs_impl(int session, int line, const std::string& input,
                         const std::string& output) override;
  nlohmann::json get_tail_impl(int n, bool raw, bool output) const override;
  nlohmann::json get_range_impl(int session, int start, int stop, bool raw,
                                bool output) const override;
  nlohmann::json search_impl(const std::string& pattern, bool raw, bool output, int n,
                             bool unique) const override;
  std::function<int()> line_;
  HistoryList list_;
};
#endif

}  // namespace ein::kernel
