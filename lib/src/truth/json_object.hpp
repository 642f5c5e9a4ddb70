// The JSON objects the library reads from files (manifests, profiles, split-K models, kernel
// manifests, safetensors headers), parsed one way: refused when nested too deeply (found by a scan
// before parsing: nlohmann::json parses a 100,000-deep array, but copying the value recurses once
// per level and overflows the stack, issue 13) or when not an object.
#pragma once

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "mmaemu/error.hpp"

namespace mmaemu {

// Far above any file the project writes (a profile or a manifest nests 5 deep).
inline constexpr int kMaxJsonNesting = 64;

// The deepest nesting of arrays and objects in `text` (brackets inside strings not counted). The
// text need not be valid JSON: the parser judges that afterwards.
inline int json_nesting(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char ch : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (ch == '\\')
        escaped = true;
      else if (ch == '"')
        in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > deepest) deepest = depth;
    } else if ((ch == ']' || ch == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// `text` as JSON of any kind, or Errc::malformed: "ORIGIN: SUBJECT nests deeper than 64 levels",
// "ORIGIN: SUBJECT is not valid JSON (parse error at line L, column C: why)" (invalid UTF-8 and
// numbers past a double's range among the reasons).
inline Result<nlohmann::json> parse_json(std::string_view text, const std::string& origin,
                                         std::string_view subject = "JSON") {
  if (json_nesting(text) > kMaxJsonNesting)
    return Error(Errc::malformed, origin + ": " + std::string(subject) + " nests deeper than " +
                                      std::to_string(kMaxJsonNesting) + " levels");
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    // A syntax error, or a number too large for a double (out_of_range.406: '4E48369' once ended
    // the process, found by tests/fuzz). The parser's own words, without its "[json...N] " tag.
    std::string text_of_error = e.what();
    if (const auto tag_end = text_of_error.find("] ");
        text_of_error.starts_with("[json.") && tag_end != text_of_error.npos)
      text_of_error = text_of_error.substr(tag_end + 2);
    // Its "last read" quotes the input, which may hold bytes that are not UTF-8: escaped, so that
    // the message can go into a JSON log.
    std::string why;
    for (unsigned char ch : text_of_error)
      why += ch >= 0x20 && ch < 0x7F ? std::string(1, static_cast<char>(ch))
                                     : fmt::format("\\x{:02X}", ch);
    return Error(Errc::malformed,
                 origin + ": " +
                     (subject == "JSON" ? std::string("not valid JSON")
                                        : std::string(subject) + " is not valid JSON") +
                     " (" + why + ")");
  }
}

// `text` as a JSON object (parse_json), or Errc::malformed "ORIGIN: NOT_OBJECT".
inline Result<nlohmann::json> parse_json_object(std::string_view text, const std::string& origin,
                                                std::string_view subject = "JSON",
                                                std::string_view not_object = "not a JSON object") {
  auto j = parse_json(text, origin, subject);
  if (j && !j->is_object()) return Error(Errc::malformed, origin + ": " + std::string(not_object));
  return j;
}

}  // namespace mmaemu
