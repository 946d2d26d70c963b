// In-memory history for history_request (see xhistory.h).
#include "kernel/xhistory.h"

#include <set>

#include "engine/session/commands.h"

namespace ein::kernel {

// The glob matcher is the command layer's (%history -g uses it too).
bool glob_match(const std::string& pattern, const std::string& text) { return cmd::glob_match(pattern, text); }

void HistoryList::add(int session, int line, const std::string& input,
                      const std::string& output) {
  std::lock_guard<std::mutex> lk(mu_);
  entries_.push_back({session, line, input, output});
  bytes_ += input.size() + output.size();
  // The oldest go first; the newest entry stays even when it alone is over the byte bound.
  while (entries_.size() > 1 && (entries_.size() > kMaxEntries || bytes_ > kMaxBytes)) {
    bytes_ -= entries_.front().input.size() + entries_.front().output.size();
    entries_.pop_front();
  }
}

nlohmann::json HistoryList::item(const HistoryEntry& e, bool output) const {
  if (output) return nlohmann::json::array({e.session, e.line, {e.input, e.output}});
  return nlohmann::json::array({e.session, e.line, e.input});
}

nlohmann::json HistoryList::tail(int n, bool output) const {
  std::lock_guard<std::mutex> lk(mu_);
  auto out = nlohmann::json::array();
  size_t count = n < 0 ? entries_.size() : std::min(entries_.size(), size_t(n));
  for (size_t i = entries_.size() - count; i < entries_.size(); ++i)
    out.push_back(item(entries_[i], output));
  return out;
}

nlohmann::json HistoryList::range(int session, int start, int stop, bool output) const {
  std::lock_guard<std::mutex> lk(mu_);
  auto out = nlohmann::json::array();
  // Only this kernel's session exists; any other session number has no lines.
  if (session > 0) return out;
  int last = entries_.empty() ? 0 : entries_.back().line;
  if (start < 0) start = std::max(0, last + 1 + start);
  if (stop < 0) stop = last + 1 + stop;
  if (stop == 0) stop = last + 1;  // stop omitted (0): up to the newest line
  for (auto& e : entries_)
    if (e.line >= start && e.line < stop) out.push_back(item(e, output));
  return out;
}

nlohmann::json HistoryList::search(const std::string& pattern, bool output, int n,
                                   bool unique) const {
  std::lock_guard<std::mutex> lk(mu_);
  std::vector<const HistoryEntry*> hits;
  std::set<std::string> seen;
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (n > 0 && hits.size() >= size_t(n)) break;
    if (!glob_match(pattern, it->input)) continue;
    if (unique && !seen.insert(it->input).second) continue;
    hits.push_back(&*it);
  }
  auto out = nlohmann::json::array();
  for (auto it = hits.rbegin(); it != hits.rend(); ++it) out.push_back(item(**it, output));
  return out;
}

#ifdef EIN_HAVE_XEUS
namespace {
nlohmann::json reply(nlohmann::json history) {
  return nlohmann::json{{"status", "ok"}, {"history", std::move(history)}};
}
}  // namespace

void HistoryManager::store_inputs_impl(int session, int line, const std::string& input,
                                       const std::string& output) {
  list_.add(session, line_ ? line_() : line, input, output);
}

nlohmann::json HistoryManager::get_tail_impl(int n, bool, bool output) const {
  return reply(list_.tail(n, output));
}

nlohmann::json HistoryManager::get_range_impl(int session, int start, int stop, bool,
                                              bool output) const {
  return reply(list_.range(session, start, stop, output));
}

nlohmann::json HistoryManager::search_impl(const std::string& pattern, bool, bool output, int n,
                                           bool unique) const {
  return reply(list_.search(pattern, output, n, unique));
}
#endif

}  // namespace ein::kernel
