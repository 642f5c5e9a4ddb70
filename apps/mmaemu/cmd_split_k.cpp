// mmaemu split-k: the split-K count a profile's model gives (what cuBLASLt's heuristic chooses),
// for shapes a user names, or checked against sweep logs cell by cell.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <array>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "mmaemu/profile.hpp"
#include "mmaemu/safetensors.hpp"
#include "mmaemu/tools/sweep.hpp"
#include "mmaemu/version.hpp"
#include "option_lists.hpp"
#include "progress.hpp"

namespace mmaemu::cli {
namespace {

using nlohmann::json;

struct SplitKOptions {
  std::string profile = "hopper", shapes, logs, out_dtype = "bf16", pair = "e4m3xe4m3",
              bias = "none", out, gpu;
  int64_t workspace = 1 << 20;
  int sm_count = 0;
  bool fast_accum = false, rowwise = false, json = false;
};

// The model of `gpu`'s choice; one no model was swept on is refused (split-k answers for the
// GPUs swept, and says which).
Result<const SplitKModel*> model_of(const Profile& p, const std::string& gpu) {
  if (!p.split_k_model)
    return Error(Errc::unsupported, "profile " + p.name + " has no split-K model (split_k.model)");
  const auto chosen = p.split_k_model_for(gpu);
  if (!chosen.swept_on_gpu)
    return Error(Errc::unsupported, "profile " + p.name + " has no split-K model of the " + gpu +
                                        "'s choice; its models hold " + p.split_k_gpus());
  return chosen.model;
}

// What the model says for each named shape under one configuration.
Result<int> ask(const SplitKOptions& o, const SplitKModel& model) {
  SplitKConfig c;
  c.sm_count = o.sm_count > 0 ? o.sm_count : model.reference_sm_count;
  c.workspace_bytes = o.workspace;
  c.rowwise = o.rowwise;
  c.use_fast_accum = o.fast_accum;
  const auto pair = fp8_operand_pair(o.pair);
  if (!pair) return Error(Errc::invalid_argument, "--pair: '" + o.pair + "' is not like e4m3xe5m2");
  std::tie(c.a_dtype, c.b_dtype) = *pair;
  const auto out = format_from_name(o.out_dtype);
  if (!out)
    return Error(Errc::invalid_argument, "--out-dtype: unknown dtype '" + o.out_dtype + "'");
  c.out_dtype = *out;
  if (o.bias != "none") {
    const auto b = format_from_name(o.bias);
    if (!b || (*b != Format::bf16 && *b != Format::f16))
      return Error(Errc::invalid_argument, "--bias: '" + o.bias + "' is not none, bf16 or f16");
    c.bias_dtype = *b;
  }
  const SplitKDecider decider(model, c);
  json rows = json::array();
  for (const auto& text : split_list(o.shapes)) {
    const auto shape = gemm_shape(text);
    if (!shape) return Error(Errc::invalid_argument, "--shapes: '" + text + "' is not MxNxK");
    const SplitKDecision d = decider.decide(shape->m, shape->n, shape->k);
    rows.push_back({{"m", shape->m},
                    {"n", shape->n},
                    {"k", shape->k},
                    {"splits", d.splits},
                    {"inside_envelope", d.checked},
                    {"basis", d.checked ? d.source : d.outside}});
    if (!o.json)
      std::cout << fmt::format(
          "{}x{}x{}: {} slice{} ({}{})\n", shape->m, shape->n, shape->k, d.splits,
          d.splits == 1 ? "" : "s",
          d.checked ? "" : "outside the envelope: ", d.checked ? d.source : d.outside);
  }
  if (o.json)
    std::cout << json({{"gpu", model.gpu},
                       {"device", model.describe_device(c.sm_count)},
                       {"library", model.library},
                       {"configuration", describe(c)},
                       {"shapes", rows}})
                     .dump()
              << "\n";
  return kExitOk;
}

// Every asked cell of every log against the model: swept and rule cells must agree; predicted
// cells are counted.
// One sweep log's cells against the model.
struct LogTally {
  size_t cells = 0, none = 0, checked = 0, checked_right = 0, predicted = 0, predicted_right = 0,
         split = 0, split_right = 0;
  json wrong = json::array();  // the first 20 differences
  // Per configuration: [cells, swept or ruled, predicted, predicted equal].
  std::vector<std::array<size_t, 4>> per_key;

