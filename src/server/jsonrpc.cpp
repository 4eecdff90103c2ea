#include "graphmend/server/jsonrpc.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <thread>
#include <utility>

namespace graphmend::server {
namespace {

// Frames larger than this are refused unread (a client sends whole documents, never this much).
constexpr size_t kMaxFrameBytes = size_t{1} << 30;
constexpr std::string_view kLengthHeader = "Content-Length:";
constexpr std::string_view kLengthHeaderLower = "content-length:";

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

// Where `needle` (lower case) starts in `text`, whatever the case of `text`, or npos.
size_t find_ignoring_case(std::string_view text, std::string_view needle) {
  const auto at = std::search(text.begin(), text.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == b;
  });
  return at == text.end() ? std::string_view::npos : static_cast<size_t>(at - text.begin());
}

// A parsed JSON value as a message: JSON-RPC 2.0, a string method, an id that is a number or a
// string (responses to the server's own requests are read as messages without a method and dropped).
Incoming as_message(json value) {
  if (!value.is_object()) return BadMessage{ErrorCode::InvalidRequest, "a message must be a JSON object", nullptr};
  json id = nullptr;
  if (const auto it = value.find("id"); it != value.end()) {
    if (!it->is_number_integer() && !it->is_string()) {
      return BadMessage{ErrorCode::InvalidRequest, "`id` must be a number or a string", nullptr};
    }
    id = *it;
  }
  const auto method = value.find("method");
  if (method == value.end() && !id.is_null()) return Message{id, "", nullptr};  // a response
  if (method == value.end() || !method->is_string()) {
    return BadMessage{ErrorCode::InvalidRequest, "`method` must be a string", id};
  }
  Message m;
  if (!id.is_null()) m.id = std::move(id);
  m.method = method->get<std::string>();
  if (const auto params = value.find("params"); params != value.end()) m.params = std::move(*params);
  return m;
}

}  // namespace

Incoming FrameReader::next() {
  std::string line;
  if (lost_) {
    if (!skip_to_header()) return EndOfInput{};
    lost_ = false;
    line = kLengthHeader;
  }
  std::optional<size_t> length;
  std::string bad_length;  // why the length given cannot be used
  std::string rest;
  while (true) {
    if (!std::getline(in_, rest)) return EndOfInput{};
    line += rest;
    // A length too small leaves the rest of its body on the next header's line: the header starts
    // at its name (else the next frame's header would be read as garbage and the frame lost).
    if (const size_t at = find_ignoring_case(line, kLengthHeaderLower); at != std::string::npos && at > 0) {
      line.erase(0, at);
    }
    const std::string_view header = trimmed(line);
    if (header.empty()) break;
    const size_t colon = header.find(':');
    // Not a header, or another header than the length: ignored.
    if (colon != std::string_view::npos && equals_ignoring_case(trimmed(header.substr(0, colon)), "Content-Length")) {
      const std::string_view value = trimmed(header.substr(colon + 1));
      size_t n = 0;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
      bad_length = error != std::errc() || end != value.data() + value.size() ? "invalid Content-Length header"
                   : n > kMaxFrameBytes ? fmt::format("a message of {} bytes is over the limit of {}", n, kMaxFrameBytes)
                                        : "";
      length = n;
    }
    line.clear();
  }
  if (!length || !bad_length.empty()) {
    // Where this frame ends is unknown: its body, if any, is skipped to the next length header.
    lost_ = true;
    return BadMessage{ErrorCode::ParseError, length ? bad_length : "missing Content-Length header", nullptr};
  }
  // Read as it arrives: a length is a claim, and memory is taken for the bytes that come.
  std::string body;
  std::array<char, 1 << 16> chunk{};
  while (body.size() < *length) {
    const size_t want = std::min(chunk.size(), *length - body.size());
    if (!in_.read(chunk.data(), static_cast<std::streamsize>(want))) return EndOfInput{};
    body.append(chunk.data(), want);
  }
  json value = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return BadMessage{ErrorCode::ParseError, "the message is not valid JSON", nullptr};
  return as_message(std::move(value));
}

