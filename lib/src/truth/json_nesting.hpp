// How deeply a JSON text nests, found by a scan before it is parsed: nlohmann::json parses a
// 100,000-deep array, but copying the value recurses once per level and overflows the stack
// (issue 13). Every file the library parses is refused above kMaxJsonNesting.
#pragma once

#include <string_view>

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

}  // namespace mmaemu
