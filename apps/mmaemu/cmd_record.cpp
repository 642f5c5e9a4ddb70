// mmaemu record: torch._scaled_mm's cuBLASLt calls on a live GPU, written as a truth set.
#include <spdlog/spdlog.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "mmaemu/replay.hpp"
#include "mmaemu/tools/record.hpp"
#include "option_lists.hpp"

namespace mmaemu::cli {
namespace {

struct RecordCliOptions {
  std::string out, inputs_from, shapes = "64x64x256", dists = "normal", pairs = "e4m3xe4m3",
                                out_dtypes = "bf16", scales = "one", bias = "none",
                                fast_accum = "off,on", cublaslt = "libcublasLt.so.13";
  int64_t workspace = 1 << 20;
  uint64_t seed = 1;
  int sm_count = 0;
};

std::vector<uint8_t> bytes(std::span<const uint8_t> s) {
  return {s.begin(), s.end()};
}

// The calls of an existing truth set, with its own inputs.
Result<std::vector<RecordCall>> calls_from(const std::string& dir) {
  auto set = load_truth_set(dir);
  if (!set) return set.error();
  std::vector<RecordCall> calls;
  for (const auto& r : set->recordings) {
    if (r.op != "scaled_mm" || r.n_stored) continue;  // partial outputs cannot be re-run in full
    auto l = load_scaled_mm_call(*set, r);
    if (!l) return l.error();
    RecordCall c;
    c.id = r.id;
    c.m = r.m;
    c.n = r.n;
    c.k = r.k;
    c.a_dtype = r.a_dtype;
    c.b_dtype = r.b_dtype;
    c.out_dtype = r.out_dtype;
    c.use_fast_accum = r.use_fast_accum;
    c.a = bytes(l->call.a);
    c.b = bytes(l->call.b);
    c.scale_a = l->call.scale_a.f32_bits;
    c.scale_b = l->call.scale_b.f32_bits;
    c.rowwise = l->call.scale_a.rowwise();
    c.scale_a_value = r.scale_a.value;
    c.scale_b_value = r.scale_b.value;
    if (l->call.bias) {
      c.bias_dtype = l->call.bias->format;
      c.bias = bytes(l->call.bias->values);
    }
    c.dist = r.dist;
    calls.push_back(std::move(c));
  }
  return calls;
}

// A grid: shapes x operand pairs x distributions x output dtypes x scale modes x bias x fast
// accumulation off/on.
// The grid's options other than shapes, pairs and distributions, checked once.
struct GridSettings {
  std::vector<std::pair<std::string, Format>> outs;
  std::vector<std::string> scale_modes, biases;
  std::vector<bool> fast;
};

Result<GridSettings> grid_settings(const RecordCliOptions& o) {
  GridSettings g;
  for (const auto& out : split_list(o.out_dtypes, ',')) {
    const auto f = format_from_name(out);
    if (!f) return Error(Errc::invalid_argument, "--out-dtypes: unknown dtype '" + out + "'");
    g.outs.emplace_back(out, *f);
  }
  for (const auto& mode : split_list(o.scales, ',')) {
    if (mode != "tensorwise" && mode != "rowwise" && mode != "one")
      return Error(Errc::invalid_argument,
                   "--scales: '" + mode + "' is not one, tensorwise or rowwise");
    g.scale_modes.push_back(mode);
  }
  for (const auto& bias : split_list(o.bias, ',')) {
    if (bias != "none" && bias != "match")
      return Error(Errc::invalid_argument, "--bias: '" + bias + "' is not none or match");
    g.biases.push_back(bias);
  }
  for (const auto& fast : split_list(o.fast_accum, ',')) {
    if (fast != "off" && fast != "on")
      return Error(Errc::invalid_argument, "--fast-accum: '" + fast + "' is not off or on");
    g.fast.push_back(fast == "on");
  }
  return g;
}

Result<std::vector<RecordCall>> calls_from_grid(const RecordCliOptions& o) {
  auto g = grid_settings(o);
  if (!g) return g.error();
  std::vector<RecordCall> calls;
  uint64_t seed = o.seed;
  for (const auto& shape : split_list(o.shapes, ',')) {
    const auto parsed = gemm_shape(shape);
    if (!parsed) return Error(Errc::invalid_argument, "--shapes: '" + shape + "' is not MxNxK");
    const auto [m, n, k] = *parsed;
    for (const auto& pair : split_list(o.pairs, ',')) {
      const auto formats = fp8_operand_pair(pair);
      if (!formats)
        return Error(Errc::invalid_argument, "--pairs: '" + pair + "' is not like e4m3xe5m2");
      const auto [fa, fb] = *formats;
      for (const auto& dist : split_list(o.dists, ',')) {
        ++seed;
        auto a = draw_fp8(fa, dist, static_cast<size_t>(m * k), seed * 2);
        if (!a) return a.error();
        auto b = draw_fp8(fb, dist, static_cast<size_t>(n * k), seed * 2 + 1);
        if (!b) return b.error();
        for (const auto& out : g->outs)
          for (const auto& scale_mode : g->scale_modes)
            for (const auto& bias : g->biases)
              for (const bool fast : g->fast) {
                // torch takes a bias of the output's type, for bf16 and f16 outputs.
                if (bias == "match" && out.second != Format::bf16 && out.second != Format::f16)
                  continue;
                RecordCall c = grid_call({.m = m,
                                          .n = n,
                                          .k = k,
                                          .pair = pair,
                                          .a_dtype = fa,
                                          .b_dtype = fb,
                                          .dist = dist,
                                          .out_name = out.first,
                                          .out_dtype = out.second,
                                          .scale_mode = scale_mode,
                                          .bias = bias == "match",
                                          .fast = fast,
                                          .seed = seed,
                                          .index = calls.size()});
                c.a = *a;
                c.b = *b;
                calls.push_back(std::move(c));
              }
      }
    }
  }
  return calls;
}

Result<int> run_record(const RecordCliOptions& o) {
  auto calls = o.inputs_from.empty() ? calls_from_grid(o) : calls_from(o.inputs_from);
  if (!calls) return calls.error();
  const size_t total = calls->size();
  size_t done = 0;
  RecordOptions options{o.out, o.cublaslt, o.workspace, 0, o.sm_count};
  auto summary = record_truth_set(options, std::move(calls).value(), [&](const std::string& id) {
    spdlog::debug("recorded {} ({}/{})", id, ++done, total);
  });
  if (!summary) return summary.error();
  nlohmann::json j = {{"out", o.out},
                      {"recorded", summary->recorded},
                      {"skipped", summary->skipped},
                      {"nondeterministic", summary->nondeterministic}};
  std::cout << j.dump() << "\n";
  return summary->nondeterministic == 0 ? kExitOk : kExitVerdictFailed;
}

}  // namespace

Runner setup_record(CLI::App& app) {
  auto o = std::make_shared<RecordCliOptions>();
  app.add_option("--out", o->out, "folder of the truth set to write")->required();
  app.add_option("--inputs-from", o->inputs_from,
                 "re-run the calls of this truth set with its inputs");
  app.add_option("--shapes", o->shapes, "MxNxK list (torch shapes)")->capture_default_str();
  app.add_option("--dists", o->dists, "normal, wide, cancel, small, special")
      ->capture_default_str();
  app.add_option("--pairs", o->pairs, "e4m3xe4m3, e4m3xe5m2, e5m2xe4m3")->capture_default_str();
  app.add_option("--out-dtypes", o->out_dtypes, "bf16, f16, f32, f8_e4m3")->capture_default_str();
  app.add_option("--scales", o->scales,
                 "one (1.0), tensorwise (drawn), rowwise (drawn per row/column)")
      ->capture_default_str();
  app.add_option("--bias", o->bias, "none, match (a bias of the output dtype, bf16/f16 outputs)")
      ->capture_default_str();
  app.add_option("--fast-accum", o->fast_accum, "off, on (use_fast_accum)")->capture_default_str();
  app.add_option("--workspace", o->workspace, "cuBLASLt workspace bytes")->capture_default_str();
  app.add_option("--cublaslt", o->cublaslt, "the libcublasLt to load")->capture_default_str();
  app.add_option("--sm-count", o->sm_count,
                 "ask cuBLASLt's heuristic to choose as for a GPU with this many SMs "
                 "(SM_COUNT_TARGET; 114: "
                 "an H100 PCIe's choice on an H200)")
      ->check(CLI::Range(0, 4096));
  app.add_option("--seed", o->seed, "first seed of the grid")->capture_default_str();
  return [o] { return run_record(*o); };
}

}  // namespace mmaemu::cli
