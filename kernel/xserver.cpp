// An xeus ZeroMQ server that answers every request (see xserver.h).
#ifdef EIN_HAVE_XEUS
#include "kernel/xserver.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

#include <xeus/xauthentication.hpp>
#include <xeus/xkernel.hpp>
#include <xeus/xmessage.hpp>
#include <xeus/xzmq_serializer.hpp>
#include <zmq_addon.hpp>

namespace ein::kernel {

namespace {

std::function<int()>& count_source() {
  static std::function<int()> f;
  return f;
}

// Fields a handler reads, by request type: name -> JSON type it must have. `true` marks a
// required field; others are checked only when present.
struct Field {
  const char* name;
  nlohmann::json::value_t type;  // number_integer stands for any number
  bool required;
};

using VT = nlohmann::json::value_t;

const std::map<std::string, std::vector<Field>>& request_fields() {
  static const std::map<std::string, std::vector<Field>> table = {
      {"execute_request",
       {{"code", VT::string, true}, {"silent", VT::boolean, false}, {"store_history", VT::boolean, false},
        {"user_expressions", VT::object, false}, {"allow_stdin", VT::boolean, false},
        {"stop_on_error", VT::boolean, false}}},
      {"complete_request", {{"code", VT::string, true}, {"cursor_pos", VT::number_integer, true}}},
      {"inspect_request",
       {{"code", VT::string, true}, {"cursor_pos", VT::number_integer, true},
        {"detail_level", VT::number_integer, false}}},
      {"is_complete_request", {{"code", VT::string, true}}},
      {"history_request",
       {{"hist_access_type", VT::string, true}, {"output", VT::boolean, false}, {"raw", VT::boolean, false},
        {"session", VT::number_integer, false}, {"start", VT::number_integer, false},
        {"stop", VT::number_integer, false}, {"n", VT::number_integer, false},
        {"pattern", VT::string, false}, {"unique", VT::boolean, false}}},
      {"kernel_info_request", {}},
      {"comm_info_request", {{"target_name", VT::string, false}}},
      {"shutdown_request", {{"restart", VT::boolean, false}}},
      {"interrupt_request", {}},
      {"debug_request", {}},
      {"comm_open", {{"comm_id", VT::string, true}, {"target_name", VT::string, true}, {"data", VT::object, false}}},
      {"comm_msg", {{"comm_id", VT::string, true}, {"data", VT::object, false}}},
      {"comm_close", {{"comm_id", VT::string, true}, {"data", VT::object, false}}},
  };
  return table;
}

bool has_type(const nlohmann::json& v, VT t) {
  if (t == VT::number_integer) return v.is_number();
  if (t == VT::object) return v.is_object();
  return v.type() == t;
}

const char* type_name(VT t) {
  switch (t) {
    case VT::string: return "a string";
    case VT::boolean: return "a boolean";
    case VT::object: return "an object";
    case VT::number_integer: return "a number";
    default: return "a value";
  }
}

std::string reply_type(const std::string& request) {
  const std::string suffix = "_request";
  if (request.size() > suffix.size() && request.compare(request.size() - suffix.size(), suffix.size(), suffix) == 0)
    return request.substr(0, request.size() - suffix.size()) + "_reply";
  return "";
}

std::string frame_text(const zmq::message_t& m) { return std::string(static_cast<const char*>(m.data()), m.size()); }

// Well-formed UTF-8 copy of s: each byte that starts no valid sequence becomes U+FFFD.
std::string repaired_utf8(const std::string& s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    size_t bad = first_bad_utf8(s.substr(i));
    if (bad == std::string::npos) {
      out.append(s, i, std::string::npos);
      break;
    }
    out.append(s, i, bad);
    out += "\xEF\xBF\xBD";
    i += bad + 1;
  }
  return out;
}

class Server final : public xeus::xserver_zmq {
 public:
  Server(zmq::context_t& ctx, const xeus::xconfiguration& config, nl::json::error_handler_t eh)
      : xserver_zmq(ctx, config, eh), auth_(xeus::make_xauthentication(config.m_signature_scheme, config.m_key)) {}

