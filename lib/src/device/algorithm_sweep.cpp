// mmaemu sweep: asks cuBLASLt's heuristic, set up as torch._scaled_mm sets it up, for every
// question of a sweep. Nothing runs on the GPU; each thread asks through its own cuBLASLt handle.
#include "mmaemu/tools/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "threads/parallel_for.hpp"

#ifdef MMAEMU_HAVE_CUDA_HEADERS
#include "device/torch_scaled_mm.hpp"
#endif

namespace mmaemu {

std::string describe_key(const SweepKey& key) {
  return fmt::format("ws{} {} {} {} {} bias={} sm={}", key.workspace_bytes,
                     key.rowwise ? "rowwise" : "tensorwise",
                     key.use_fast_accum ? "fast" : "promoted",
                     fp8_pair_name(key.a_dtype, key.b_dtype), describe(key.out_dtype).name,
                     key.bias_dtype ? std::string(describe(*key.bias_dtype).name) : "none",
                     key.sm_count_target > 0 ? std::to_string(key.sm_count_target) : "gpu");
}

std::optional<std::string> torch_refuses(const SweepKey& key) {
  if (key.a_dtype == Format::f8_e5m2 && key.b_dtype == Format::f8_e5m2)
    return "torch refuses e5m2 x e5m2";
  if (!key.bias_dtype) return std::nullopt;
  const Format bias = *key.bias_dtype, out = key.out_dtype;
  if (bias != Format::bf16 && bias != Format::f16) return "torch takes a bias of bf16 or f16 only";
  if (out == Format::f32) return "torch takes no bias with an f32 output";
  if ((out == Format::bf16 || out == Format::f16) && bias != out)
    return "torch wants the bias in the output's dtype";
  return std::nullopt;
}

std::vector<std::pair<std::string, int64_t>> AlgorithmConfig::attributes() const {
  return {{"id", id},
          {"tile_id", tile},
          {"splitk_num", splits},
          {"reduction_scheme", reduction_scheme},
          {"cta_swizzling", swizzle},
          {"custom_option", custom_option},
          {"stages_id", stages},
          {"inner_shape_id", inner_shape},
          {"cluster_shape_id", cluster_shape}};
}

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

namespace {

// The distinct algorithm configurations seen by all threads; each thread keeps its own copy of
// the map so that the lock is taken only for a configuration it has not met yet.
class AlgorithmIndex {
 public:
  int32_t index_of(const AlgorithmConfig& c, std::map<AlgorithmConfig, int32_t>& seen_here) {
    if (auto it = seen_here.find(c); it != seen_here.end()) return it->second;
    std::lock_guard lock(mutex_);
    auto [it, fresh] = all_.emplace(c, static_cast<int32_t>(order_.size()));
    if (fresh) order_.push_back(c);
    seen_here.emplace(c, it->second);
    return it->second;
  }
  std::vector<AlgorithmConfig> take() { return std::move(order_); }

 private:
  std::mutex mutex_;
  std::map<AlgorithmConfig, int32_t> all_;
  std::vector<AlgorithmConfig> order_;
};

AlgorithmConfig config_of(const AlgorithmChoice& c) {
  AlgorithmConfig a;
  auto get = [&](const char* name) { return static_cast<int32_t>(c.attribute(name).value_or(0)); };
  a.id = get("id");
  a.tile = get("tile_id");
  a.splits = c.splits();
  a.reduction_scheme = get("reduction_scheme");
  a.swizzle = get("cta_swizzling");
  a.custom_option = get("custom_option");
  a.stages = get("stages_id");
  a.inner_shape = get("inner_shape_id");
  a.cluster_shape = get("cluster_shape_id");
  return a;
}

}  // namespace

Result<HeuristicSweep> ask_heuristic(const SweepOptions& options, const std::vector<SweepKey>& keys,
                                     size_t count,
                                     const std::function<HeuristicQuery(size_t)>& query_of,
                                     const std::function<void(size_t, size_t)>& progress) {
  if (keys.empty()) return Error(Errc::invalid_argument, "sweep: no call configuration to ask for");
  auto session = device::open_lt_session(options.cublaslt_library, options.device);
  if (!session) return session.error();
  const device::LtSession& s = **session;
  HeuristicSweep result;
  result.gpu = s.gpu.name;
  result.cublaslt_library = s.library;
  result.compute_major = s.gpu.compute_major;
  result.compute_minor = s.gpu.compute_minor;
  result.multiprocessors = s.gpu.multiprocessors;
  result.driver_version = s.gpu.driver_version;
  result.cublaslt_version = s.version;
  // The heuristic refuses rowwise (OUTER_VEC) scale modes without scale pointers: give it real
  // buffers, as long as the largest m and n (never read, since nothing runs).
  int64_t longest = 16;
  for (size_t i = 0; i < count; ++i) {
    const HeuristicQuery q = query_of(i);
    if (q.key >= keys.size())
      return Error(Errc::invalid_argument, "sweep: a question names no configuration");
    if (q.m <= 0 || q.n <= 0 || q.k <= 0)
      return Error(Errc::invalid_argument,
                   fmt::format("sweep: shape {}x{}x{} is not positive", q.m, q.n, q.k));
    longest = std::max({longest, q.m, q.n});
  }
  const size_t vector_bytes = static_cast<size_t>(longest) * 4;
  device::DeviceBuffer scale_a(s.gpu.api, vector_bytes), scale_b(s.gpu.api, vector_bytes),
      bias(s.gpu.api, vector_bytes);
  if (!scale_a.ok() || !scale_b.ok() || !bias.ok())
    return Error(Errc::device_unavailable, "sweep: device memory could not be allocated");

  const int jobs = thread_count(options.jobs);
  result.jobs = jobs;
  result.answers.assign(count, HeuristicAnswer{});
  AlgorithmIndex index;
  std::atomic<size_t> next{0}, done{0};
  std::atomic<bool> stop{false};
  std::mutex error_mutex;
  std::optional<Error> failure;
  constexpr size_t kChunk = 256;
  auto worker = [&] {
    s.gpu.api.set_current(s.gpu.context);
    cublasLtHandle_t handle = nullptr;
    if (s.lt.create(&handle) != CUBLAS_STATUS_SUCCESS) {
      std::lock_guard lock(error_mutex);
      failure = Error(Errc::device_unavailable, "cublasLtCreate failed on a sweep thread");
      stop = true;
      return;
    }
    std::map<AlgorithmConfig, int32_t> seen_here;
    while (!stop) {
      const size_t begin = next.fetch_add(kChunk);
      if (begin >= count) break;
      const size_t end = std::min(count, begin + kChunk);
      for (size_t i = begin; i < end; ++i) {
        const HeuristicQuery q = query_of(i);
        if (!q.ask) {
          result.answers[i].algorithm = HeuristicAnswer::kRuled;
          continue;
        }
        const SweepKey& key = keys[q.key];
        const RecordCall c = record_call(key, q.m, q.n, q.k);
        device::TorchScaledMm call(s, c, key.workspace_bytes,
                                   {scale_a.get(), scale_b.get(), bias.get()}, handle);
        HeuristicAnswer& a = result.answers[i];
        if (auto choice = call.choose()) {
          a.algorithm = index.index_of(config_of(*choice), seen_here);
          a.workspace_bytes = choice->workspace_size;
          a.waves = choice->waves_count;
        } else {
          a.algorithm = HeuristicAnswer::kNothing;
        }
      }
      done += end - begin;
    }
    s.lt.destroy(handle);
  };
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < jobs; ++t) threads.emplace_back(worker);
  // The calling thread reports progress and watches the deadline.
  while (done < count && !stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (options.max_seconds > 0 && elapsed > options.max_seconds) stop = true;
    if (progress) progress(done, count);
  }
  for (auto& t : threads) t.join();
  if (failure) return *failure;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.asked = static_cast<size_t>(std::count_if(
      result.answers.begin(), result.answers.end(),
      [](const HeuristicAnswer& a) { return a.algorithm >= HeuristicAnswer::kNothing; }));
  result.algorithms = index.take();
  if (progress) progress(result.asked, count);
  return result;
}

