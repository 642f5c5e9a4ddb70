// mmaemu selftest --live (T3p): random torch._scaled_mm calls through cuBLASLt on this GPU,
// replayed through the emulator with the profile that describes the GPU, compared bit for bit.
#include "selftest_live.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "command.hpp"
#include "mmaemu/device.hpp"
#include "mmaemu/exact.hpp"
#include "mmaemu/gpu_family.hpp"
#include "mmaemu/record.hpp"
#include "mmaemu/replay.hpp"
#include "mmaemu/sweep.hpp"
#include "progress.hpp"

namespace mmaemu::cli {
namespace {

Result<std::vector<RecordCall>> random_calls(int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo + 1)); };
  const std::pair<Format, Format> pairs[] = {{Format::f8_e4m3, Format::f8_e4m3},
                                             {Format::f8_e4m3, Format::f8_e5m2},
                                             {Format::f8_e5m2, Format::f8_e4m3}};
  const Format outs[] = {Format::bf16, Format::f16, Format::f32, Format::f8_e4m3};
  const char* dists[] = {"normal", "wide", "cancel", "small", "special"};
  std::vector<RecordCall> calls;
  for (int i = 0; i < count; ++i) {
    RecordCall c;
    // Shapes of the documented sweep grid, so that the profile's split-K table is checked too.
    static const auto mn = documented_axis(16, 512), ks = documented_axis(32, 4096);
    c.m = mn[rng() % mn.size()];
    c.n = mn[rng() % mn.size()];
    c.k = ks[rng() % ks.size()];
    std::tie(c.a_dtype, c.b_dtype) = pairs[rng() % 3];
    c.out_dtype = outs[rng() % 4];
    c.use_fast_accum = rng() & 1;
    c.dist = dists[rng() % 5];
    c.seed = seed * 1000 + static_cast<uint64_t>(i);
    auto a = draw_fp8(c.a_dtype, c.dist, static_cast<size_t>(c.m * c.k), c.seed * 2);
    auto b = draw_fp8(c.b_dtype, c.dist, static_cast<size_t>(c.n * c.k), c.seed * 2 + 1);
    if (!a) return a.error();
    if (!b) return b.error();
    c.a = std::move(a).value();
    c.b = std::move(b).value();
    auto scale = [&] {
      const double v = std::ldexp(1.0 + static_cast<double>(rng() % 8) / 8.0, pick(-3, 3));
      return encode(Format::f32, ExactValue::from_double(v));
    };
    c.rowwise = (c.out_dtype == Format::bf16 || c.out_dtype == Format::f32) && rng() % 3 == 0;
    if (c.rowwise) {
      for (int64_t r = 0; r < c.m; ++r) c.scale_a.push_back(scale());
      for (int64_t r = 0; r < c.n; ++r) c.scale_b.push_back(scale());
    } else {
      c.scale_a = {scale()};
      c.scale_b = {scale()};
    }
    if ((c.out_dtype == Format::bf16 || c.out_dtype == Format::f16) && rng() % 3 == 0) {
      c.bias_dtype = c.out_dtype;
      c.bias.resize(static_cast<size_t>(c.n) * 2);
      std::normal_distribution<double> normal(0.0, 1.0);
      for (int64_t j = 0; j < c.n; ++j)
        store_bits(c.out_dtype, c.bias, static_cast<size_t>(j), encode(c.out_dtype, ExactValue::from_double(normal(rng))));
    }
    c.id = fmt::format("live_{:03}_{}x{}x{}_{}x{}_{}_{}{}{}_{}", i, c.m, c.n, c.k, describe(c.a_dtype).name,
                       describe(c.b_dtype).name, describe(c.out_dtype).name, c.dist, c.rowwise ? "_rowwise" : "",
                       c.bias_dtype ? "_bias" : "", c.use_fast_accum ? "fast" : "promoted");
    calls.push_back(std::move(c));
  }
  return calls;
}

}  // namespace