 private:
  // What xserver_zmq::start_impl does, with this class's poll loop.
  void start_impl(xeus::xpub_message message) override {
    start_publisher_thread();
    start_heartbeat_thread();
    m_request_stop = false;
    topic_ = message.topic();
    session_ = message.header().value("session", "");
    publish(std::move(message), xeus::channel::SHELL);
    while (!m_request_stop) poll_once();
    stop_channels();
    std::exit(0);
  }

  void send_shell_impl(xeus::xmessage msg) override {
    replied_ = true;
    xserver_zmq::send_shell_impl(std::move(msg));
  }

  void send_control_impl(xeus::xmessage msg) override {
    replied_ = true;
    xserver_zmq::send_control_impl(std::move(msg));
  }

  void poll_once() {
    zmq::pollitem_t items[] = {{m_controller, 0, ZMQ_POLLIN, 0}, {m_shell, 0, ZMQ_POLLIN, 0}};
    try {
      zmq::poll(&items[0], 2, std::chrono::milliseconds(-1));
      if (items[0].revents & ZMQ_POLLIN) receive(m_controller, xeus::channel::CONTROL);
      if (!m_request_stop && (items[1].revents & ZMQ_POLLIN)) receive(m_shell, xeus::channel::SHELL);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "xein: %s\n", e.what());
    }
  }

  void receive(zmq::socket_t& socket, xeus::channel c) {
    zmq::multipart_t wire;
    wire.recv(socket);
    zmq::multipart_t raw = wire.clone();  // deserialize consumes the frames
    xeus::xmessage msg;
    try {
      msg = xeus::xzmq_serializer::deserialize(wire, *auth_);
    } catch (const std::exception& e) {
      answer_unparsed(raw, e.what(), c);
      return;
    }
    std::string type = msg.header().value("msg_type", "");
    std::string problem = request_problem(msg.header(), msg.content());
    if (!problem.empty()) {
      answer(msg.identities(), msg.header(), type, problem, c);
      return;
    }
    std::vector<std::string> ids = msg.identities();
    nl::json header = msg.header();
    replied_ = false;
    if (c == xeus::channel::CONTROL) notify_control_listener(std::move(msg));
    else notify_shell_listener(std::move(msg));
    // A handler that threw inside xeus was logged there and sent nothing.
    if (!replied_ && !reply_type(type).empty())
      answer(ids, header, type, "the kernel could not handle this " + type + " (see the kernel log)", c);
  }

  // A message xeus could not deserialize: if it is signed correctly, find out which frame is
  // wrong and answer as well as the header allows.
  void answer_unparsed(const zmq::multipart_t& raw, const std::string& what, xeus::channel c) {
    size_t delim = 0;
    while (delim < raw.size() && frame_text(raw[delim]) != "<IDS|MSG>") ++delim;
    if (delim + 5 >= raw.size()) {
      std::fprintf(stderr, "xein: dropped a message without the Jupyter frames: %s\n", what.c_str());
      return;
    }
    auto buf = [&](size_t i) {
      return xeus::xraw_buffer(static_cast<const unsigned char*>(raw[i].data()), raw[i].size());
    };
    if (!auth_->verify(buf(delim + 1), buf(delim + 2), buf(delim + 3), buf(delim + 4), buf(delim + 5))) {
      std::fprintf(stderr, "xein: dropped a message whose signature does not verify\n");
      return;
    }
    std::vector<std::string> ids;
    for (size_t i = 0; i < delim; ++i) ids.push_back(frame_text(raw[i]));
    static const char* names[] = {"header", "parent_header", "metadata", "content"};
    std::string problem;
    for (int f = 0; f < 4 && problem.empty(); ++f) {
      std::string text = frame_text(raw[delim + 2 + f]);
      size_t bad = first_bad_utf8(text);
      if (bad != std::string::npos) {
        char b[96];
        std::snprintf(b, sizeof b, "the request's %s is not valid UTF-8 (byte 0x%02X at offset %zu)", names[f],
                      static_cast<unsigned char>(text[bad]), bad);
        problem = b;
      } else {
        try {
          auto parsed = nl::json::parse(text);  // only whether it parses, and why not
          (void)parsed;
        } catch (const std::exception& e) {
          problem = std::string("the request's ") + names[f] + " is not valid JSON: " + e.what();
        }
      }
    }
    if (problem.empty()) problem = "the request could not be read: " + what;
    nl::json header = nl::json::parse(repaired_utf8(frame_text(raw[delim + 2])), nullptr, false);
    if (!header.is_object()) header = nl::json::object();
    std::string type = header.contains("msg_type") && header["msg_type"].is_string()
                           ? header["msg_type"].get<std::string>()
                           : "";
    answer(ids, header, type, problem, c);
  }