bool FrameReader::skip_to_header() {
  // "content-length:" repeats no prefix of itself, so a mismatch restarts the match at its first letter.
  size_t matched = 0;
  for (int c = in_.get(); c != std::istream::traits_type::eof(); c = in_.get()) {
    const auto lower = static_cast<char>(std::tolower(c));
    if (lower == kLengthHeaderLower[matched]) {
      if (++matched == kLengthHeaderLower.size()) return true;
    } else {
      matched = lower == kLengthHeaderLower[0] ? 1 : 0;
    }
  }
  return false;
}

void write_frame(std::ostream& out, const json& message) {
  // Invalid UTF-8 in a string (a path, say) is replaced rather than thrown on.
  const std::string body = message.dump(-1, ' ', false, json::error_handler_t::replace);
  out << "Content-Length: " << body.size() << "\r\n\r\n" << body;
  out.flush();
}

Connection::Connection(std::istream& in, std::ostream& out) : inbox_(std::make_shared<Inbox>()), out_(out) {
  std::thread([inbox = inbox_, &in] {
    FrameReader reader(in);
    while (true) {
      Incoming item = reader.next();
      const bool end = std::holds_alternative<EndOfInput>(item);
      {
        std::lock_guard<std::mutex> lock(inbox->mutex);
        inbox->items.push_back(std::move(item));
      }
      inbox->arrived.notify_one();
      if (end) return;
    }
  }).detach();
}

Incoming Connection::next() {
  std::unique_lock<std::mutex> lock(inbox_->mutex);
  inbox_->arrived.wait(lock, [&] { return !inbox_->items.empty(); });
  Incoming item = std::move(inbox_->items.front());
  // The end of input stays queued: every later call sees it too.
  if (!std::holds_alternative<EndOfInput>(item)) inbox_->items.pop_front();
  return item;
}

bool Connection::queued(const std::function<bool(const Message&)>& matches) {
  std::lock_guard<std::mutex> lock(inbox_->mutex);
  for (const Incoming& item : inbox_->items) {
    if (const auto* m = std::get_if<Message>(&item); m && matches(*m)) return true;
  }
  return false;
}

void Connection::respond(const json& id, json result) {
  write_frame(out_, {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void Connection::respond_error(const json& id, ErrorCode code, std::string_view message) {
  write_frame(out_, {{"jsonrpc", "2.0"},
                     {"id", id},
                     {"error", {{"code", static_cast<int>(code)}, {"message", std::string(message)}}}});
}

void Connection::notify(std::string_view method, json params) {
  write_frame(out_, {{"jsonrpc", "2.0"}, {"method", std::string(method)}, {"params", std::move(params)}});
}

void Dispatcher::on_request(std::string method, RequestHandler handler) {
  requests_[std::move(method)] = std::move(handler);
}

void Dispatcher::on_notification(std::string method, NotificationHandler handler) {
  notifications_[std::move(method)] = std::move(handler);
}

void Dispatcher::answer(Connection& connection, const Message& request) const {
  const json& id = *request.id;
  const auto handler = requests_.find(request.method);
  if (handler == requests_.end()) {
    connection.respond_error(id, ErrorCode::MethodNotFound, "unknown method `" + request.method + "`");
    return;
  }
  if (connection.queued([&](const Message& next) {
        return next.method == "$/cancelRequest" && next.params.is_object() && next.params.value("id", json()) == id;
      })) {
    connection.respond_error(id, ErrorCode::RequestCancelled, "cancelled");
    return;
  }
  try {
    connection.respond(id, handler->second(request.params));
  } catch (const RequestError& e) {
    connection.respond_error(id, e.code, e.message);
  } catch (const json::exception& e) {
    connection.respond_error(id, ErrorCode::InvalidParams, std::string("invalid params: ") + e.what());
  } catch (const std::exception& e) {
    connection.respond_error(id, ErrorCode::InternalError, std::string("internal error: ") + e.what());
  }
}

std::optional<std::string> Dispatcher::take(const Message& notification) const {
  const auto handler = notifications_.find(notification.method);
  if (handler == notifications_.end()) return std::nullopt;
  try {
    handler->second(notification.params);
  } catch (const RequestError& e) {
    return e.message;
  } catch (const std::exception& e) {
    return e.what();
  }
  return std::nullopt;
}

}  // namespace graphmend::server