  void add(uint32_t q, int64_t m, int64_t n, int64_t k, int splits, const SplitKDecider& decider) {
    // The heuristic returned no algorithm, or the shape is not one torch calls (N and K are
    // multiples of 16): nothing to compare.
    if (splits == 0 || n % 16 != 0 || k % 16 != 0) {
      ++none;
      return;
    }
    const SplitKDecision d = decider.decide(m, n, k);
    const bool right = d.splits == splits;
    auto& tally = per_key[q];
    ++tally[0];
    ++tally[d.checked ? 1 : 2];
    tally[3] += !d.checked && right;
    (d.checked ? checked : predicted) += 1;
    (d.checked ? checked_right : predicted_right) += right;
    if (splits > 1 || d.splits > 1) {
      ++split;
      split_right += right;
    }
    if (!right && wrong.size() < 20)
      wrong.push_back({{"key", q},
                       {"m", m},
                       {"n", n},
                       {"k", k},
                       {"cublaslt", splits},
                       {"model", d.splits},
                       {"basis", d.checked ? d.source : d.outside}});
  }
};

// The log's entry of the report, and how many checked cells differ: against the model of the
// GPU the log was swept on (or of `gpu`).
Result<std::pair<json, size_t>> check_log(const std::string& path, const Profile& profile,
                                          const std::string& gpu) {
  auto log = SweepLog::read(path);
  if (!log) return log.error();
  auto chosen = model_of(profile, gpu.empty() ? log->gpu() : gpu);
  if (!chosen) return Error(chosen.error().code(), path + ": " + chosen.error().message());
  const SplitKModel& model = **chosen;
  std::vector<SplitKDecider> deciders;
  for (const SweepKey& key : log->keys())
    deciders.emplace_back(model, split_k_config(key, log->multiprocessors()));
  LogTally t;
  t.per_key.assign(log->keys().size(), {0, 0, 0, 0});
  Progress progress(log->cells());
  log->visit([&](uint32_t q, int64_t m, int64_t n, int64_t k, int splits) {
    if (++t.cells % 65536 == 0) progress.set(t.cells, path);
    t.add(q, m, n, k, splits, deciders[q]);
  });
  progress.clear();
  const std::string verdict = fmt::format(
      "{}: {} cells; swept or ruled {}/{} equal, predicted {}/{} equal; where either splits "
      "{}/{} equal",
      path, t.cells - t.none, t.checked_right, t.checked, t.predicted_right, t.predicted,
      t.split_right, t.split);
  json keys = json::array();
  for (size_t q = 0; q < t.per_key.size(); ++q)
    keys.push_back({{"configuration", describe(deciders[q].config())},
                    {"cells", t.per_key[q][0]},
                    {"checked", t.per_key[q][1]},
                    {"predicted", t.per_key[q][2]},
                    {"predicted_equal", t.per_key[q][3]}});
  json entry = {{"log", path},
                {"gpu", log->gpu()},
                {"model_swept_on", model.gpu},
                {"cells", t.cells - t.none},
                {"not_compared", t.none},
                {"checked", t.checked},
                {"checked_equal", t.checked_right},
                {"predicted", t.predicted},
                {"predicted_equal", t.predicted_right},
                {"split_either", t.split},
                {"split_either_equal", t.split_right},
                {"verdict", verdict},
                {"first_differences", t.wrong},
                {"configurations", keys}};
  return std::pair{entry, t.checked - t.checked_right};
}

Result<int> check(const SplitKOptions& o, const Profile& profile) {
  json logs = json::array();
  size_t checked_wrong_total = 0;
  for (const auto& path : split_list(o.logs)) {
    auto entry = check_log(path, profile, o.gpu);
    if (!entry) return entry.error();
    // With --json, stdout holds the report alone; the verdicts go to the log.
    const std::string verdict = entry->first["verdict"].get<std::string>();
    if (o.json)
      spdlog::info("{}", verdict);
    else
      std::cout << verdict << std::endl;
    logs.push_back(entry->first);
    checked_wrong_total += entry->second;
  }
  const json report = {{"format", "mmaemu-split-k-check/1"},
                       {"mmaemu_version", kVersion},
                       {"mmaemu_commit", kGitCommit},
                       {"profile", o.profile},
                       {"library", profile.split_k_model->library},
                       {"logs", logs}};
  if (o.json) std::cout << report.dump() << "\n";
  if (!o.out.empty())
    if (auto ok = write_file_atomically(o.out, report.dump(1) + "\n"); !ok) return ok.error();
  return checked_wrong_total == 0 ? kExitOk : kExitVerdictFailed;
}

Result<int> run_split_k(const SplitKOptions& o) {
  if (o.shapes.empty() == o.logs.empty())
    return Error(Errc::invalid_argument, "give --shapes (ask) or --logs (check), one of the two");
  auto profile = load_profile(o.profile);
  if (!profile) return profile.error();
  if (!o.logs.empty()) return check(o, *profile);
  auto model = model_of(*profile, o.gpu);
  if (!model) return model.error();
  return ask(o, **model);
}

}  // namespace

Runner setup_split_k(CLI::App& app) {
  auto o = std::make_shared<SplitKOptions>();
  app.add_option("--shapes", o->shapes, "MxNxK list (torch shapes): the count for each");
  app.add_option("--logs", o->logs,
                 "mmaemu-sweep/2 logs (.safetensors): check the model on every cell");
  app.add_option("--profile", o->profile, "profile name or JSON file")->capture_default_str();
  app.add_option("--workspace", o->workspace, "cuBLASLt workspace bytes (torch's default: 1 MiB)")
      ->capture_default_str();
  app.add_option("--sm-count", o->sm_count,
                 "the GPU's SM count (default: the model's reference GPU)")
      ->check(CLI::Range(1, 4096));
  app.add_option(
      "--gpu", o->gpu,
      "the GPU whose choice is asked, as its driver names it (\"NVIDIA H100 80GB HBM3\"): "
      "it picks the profile's split-K model (default: the reference GPU, the H200; "
      "--logs: the GPU each log was swept on)");
  app.add_option("--out-dtype", o->out_dtype, "bf16, f16, f32, f8_e4m3")->capture_default_str();
  app.add_option("--pair", o->pair, "FP8 operands, e4m3xe4m3, e4m3xe5m2 or e5m2xe4m3")
      ->capture_default_str();
  app.add_option("--bias", o->bias, "none, bf16, f16")->capture_default_str();
  app.add_flag("--fast-accum", o->fast_accum, "use_fast_accum=True");
  app.add_flag("--rowwise", o->rowwise, "rowwise scales");
  app.add_flag("--json", o->json, "print JSON to stdout");
  app.add_option("--out", o->out, "--logs: write the check's report (JSON) to this file");
  return [o] { return run_split_k(*o); };
}

}  // namespace mmaemu::cli
