// JSON-RPC 2.0 over a byte stream with LSP's `Content-Length` framing: the language server's
// protocol layer. It knows messages, not graphmend: reading and writing frames, telling requests
// from notifications, the standard error codes. A reader thread parses frames as they arrive, so
// the server can look ahead (drop a document's analysis that a later change makes stale).
#pragma once

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <deque>
#include <functional>
#include <istream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <variant>

namespace graphmend::server {

using json = nlohmann::json;

// JSON-RPC's and LSP's error codes.
enum class ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  RequestCancelled = -32800,
};

// A request or notification received. A request has an id (a number or a string); a
// notification has none.
struct Message {
  std::optional<json> id;
  std::string method;
  json params;  // null when absent

  [[nodiscard]] bool is_request() const { return id.has_value(); }
};

// A frame that could not be taken as a message: answered with an error response (the request's
// id when it could be read, else null).
struct BadMessage {
  ErrorCode code;
  std::string reason;
  json id;  // null when unknown
};

// What the reader hands over: a message, a bad one, or the end of input.
struct EndOfInput {};
using Incoming = std::variant<Message, BadMessage, EndOfInput>;

// Reads frames one after another: headers up to an empty line (`Content-Length` required, other
// headers ignored), then that many bytes of UTF-8 JSON, read as they arrive (a frame over 1 GiB is
// refused unread). EndOfInput at end of stream, also mid-frame. After a header block without a
// usable length the frame's end is unknown: reading resumes at the next `Content-Length:` in the
// stream (case aside), wherever it stands (also mid-line: a body need not end with a line break).
class FrameReader {
 public:
  explicit FrameReader(std::istream& in) : in_(in) {}

  Incoming next();

 private:
  // Consumes input through the next "Content-Length:"; false at end of input.
  bool skip_to_header();

  std::istream& in_;
  bool lost_ = false;  // the last header block had no usable length
};

// A JSON object (request, notification or response) as a frame.
void write_frame(std::ostream& out, const json& message);

// The connection: a thread reading frames into a queue, and the writer (used from one thread).
// The reader is detached and shares only the queue: after `exit` the process ends without
// waiting for a client that keeps its end of the pipe open.
class Connection {
 public:
  Connection(std::istream& in, std::ostream& out);

  // The next incoming item, waiting for one.
  Incoming next();
  // Whether an item already received and not yet taken satisfies `matches` (never waits).
  bool queued(const std::function<bool(const Message&)>& matches);

  void respond(const json& id, json result);
  void respond_error(const json& id, ErrorCode code, std::string_view message);
  void notify(std::string_view method, json params);

 private:
  struct Inbox {
    std::mutex mutex;
    std::condition_variable arrived;
    std::deque<Incoming> items;
  };

  std::shared_ptr<Inbox> inbox_;
  std::ostream& out_;
};

// A request that cannot be answered as asked: thrown by a handler, answered with this error.
struct RequestError {
  ErrorCode code;
  std::string message;
};

// Routes messages to the handlers of their methods. The protocol's lifecycle (which methods are
// allowed when) is the caller's.
class Dispatcher {
 public:
  using RequestHandler = std::function<json(const json& params)>;
  using NotificationHandler = std::function<void(const json& params)>;

  void on_request(std::string method, RequestHandler handler);
  void on_notification(std::string method, NotificationHandler handler);

  // Answers a request with its handler's result, or with the error it threw: a RequestError as
  // it is, a JSON type or key error as InvalidParams, any other exception as InternalError. No
  // handler: MethodNotFound. A request whose `$/cancelRequest` is already queued is answered
  // RequestCancelled, unrun.
  void answer(Connection& connection, const Message& request) const;
  // Runs a notification's handler, if it has one (others are dropped, as the protocol asks);
  // returns what it threw, as text: a notification has no answer to carry it.
  [[nodiscard]] std::optional<std::string> take(const Message& notification) const;

 private:
  std::map<std::string, RequestHandler, std::less<>> requests_;
  std::map<std::string, NotificationHandler, std::less<>> notifications_;
};

}  // namespace graphmend::server