  void answer(const std::vector<std::string>& ids, const nl::json& parent, const std::string& type,
              const std::string& problem, xeus::channel c) {
    std::fprintf(stderr, "xein: bad request: %s\n", problem.c_str());
    // Comm messages have no reply in the protocol, and without a readable header there is no
    // request to answer (no msg_id a client could match): those are only logged.
    std::string rtype = reply_type(type);
    if (rtype.empty()) return;
    status("busy", parent, c);
    nl::json content = {{"status", "error"}, {"ename", "BadRequest"}, {"evalue", problem},
                        {"traceback", nl::json::array({"BadRequest: " + problem})}};
    if (rtype == "execute_reply") content["execution_count"] = count_source() ? count_source()() : 0;
    xeus::xmessage reply(ids, xeus::make_header(rtype, xeus::get_user_name(), session_), parent,
                         nl::json::object(), std::move(content), xeus::buffer_sequence());
    if (c == xeus::channel::CONTROL) send_control(std::move(reply));
    else send_shell(std::move(reply));
    status("idle", parent, c);
  }

  void status(const char* state, const nl::json& parent, xeus::channel c) {
    xeus::xpub_message m(topic_, xeus::make_header("status", xeus::get_user_name(), session_), parent,
                         nl::json::object(), nl::json{{"execution_state", state}}, xeus::buffer_sequence());
    publish(std::move(m), c);
  }

  std::unique_ptr<xeus::xauthentication> auth_;
  std::string topic_, session_;
  bool replied_ = false;
};

}  // namespace

size_t first_bad_utf8(const std::string& s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size(), i = 0;
  while (i < n) {
    unsigned c = p[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || c == 0xC0 || c == 0xC1 || c > 0xF4 || i + len > n) return i;
    for (size_t k = 1; k < len; ++k)
      if ((p[i + k] & 0xC0) != 0x80) return i;
    // Overlong forms, surrogates and code points past U+10FFFF.
    if ((c == 0xE0 && p[i + 1] < 0xA0) || (c == 0xED && p[i + 1] >= 0xA0) || (c == 0xF0 && p[i + 1] < 0x90) ||
        (c == 0xF4 && p[i + 1] >= 0x90))
      return i;
    i += len;
  }
  return std::string::npos;
}

std::string request_problem(const nlohmann::json& header, const nlohmann::json& content) {
  if (!header.is_object()) return "the request's header is not a JSON object";
  auto t = header.find("msg_type");
  if (t == header.end() || !t->is_string()) return "the request's header has no msg_type";
  std::string type = t->get<std::string>();
  auto known = request_fields().find(type);
  if (known == request_fields().end())
    return reply_type(type).empty() ? "" : "unknown request type `" + type + "`";
  if (!content.is_object()) return type + ": the content is not a JSON object";
  for (const Field& f : known->second) {
    auto it = content.find(f.name);
    if (it == content.end() || it->is_null()) {
      if (f.required) return type + ": missing field `" + f.name + "`";
      continue;
    }
    if (!has_type(*it, f.type)) return type + ": field `" + f.name + "` must be " + type_name(f.type);
  }
  return "";
}

void set_execution_count_source(std::function<int()> count) { count_source() = std::move(count); }

std::unique_ptr<xeus::xserver> make_server(xeus::xcontext& context, const xeus::xconfiguration& config,
                                           nl::json::error_handler_t eh) {
  return std::make_unique<Server>(context.get_wrapped_context<zmq::context_t>(), config, eh);
}

}  // namespace ein::kernel
#endif
