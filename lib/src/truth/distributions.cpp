#include <random>

#include "mmaemu/exact.hpp"
#include "mmaemu/tools/record.hpp"
#include "threads/parallel_for.hpp"

namespace mmaemu {

Result<std::vector<uint8_t>> draw_fp8(Format format, const std::string& dist, size_t count,
                                      uint64_t seed) {
  if (format != Format::f8_e4m3 && format != Format::f8_e5m2)
    return Error(Errc::invalid_argument, "draw_fp8: not an FP8 format");
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  const auto round = [&](double v) {
    return static_cast<uint8_t>(encode(format, ExactValue::from_double(v),
                                       {Rounding::nearest_even, Overflow::saturate, -1}));
  };
  std::vector<uint8_t> out(count);
  if (dist == "normal") {
    for (auto& x : out) x = round(normal(rng));
  } else if (dist == "wide") {
    for (auto& x : out) {
      do x = static_cast<uint8_t>(rng());
      while (!decode(format, x).is_finite());
    }
  } else if (dist == "cancel") {
    for (size_t i = 0; i < count; ++i) out[i] = i % 2 ? out[i - 1] ^ 0x80 : round(normal(rng));
  } else if (dist == "small") {
    const int fraction_bits = describe(format).fraction_bits;
    for (auto& x : out)
      x = static_cast<uint8_t>((rng() & 0x80) | ((rng() % 3) << fraction_bits) |
                               (rng() & ((1 << fraction_bits) - 1)));
  } else if (dist == "special") {
    const uint8_t specials[] = {0x00, 0x80, 0x01, 0x81, 0x7F, 0xFF,
                                0x7E, 0xFE, 0x7C, 0xFC, 0x7B, 0xFB};
    for (auto& x : out) x = rng() % 16 == 0 ? specials[rng() % 12] : round(normal(rng));
  } else {
    return Error(Errc::invalid_argument,
                 "unknown distribution '" + dist + "' (normal, wide, cancel, small, special)");
  }
  return out;
}

Result<void> draw_operands(std::span<RecordCall> calls, int threads) {
  std::vector<std::optional<Error>> failed(calls.size());
  parallel_for(static_cast<int64_t>(calls.size()), threads, [&](int64_t i) {
    RecordCall& c = calls[static_cast<size_t>(i)];
    auto a = draw_fp8(c.a_dtype, c.dist, static_cast<size_t>(c.m * c.k), c.seed * 2);
    auto b = draw_fp8(c.b_dtype, c.dist, static_cast<size_t>(c.n * c.k), c.seed * 2 + 1);
    if (!a || !b) {
      failed[static_cast<size_t>(i)] = !a ? a.error() : b.error();
      return;
    }
    c.a = std::move(a).value();
    c.b = std::move(b).value();
  });
  for (const auto& e : failed)
    if (e) return *e;
  return {};
}

}  // namespace mmaemu
