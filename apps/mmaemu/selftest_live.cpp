// mmaemu selftest --live (T3p): random torch._scaled_mm calls through cuBLASLt on this GPU,
// replayed through the emulator with the profile that describes the GPU, compared bit for bit.
#include "selftest_live.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "backend_option.hpp"
#include "command.hpp"
#include "mmaemu/device.hpp"
#include "mmaemu/exact.hpp"
#include "mmaemu/gpu_family.hpp"
#include "mmaemu/record.hpp"
#include "mmaemu/replay.hpp"
#include "mmaemu/sweep.hpp"
#include "mmaemu/version.hpp"
#include "option_lists.hpp"
#include "progress.hpp"

namespace mmaemu::cli {
namespace {

// A value of [lo, hi] on the step lattice, log-uniformly: small and large sizes alike.
int64_t log_uniform(std::mt19937_64& rng, int64_t lo, int64_t hi, int64_t step) {
  const double v = std::exp(std::uniform_real_distribution<double>(
      std::log(static_cast<double>(lo)), std::log(static_cast<double>(hi + step)))(rng));
  return std::clamp(
      lo + static_cast<int64_t>((v - static_cast<double>(lo)) / static_cast<double>(step)) * step,
      lo, lo + (hi - lo) / step * step);
}

// Random calls of every configuration torch can make: operand pairs, output dtypes, fast
// accumulation, tensorwise and rowwise scales, biases, the given workspaces; half of the shapes
// from where cuBLASLt splits K (small m and n, large k), the rest anywhere; M any, N and K
// multiples of 16, off any grid.
Result<std::vector<RecordCall>> random_calls(int count, uint64_t seed,
                                             const std::vector<int64_t>& workspaces, int jobs) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int lo, int hi) {
    return lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo + 1));
  };
  const std::pair<Format, Format> pairs[] = {{Format::f8_e4m3, Format::f8_e4m3},
                                             {Format::f8_e4m3, Format::f8_e5m2},
                                             {Format::f8_e5m2, Format::f8_e4m3}};
  const Format outs[] = {Format::bf16, Format::f16, Format::f32, Format::f8_e4m3};
  const char* dists[] = {"normal", "wide", "cancel", "small", "special"};
  constexpr int64_t kMaxMacs = int64_t{1} << 30;  // keeps the CPU replay of one call under a second
  std::vector<RecordCall> calls;
  for (int i = 0; i < count; ++i) {
    RecordCall c;
    const bool splitting = i % 2 == 0;
    do {
      c.m = log_uniform(rng, 1, splitting ? 1024 : 4096, 1);
      c.n = log_uniform(rng, 16, splitting ? 1024 : 4096, 16);
      c.k = splitting ? log_uniform(rng, 4096, 65536, 16) : log_uniform(rng, 16, 16384, 16);
    } while (c.m * c.n * c.k > kMaxMacs);
    std::tie(c.a_dtype, c.b_dtype) = pairs[rng() % 3];
    c.out_dtype = outs[rng() % 4];
    c.use_fast_accum = rng() & 1;
    c.workspace_bytes = workspaces[rng() % workspaces.size()];
    c.dist = dists[rng() % 5];
    c.seed = seed * 1000 + static_cast<uint64_t>(i);
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
    // torch: a bias of the output's dtype for bf16/f16 outputs, bf16 or f16 for FP8 outputs.
    if (c.out_dtype != Format::f32 && rng() % 3 == 0) {
      c.bias_dtype =
          c.out_dtype == Format::f8_e4m3 ? (rng() & 1 ? Format::bf16 : Format::f16) : c.out_dtype;
      c.bias.resize(static_cast<size_t>(c.n) * 2);
      std::normal_distribution<double> normal(0.0, 1.0);
      for (int64_t j = 0; j < c.n; ++j)
        store_bits(*c.bias_dtype, c.bias, static_cast<size_t>(j),
                   encode(*c.bias_dtype, ExactValue::from_double(normal(rng))));
    }
    c.id = fmt::format(
        "live_{:04}_{}x{}x{}_{}x{}_{}_{}{}{}_{}_ws{}", i, c.m, c.n, c.k, describe(c.a_dtype).name,
        describe(c.b_dtype).name, describe(c.out_dtype).name, c.dist, c.rowwise ? "_rowwise" : "",
        c.bias_dtype ? "_bias" : "", c.use_fast_accum ? "fast" : "promoted", *c.workspace_bytes);
    calls.push_back(std::move(c));
  }
  // The operands last, on every core (drawn on one thread, 2000 calls took longer than a device
  // call lasts): each call's from its own seed, so the calls are the same whatever the threads.
  if (auto drawn = draw_operands(calls, threads_for_jobs(jobs)); !drawn) return drawn.error();
  return calls;
}

}  // namespace

