// The kernel's ZeroMQ server: xeus' server, plus an answer to every request.
//
// xeus 2.4 drops a request it cannot handle without a word: a message whose JSON does not parse
// (ill-formed UTF-8 is enough) is logged and discarded, a request with a missing or mistyped
// field throws inside its handler and gets no reply, an unknown `*_request` gets none either.
// The client then waits forever (nbclient: until its timeout; `jupyter console`: for good).
// This server receives the messages itself and answers such requests with an error reply
// (`ename` "BadRequest", `evalue` naming the problem), between busy and idle statuses like any
// reply, and keeps serving. Messages whose signature does not verify are still dropped: an
// unauthenticated sender gets nothing.
#pragma once
#ifdef EIN_HAVE_XEUS
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>
#include <xeus/xkernel_configuration.hpp>
#include <xeus/xserver_zmq.hpp>

namespace ein::kernel {

// What is wrong with a request that parsed: a missing or mistyped field the handler needs, or
// an unknown request type; "" when xeus can handle it. Pure, for unit tests.
std::string request_problem(const nlohmann::json& header, const nlohmann::json& content);

// Offset of the first byte of `s` that is not part of well-formed UTF-8, or npos.
size_t first_bad_utf8(const std::string& s);

// Sets the function that gives execute_reply's execution_count for replies this server makes.
void set_execution_count_source(std::function<int()> count);

// The server builder to pass to xeus::xkernel.
std::unique_ptr<xeus::xserver> make_server(xeus::xcontext& context, const xeus::xconfiguration& config,
                                           nl::json::error_handler_t eh);

}  // namespace ein::kernel
#endif
