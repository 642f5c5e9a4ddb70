// Each call's operands from its distribution and seed (mmaemu/tools/calls.hpp).
#include "mmaemu/tools/calls.hpp"
#include "threads/parallel_for.hpp"

namespace mmaemu {

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
