#include <algorithm>

#include "mmaemu/exact.hpp"
#include "mmaemu/replay.hpp"

namespace mmaemu {

uint64_t ulp_distance(Format format, uint32_t a, uint32_t b) {
  if (decode(format, a).is_nan() || decode(format, b).is_nan()) return UINT64_MAX;
  const FormatDesc& d = describe(format);
  // Map sign-magnitude codes onto a monotonic integer line.
  auto line = [&](uint32_t bits) -> int64_t {
    const int64_t magnitude = bits & (d.sign_mask() - 1);
    return (bits & d.sign_mask()) ? -magnitude : magnitude;
  };
  const int64_t diff = line(a) - line(b);
  return static_cast<uint64_t>(diff < 0 ? -diff : diff);
}

Comparison compare_bits(Format format, std::span<const uint8_t> expected,
                        std::span<const uint8_t> actual) {
  Comparison c;
  const size_t n = expected.size() / describe(format).storage_bytes();
  c.total = static_cast<int64_t>(n);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t e = load_bits(format, expected, i);
    const uint32_t a =
        i < actual.size() / describe(format).storage_bytes() ? load_bits(format, actual, i) : ~e;
    if (e == a) continue;
    ++c.mismatches;
    if (!c.first) c.first = Mismatch{static_cast<int64_t>(i), e, a};
    c.max_ulp_distance = std::max(c.max_ulp_distance, ulp_distance(format, e, a));
  }
  return c;
}

}  // namespace mmaemu