Result<SweepResult> sweep_algorithms(const SweepOptions& options, const SweepGrid& grid,
                                     const std::function<void(size_t, size_t)>& progress) {
  if (grid.m.empty() || grid.n.empty() || grid.k.empty() || grid.keys.empty())
    return Error(Errc::invalid_argument, "sweep: the grid has an empty axis");
  const size_t cells = grid.m.size() * grid.n.size() * grid.k.size();
  auto query_of = [&](size_t i) {
    const size_t cell = i % cells;
    return HeuristicQuery{
        static_cast<uint32_t>(i / cells), grid.m[cell / (grid.n.size() * grid.k.size())],
        grid.n[(cell / grid.k.size()) % grid.n.size()], grid.k[cell % grid.k.size()]};
  };
  auto asked = ask_heuristic(options, grid.keys, cells * grid.keys.size(), query_of, progress);
  if (!asked) return asked.error();
  SweepResult result;
  result.gpu = asked->gpu;
  result.cublaslt_library = asked->cublaslt_library;
  result.compute_major = asked->compute_major;
  result.compute_minor = asked->compute_minor;
  result.multiprocessors = asked->multiprocessors;
  result.driver_version = asked->driver_version;
  result.cublaslt_version = asked->cublaslt_version;
  for (size_t t = 0; t < grid.keys.size(); ++t) {
    SweepTable table{grid.keys[t], grid.m, grid.n, grid.k, {}, {}, {}};
    for (size_t cell = 0; cell < cells; ++cell) {
      const HeuristicAnswer& a = asked->answers[t * cells + cell];
      if (a.algorithm < 0) {
        table.splits.push_back(0);
        table.reduction_schemes.push_back(0);
        table.choices.emplace_back();
        continue;
      }
      const AlgorithmConfig& c = asked->algorithms[static_cast<size_t>(a.algorithm)];
      table.splits.push_back(c.splits);
      table.reduction_schemes.push_back(c.reduction_scheme);
      AlgorithmChoice choice;
      choice.attributes = c.attributes();
      choice.workspace_size = a.workspace_bytes;
      choice.waves_count = a.waves;
      table.choices.push_back(std::move(choice));
    }
    result.tables.push_back(std::move(table));
  }
  return result;
}

#else

Result<HeuristicSweep> ask_heuristic(const SweepOptions&, const std::vector<SweepKey>&, size_t,
                                     const std::function<HeuristicQuery(size_t)>&,
                                     const std::function<void(size_t, size_t)>&) {
  return Error(Errc::unsupported,
               "this mmaemu was built without the CUDA toolkit's headers: sweep is unavailable");
}

Result<SweepResult> sweep_algorithms(const SweepOptions&, const SweepGrid&,
                                     const std::function<void(size_t, size_t)>&) {
  return Error(Errc::unsupported,
               "this mmaemu was built without the CUDA toolkit's headers: sweep is unavailable");
}

#endif

}  // namespace mmaemu