Result<int> run_live_selftest(const LiveSelftestOptions& o) {
  if (o.split_k_from != "recording" && o.split_k_from != "profile")
    return Error(Errc::invalid_argument,
                 "--split-k-from: '" + o.split_k_from + "' is not recording or profile");
  const DeviceReport devices = probe_devices();
  if (!devices.driver_loaded || devices.gpus.empty())
    return Error(Errc::device_unavailable,
                 "--live needs a GPU: " +
                     (devices.why_unavailable.empty() ? "none found" : devices.why_unavailable));
  const GpuInfo& gpu = devices.gpus.front();
  const auto arch = architecture_of_gpu(gpu.name);
  std::string profile_name = arch ? builtin_profile_for(*arch).value_or("") : "";
  if (!o.profile.empty()) profile_name = o.profile;
  if (profile_name.empty()) {
    std::cout << fmt::format(
        "selftest --live: no profile describes {} (sm_{}{}, architecture {}); there is no model "
        "to check against\n",
        gpu.name, gpu.compute_major, gpu.compute_minor, arch.value_or("unknown"));
    return kExitUnsupported;
  }
  auto profile = load_profile(profile_name);  // a name the executable carries, or a JSON file
  if (!profile) return profile.error();
  auto opened = open_backend(o.backend);
  if (!opened) return opened.error();
  const Backend backend = *opened;
  const auto parsed = byte_counts(o.workspaces);
  if (!parsed || parsed->empty())
    return Error(Errc::invalid_argument,
                 "--workspaces: '" + o.workspaces + "' is not a list of byte counts");
  const std::vector<int64_t>& workspaces = *parsed;
  // Where the time goes (a call took about a second on the H200, 2026-12-03): each phase's
  // seconds are logged and written to the JSON log, and each call's replay time.
  using Clock = std::chrono::steady_clock;
  const auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  auto phase = Clock::now();
  auto calls = random_calls(o.calls, o.seed, workspaces, o.jobs);
  if (!calls) return calls.error();
  const std::filesystem::path dir = o.keep.empty() ? std::filesystem::temp_directory_path() /
                                                         fmt::format("mmaemu-live-{}", ::getpid())
                                                   : std::filesystem::path(o.keep);
  spdlog::info("recording {} random calls through {} on {} into {}", o.calls, o.cublaslt, gpu.name,
               dir.string());
  const double drawing_seconds = seconds_since(phase);
  phase = Clock::now();
  Progress recording(calls->size());
  auto summary = record_truth_set({dir, o.cublaslt, workspaces.front(), 0, o.sm_count},
                                  std::move(calls).value(),
                                  [&](const std::string& id) { recording.step(id); });
  recording.clear();
  if (!summary) return summary.error();
  const double recording_seconds = seconds_since(phase);
  phase = Clock::now();
  auto set = load_truth_set(dir);
  if (!set) return set.error();
  int exact = 0, agrees = 0, inside = 0, split = 0, logged = 0;
  nlohmann::json results = nlohmann::json::array();
  ScaledMmReplayOptions replay_options;
  replay_options.split_k_from =
      o.split_k_from == "profile" ? SplitKFrom::profile : SplitKFrom::recording;
  Progress replaying(set->recordings.size());
  for (const auto& r : set->recordings) {
    replaying.step(r.id);
    const auto call_start = Clock::now();
    auto rep = replay_scaled_mm(*set, r, *profile, backend, o.jobs, replay_options);
    if (!rep) return rep.error();
    // The profile's own choice, whatever the replay used: does it equal cuBLASLt's? With
    // --split-k-from profile the replay's plan is that choice; else the call is resolved again.
    Result<Plan> own = rep->plan;
    if (replay_options.split_k_from == SplitKFrom::recording) {
      auto loaded = load_scaled_mm_call(*set, r);
      if (!loaded) return loaded.error();
      own = profile->resolve(loaded->call, {.known_split_k = std::nullopt,
                                            .workspace_bytes = recorded_workspace_bytes(*set, r),
                                            .sm_count = heuristic_sm_count(*set, r)});
      if (!own) return own.error();
    }
    const bool agree = r.recorded_split_k && own->split_k == *r.recorded_split_k;
    const bool ok = rep->comparison.bit_exact();
    exact += ok;
    logged += r.recorded_split_k.has_value();
    agrees += agree;
    split += r.recorded_split_k.value_or(1) > 1;
    inside += own->envelope.inside;
    if (!ok || (r.recorded_split_k && !agree)) {
      replaying.clear();
      if (!ok)
        std::cout << fmt::format("FAIL {}: {}/{} elements differ\n", r.id,
                                 rep->comparison.mismatches, rep->comparison.total);
      if (r.recorded_split_k && !agree)
        std::cout << fmt::format("SPLIT {}: cuBLASLt used {} slices, the profile says {} ({})\n",
                                 r.id, *r.recorded_split_k, own->split_k, own->split_k_source);
    }
    nlohmann::json call = {{"id", r.id},
                           {"m", r.m},
                           {"n", r.n},
                           {"k", r.k},
                           {"verdict", ok ? "bit-exact" : "mismatch"},
                           {"mismatches", rep->comparison.mismatches},
                           {"split_k_used", rep->plan.split_k},
                           {"profile_split_k", own->split_k},
                           {"profile_inside_envelope", own->envelope.inside},
                           {"profile_agrees", agree},
                           {"replay_seconds", seconds_since(call_start)}};
    if (r.recorded_split_k) call["cublaslt_split_k"] = *r.recorded_split_k;
    if (!own->envelope.inside) call["envelope_reason"] = own->envelope.reason;
    results.push_back(call);
  }
  replaying.clear();
  const double replaying_seconds = seconds_since(phase);
  spdlog::info("selftest --live: {:.1f} s drawing operands, {:.1f} s recording, {:.1f} s replaying",
               drawing_seconds, recording_seconds, replaying_seconds);
  const int total = static_cast<int>(set->recordings.size());
  const std::string verdict = fmt::format(
      "{}/{} calls bit-exact on {} with split-K counts from the {} ({} recorded twice: {} "
      "nondeterministic, {} "
      "skipped by the heuristic); the profile's split-K choice equal to cuBLASLt's on {}/{} calls "
      "({} of them "
      "split), {} inside its envelope",
      exact, total, gpu.name, o.split_k_from == "profile" ? "profile" : "recordings",
      summary->recorded, summary->nondeterministic, summary->skipped, agrees, logged, split,
      inside);
  if (!o.json_path.empty()) {
    nlohmann::json j = {{"format", "mmaemu-selftest-live/2"},
                        {"gpu", gpu.name},
                        {"sm", fmt::format("{}.{}", gpu.compute_major, gpu.compute_minor)},
                        {"profile", profile_name},
                        {"cublaslt", o.cublaslt},
                        {"workspaces", workspaces},
                        {"sm_count_target", o.sm_count},
                        {"split_k_from", o.split_k_from},
                        {"backend", o.backend},
                        {"seed", o.seed},
                        {"environment", nlohmann::json::parse(set->environment_json)},
                        {"mmaemu_version", kVersion},
                        {"mmaemu_commit", kGitCommit},
                        {"verdict", verdict},
                        {"calls_bit_exact", exact},
                        {"calls", total},
                        {"split_k_agreed", agrees},
                        {"split_k_logged", logged},
                        {"calls_split", split},
                        {"seconds",
                         {{"drawing", drawing_seconds},
                          {"recording", recording_seconds},
                          {"replaying", replaying_seconds}}},
                        {"results", results}};
    if (auto ok = write_file_atomically(o.json_path, j.dump(1) + "\n"); !ok) return ok.error();
  }
  if (o.keep.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::cout << "selftest --live: " << verdict << std::endl;
  return exact == total && agrees == logged && summary->nondeterministic == 0 && total > 0
             ? kExitOk
             : kExitVerdictFailed;
}

}  // namespace mmaemu::cli
