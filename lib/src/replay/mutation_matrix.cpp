// The mutation matrix: mutants of presets (the same one-step moves as the pinning test and
// probe), of algorithms (promotion, split-K grain, epilogue order and folding), and of the split
// count, each replayed against the given truth sets.
#include "mmaemu/tools/mutation_matrix.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "mmaemu/algorithm.hpp"
#include "mmaemu/tools/preset_moves.hpp"
#include "mmaemu/truth_set_replay.hpp"
#include "mmaemu/version.hpp"

namespace mmaemu {
namespace {

// One mutant: how it changes a replay, and which target it touches.
struct Mutant {
  MutantOutcome outcome;
  std::shared_ptr<const Preset> preset;  // the mutated copy, for preset mutants
  const Preset* original = nullptr;
  std::function<bool(Plan&)> change_plan;  // true when it changed this plan
  // Whether a recording, as the unmutated replay resolved it, is one the mutant can change.
  std::function<bool(const RecordingOutcome&)> touches;
};

MutantOutcome outcome_of(std::string kind, std::string target, std::string parameter,
                         std::string change) {
  MutantOutcome o;
  o.kind = std::move(kind);
  o.target = std::move(target);
  o.parameter = std::move(parameter);
  o.change = std::move(change);
  return o;
}

struct AlgorithmMove {
  std::string parameter, change;
  std::function<bool(Algorithm&)> apply;  // false when impossible for this algorithm
};

std::vector<AlgorithmMove> algorithm_moves() {
  return {
      {"accumulation", "the other accumulation (promoted <-> one chain)",
       [](Algorithm& a) {
         a.accumulation = a.accumulation == Accumulation::promoted ? Accumulation::single_chain
                                                                   : Accumulation::promoted;
         return true;
       }},
      {"promotion_interval", "promotion every 64 elements of K instead of 128",
       [](Algorithm& a) {
         return a.accumulation == Accumulation::promoted && (a.promotion_interval /= 2, true);
       }},
      {"promotion_interval", "promotion every 256 elements of K instead of 128",
       [](Algorithm& a) {
         return a.accumulation == Accumulation::promoted && (a.promotion_interval *= 2, true);
       }},
      {"split_k_grain", "split-K slices in multiples of 256 instead of 128",
       [](Algorithm& a) { return a.split_k_grain *= 2, true; }},
      {"split_k_grain", "split-K slices in multiples of 64 instead of 128",
       [](Algorithm& a) { return a.split_k_grain > 16 && (a.split_k_grain /= 2, true); }},
      {"rowwise_order", "the other order of the rowwise scale multiplies",
       [](Algorithm& a) {
         a.rowwise_order = a.rowwise_order == RowwiseScaleOrder::column_first
                               ? RowwiseScaleOrder::row_first
                               : RowwiseScaleOrder::column_first;
         return true;
       }},
      {"fold_tensorwise_scales", "tensorwise scales folded <-> applied one by one",
       [](Algorithm& a) { return a.fold_tensorwise_scales = !a.fold_tensorwise_scales, true; }},
      {"fused_bias", "the last scale multiply and the bias add fused <-> separate",
       [](Algorithm& a) { return a.fused_bias = !a.fused_bias, true; }},
  };
}

std::vector<Mutant> preset_mutants(int& not_applicable) {
  std::vector<Mutant> out;
  for (const Preset& p : builtin_presets())
    for (const PresetMove& move : preset_moves()) {
      auto copy = std::make_shared<Preset>(p);
      if (!move.apply(*copy)) {
        ++not_applicable;
        continue;
      }
      Mutant m;
      m.outcome = outcome_of("preset", p.name, move.parameter, move.label);
      m.original = &p;
      m.preset = copy;
      m.touches = [name = p.name](const RecordingOutcome& o) { return o.preset == name; };
      m.change_plan = [orig = &p, copy](Plan& plan) {
        if (plan.preset != orig) return false;
        plan.preset = copy.get();
        return true;
      };
      out.push_back(std::move(m));
    }
  return out;
}

std::vector<Mutant> algorithm_mutants(int& not_applicable) {
  std::vector<Mutant> out;
  for (const Algorithm& a : builtin_algorithms())
    for (const AlgorithmMove& move : algorithm_moves()) {
      Algorithm probe = a;
      if (!move.apply(probe)) {
        ++not_applicable;
        continue;
      }
      Mutant m;
      m.outcome = outcome_of("algorithm", a.name, move.parameter, move.change);
      m.touches = [name = a.name](const RecordingOutcome& o) { return o.algorithm == name; };
      m.change_plan = [name = a.name, apply = move.apply](Plan& plan) {
        if (plan.algorithm.name != name) return false;
        return apply(plan.algorithm);
      };
      out.push_back(std::move(m));
    }
  return out;
}

std::vector<Mutant> plan_mutants() {
  std::vector<Mutant> out;
  Mutant more;
  more.outcome = outcome_of("plan", "every scaled_mm plan", "split_k", "one split-K slice more");
  more.change_plan = [](Plan& p) { return ++p.split_k, true; };
  more.touches = [](const RecordingOutcome& o) { return o.op == "scaled_mm"; };
  out.push_back(more);
  Mutant fewer;
  fewer.outcome =
      outcome_of("plan", "every split scaled_mm plan", "split_k", "one split-K slice fewer");
  fewer.change_plan = [](Plan& p) { return p.split_k > 1 && (--p.split_k, true); };
  fewer.touches = [](const RecordingOutcome& o) { return o.op == "scaled_mm" && o.split_k > 1; };
  out.push_back(fewer);
  return out;
}

std::vector<FixedRule> fixed_rules() {
  return {
      {"the K = 16 mod 128 tail of split-K slices (cuBLASLt drops the last 16 elements of K when "
       "the "
       "slices leave the last one empty)",
       "kernels/common/k_slices.h (split_k_slice)",
       "the rule's alternatives replayed against every slice recording: validation_logs/2026-12-04/"
       "split-k (slice-rules.patch); tests/data/h200-split-k-tail replays only with it"},
      {"the split-K reduction: FP32 partial sums added in slice order, then the epilogue",
       "lib/src/oracle/gemm_oracle.cpp",
       "every split recording of h200-dev, h200-recorded-configs and the slice sets"},
      {"NaN and infinity: a NaN operand, Inf x 0, or +Inf and -Inf together give NaN, written as "
       "the format's one canonical positive NaN and compared bit for bit",
       "lib/src/oracle/epilogue.cpp, docs/model.md (the bit-exact rule)",
       "the 'special' recordings of h200-dev and h200-epilogue-dev, conform's NaN/Inf rows"},
      {"saturation of FP8 outputs (satfinite) and overflow to infinity of f16/bf16 outputs",
       "lib/src/oracle/epilogue.cpp", "h200-epilogue-dev's f8_e4m3 and wide-range recordings"},
  };
}

// What the unmutated replay gave, per set: each recording's preset, algorithm and split count.
using Baseline = std::vector<std::vector<RecordingOutcome>>;

// Replays the recordings `mutant` can change until one of them catches it; counts those it
// touched, and says why a survivor survived.
Result<void> judge(const std::vector<TruthSet>& sets, int threads, const Baseline& baseline,
                   Mutant& mutant) {
  std::atomic<int> using_it{0};
  TruthSetReplayOptions options;
  options.backend = Backend::cpu;
  options.threads = threads;
  options.adjust_plan = [&](Plan& plan) {
    if (mutant.change_plan && mutant.change_plan(plan)) ++using_it;
  };
  if (mutant.preset)
    options.adjust_preset = [&](const Preset* p) {
      if (p != mutant.original) return p;
      ++using_it;
      return static_cast<const Preset*>(mutant.preset.get());
    };
  for (size_t i = 0; i < sets.size() && !mutant.outcome.killed; ++i) {
    // Only the recordings the mutant can change are replayed, in batches of doubling size, so that
    // the first recording that catches it ends the search early (one is enough).
    const TruthSet& set = sets[i];
    std::vector<std::string> ids;
    for (const auto& o : baseline[i])
      if (mutant.touches(o)) ids.push_back(o.id);
    for (size_t at = 0, batch = 1; at < ids.size() && !mutant.outcome.killed;
         at += batch, batch *= 2) {
      options.only.assign(ids.begin() + at, ids.begin() + std::min(ids.size(), at + batch));
      auto report = replay_truth_set(set, options);
      if (!report) return report.error();
      for (const auto& o : report->outcomes)
        if (!o.bit_exact() && !mutant.outcome.killed) {
          mutant.outcome.killed = true;
          mutant.outcome.killed_by = set.directory.filename().string() + "/" + o.id;
        }
    }
  }
  mutant.outcome.recordings_using = using_it.load();
  if (!mutant.outcome.killed)
    mutant.outcome.reason =
        using_it == 0
            ? "no recording of these sets is replayed with " + mutant.outcome.target
            : std::to_string(using_it.load()) + " recordings use it and none changes a bit";
  if (!mutant.outcome.killed && mutant.original)
    for (const auto& u : mutant.original->unpinned)
      if (u.parameter == mutant.outcome.parameter)
        mutant.outcome.reason += "; known unpinned: " + u.reason;
  return {};
}

}  // namespace

int MutationReport::killed() const {
  return static_cast<int>(
      std::count_if(mutants.begin(), mutants.end(), [](const auto& m) { return m.killed; }));
}

Result<MutationReport> run_mutation_matrix(
    const std::vector<TruthSet>& sets, int threads,
    const std::function<void(const MutantOutcome&, size_t, size_t)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  MutationReport report;
  Baseline baseline_outcomes;
  TruthSetReplayOptions baseline;
  baseline.threads = threads;
  for (const TruthSet& set : sets) {
    auto r = replay_truth_set(set, baseline);
    if (!r) return r.error();
    if (!r->all_bit_exact())
      return Error(Errc::invalid_argument,
                   set.directory.string() + ": " + std::to_string(r->bit_exact()) + "/" +
                       std::to_string(r->outcomes.size()) +
                       " recordings bit-exact unmutated; a mutation matrix needs sets the model "
                       "reproduces");
    baseline_outcomes.push_back(r->outcomes);
    report.truth_sets.push_back(set.directory.filename().string());
    report.recordings += static_cast<int>(r->outcomes.size());
  }
  std::vector<Mutant> mutants = preset_mutants(report.not_applicable);
  for (auto& m : algorithm_mutants(report.not_applicable)) mutants.push_back(std::move(m));
  for (auto& m : plan_mutants()) mutants.push_back(std::move(m));
  for (size_t i = 0; i < mutants.size(); ++i) {
    if (auto ok = judge(sets, threads, baseline_outcomes, mutants[i]); !ok) return ok.error();
    report.mutants.push_back(mutants[i].outcome);
    if (progress) progress(report.mutants.back(), i + 1, mutants.size());
  }
  report.fixed_rules = fixed_rules();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

std::string mutation_report_json(const MutationReport& report) {
  nlohmann::json mutants = nlohmann::json::array();
  for (const auto& m : report.mutants) {
    nlohmann::json j = {{"kind", m.kind},
                        {"target", m.target},
                        {"parameter", m.parameter},
                        {"change", m.change},
                        {"verdict", m.killed ? "killed" : "survived"},
                        {"recordings_using", m.recordings_using}};
    if (m.killed) j["killed_by"] = m.killed_by;
    if (!m.killed) j["reason"] = m.reason;
    mutants.push_back(j);
  }
  nlohmann::json fixed = nlohmann::json::array();
  for (const auto& f : report.fixed_rules)
    fixed.push_back({{"rule", f.rule}, {"where", f.where}, {"judged_by", f.judged_by}});
  return nlohmann::json({{"format", "mmaemu-mutation-matrix/1"},
                         {"mmaemu_version", kVersion},
                         {"mmaemu_commit", kGitCommit},
                         {"truth_sets", report.truth_sets},
                         {"recordings", report.recordings},
                         {"mutants_judged", report.mutants.size()},
                         {"killed", report.killed()},
                         {"survived", static_cast<int>(report.mutants.size()) - report.killed()},
                         {"moves_not_applicable", report.not_applicable},
                         {"seconds", report.seconds},
                         {"mutants", mutants},
                         {"rules_that_are_code", fixed}})
             .dump(1) +
         "\n";
}

}  // namespace mmaemu
