// mmaemu sweep: asks cuBLASLt's heuristic, set up as torch._scaled_mm sets it up, for every cell
// of a grid of shapes and call configurations. Nothing runs on the GPU, so a sweep of thousands of
// cells takes seconds.
#include "mmaemu/sweep.hpp"

#include <algorithm>
#include <cmath>

#ifdef MMAEMU_HAVE_CUDA_HEADERS
#include "device/torch_scaled_mm.hpp"
#endif

namespace mmaemu {

std::vector<int64_t> documented_axis(int64_t from, int64_t to) {
  std::vector<int64_t> axis;
  for (int64_t p = 1; p <= to; p *= 2) {
    if (p >= from) axis.push_back(p);
    const int64_t mid = p + p / 2;
    if (p >= 2 && mid >= from && mid <= to && mid < 2 * p) axis.push_back(mid);
  }
  return axis;
}

#ifdef MMAEMU_HAVE_CUDA_HEADERS

Result<SweepResult> sweep_algorithms(const SweepOptions& options, const SweepGrid& grid,
                                     const std::function<void(size_t, size_t)>& progress) {
  if (grid.m.empty() || grid.n.empty() || grid.k.empty() || grid.keys.empty())
    return Error(Errc::invalid_argument, "sweep: the grid has an empty axis");
  auto session = device::open_lt_session(options.cublaslt_library, options.device);
  if (!session) return session.error();
  const device::LtSession& s = **session;
  SweepResult result;
  result.gpu = s.gpu.name;
  result.cublaslt_library = s.library;
  result.compute_major = s.gpu.compute_major;
  result.compute_minor = s.gpu.compute_minor;
  result.multiprocessors = s.gpu.multiprocessors;
  result.driver_version = s.gpu.driver_version;
  result.cublaslt_version = s.version;
  // The heuristic refuses rowwise (OUTER_VEC) scale modes without scale pointers: give it real
  // buffers, as long as the largest m and n (never read, since nothing runs).
  const int64_t longest = std::max(grid.m.back(), grid.n.back());
  device::DeviceBuffer scale_a(s.gpu.api, static_cast<size_t>(longest) * 4), scale_b(s.gpu.api, static_cast<size_t>(longest) * 4),
      bias(s.gpu.api, static_cast<size_t>(longest) * 4);
  if (!scale_a.ok() || !scale_b.ok() || !bias.ok()) return Error(Errc::device_unavailable, "sweep: device memory could not be allocated");
  const size_t cells = grid.m.size() * grid.n.size() * grid.k.size();
  const size_t total = cells * grid.keys.size();
  size_t done = 0;
  for (const SweepKey& key : grid.keys) {
    SweepTable table;
    table.key = key;
    table.m = grid.m;
    table.n = grid.n;
    table.k = grid.k;
    table.splits.reserve(cells);
    for (int64_t m : grid.m)
      for (int64_t n : grid.n)
        for (int64_t k : grid.k) {
          RecordCall c;
          c.m = m;
          c.n = n;
          c.k = k;
          c.a_dtype = key.a_dtype;
          c.b_dtype = key.b_dtype;
          c.out_dtype = key.out_dtype;
          c.use_fast_accum = key.use_fast_accum;
          c.rowwise = key.rowwise;
          device::TorchScaledMm call(s, c, key.workspace_bytes, {scale_a.get(), scale_b.get(), bias.get()});
          auto choice = call.choose();
          if (choice) {
            table.splits.push_back(choice->splits());
            table.reduction_schemes.push_back(static_cast<int>(choice->attribute("reduction_scheme").value_or(0)));
            table.choices.push_back(std::move(choice).value());
          } else {
            table.splits.push_back(0);
            table.reduction_schemes.push_back(0);
            table.choices.emplace_back();
          }
          if (progress && (++done % 64 == 0 || done == total)) progress(done, total);
        }
    result.tables.push_back(std::move(table));
  }
  return result;
}

#else

Result<SweepResult> sweep_algorithms(const SweepOptions&, const SweepGrid&,
                                     const std::function<void(size_t, size_t)>&) {
  return Error(Errc::unsupported, "this mmaemu was built without the CUDA toolkit's headers: sweep is unavailable");
}

#endif

}  // namespace mmaemu