Result<int> run_live_selftest(const LiveSelftestOptions& o) {
  const DeviceReport devices = probe_devices();
  if (!devices.driver_loaded || devices.gpus.empty())
    return Error(Errc::device_unavailable,
                 "--live needs a GPU: " + (devices.why_unavailable.empty() ? "none found" : devices.why_unavailable));
  const GpuInfo& gpu = devices.gpus.front();
  const auto arch = architecture_of_gpu(gpu.name);
  std::string profile_name;
  if (arch)
    for (const auto& name : builtin_profile_names())
      if (auto p = load_profile(name); p && p->architecture == *arch) profile_name = name;
  if (!o.profile.empty()) profile_name = o.profile;
  if (profile_name.empty()) {
    std::cout << fmt::format("selftest --live: no profile describes {} (sm_{}{}, architecture {}); there is no model "
                             "to check against\n",
                             gpu.name, gpu.compute_major, gpu.compute_minor, arch.value_or("unknown"));
    return kExitUnsupported;
  }
  auto profile = load_profile(profile_name);  // a name the executable carries, or a JSON file
  if (!profile) return profile.error();
  auto calls = random_calls(o.calls, o.seed);
  if (!calls) return calls.error();
  const std::filesystem::path dir = o.keep.empty() ? std::filesystem::temp_directory_path() /
                                                         fmt::format("mmaemu-live-{}", ::getpid())
                                                   : std::filesystem::path(o.keep);
  spdlog::info("recording {} random calls through {} on {} into {}", o.calls, o.cublaslt, gpu.name, dir.string());
  Progress recording(calls->size());
  auto summary = record_truth_set({dir, o.cublaslt, o.workspace, 0}, std::move(calls).value(),
                                  [&](const std::string& id) { recording.step(id); });
  recording.clear();
  if (!summary) return summary.error();
  auto set = load_truth_set(dir);
  if (!set) return set.error();
  int exact = 0, table_agrees = 0, inside = 0;
  nlohmann::json results = nlohmann::json::array();
  Progress replaying(set->recordings.size());
  for (const auto& r : set->recordings) {
    replaying.step(r.id);
    auto rep = replay_scaled_mm(*set, r, *profile, Backend::cpu, o.jobs);
    if (!rep) return rep.error();
    auto loaded = load_scaled_mm_call(*set, r);
    if (!loaded) return loaded.error();
    auto by_table = profile->resolve(loaded->call, std::nullopt, o.workspace);
    const bool agrees = by_table && by_table->split_k == rep->plan.split_k && by_table->envelope.inside;
    const bool ok = rep->comparison.bit_exact();
    exact += ok;
    table_agrees += agrees;
    inside += by_table && by_table->envelope.inside;
    if (!ok) {
      replaying.clear();
      std::cout << fmt::format("FAIL {}: {}/{} elements differ\n", r.id, rep->comparison.mismatches, rep->comparison.total);
    }
    results.push_back({{"id", r.id}, {"verdict", ok ? "bit-exact" : "mismatch"}, {"mismatches", rep->comparison.mismatches},
                       {"split_k", rep->plan.split_k}, {"profile_table_agrees", agrees}});
  }
  replaying.clear();
  const int total = static_cast<int>(set->recordings.size());
  const std::string verdict = fmt::format("{}/{} calls bit-exact on {} ({} recorded twice: {} nondeterministic, {} skipped "
                                          "by the heuristic); the profile's split-K table agreed on {}/{}",
                                          exact, total, gpu.name, summary->recorded, summary->nondeterministic,
                                          summary->skipped, table_agrees, total);
  if (!o.json_path.empty()) {
    nlohmann::json j = {{"format", "mmaemu-selftest-live/1"}, {"gpu", gpu.name},
                        {"sm", fmt::format("{}.{}", gpu.compute_major, gpu.compute_minor)},
                        {"profile", profile_name}, {"cublaslt", o.cublaslt}, {"workspace_bytes", o.workspace},
                        {"seed", o.seed}, {"environment", nlohmann::json::parse(set->environment_json)},
                        {"verdict", verdict}, {"calls", results}};
    if (auto ok = write_file_atomically(o.json_path, j.dump(1) + "\n"); !ok) return ok.error();
  }
  if (o.keep.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::cout << "selftest --live: " << verdict << std::endl;
  return exact == total && summary->nondeterministic == 0 && total > 0 ? kExitOk : kExitVerdictFailed;
}

}  // namespace mmaemu::cli
