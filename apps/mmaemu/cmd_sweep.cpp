// mmaemu sweep: the algorithm (tile, stages, split-K count, reduction scheme) that cuBLASLt's
// heuristic picks for torch._scaled_mm calls over a grid of shapes; optionally written into a
// profile's split-K tables, and checked by recording a sample of the swept shapes and replaying
// them through the emulator with the table (not the recorded count).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "command.hpp"
#include "mmaemu/emulate.hpp"
#include "mmaemu/profile.hpp"
#include "mmaemu/replay.hpp"
#include "mmaemu/safetensors.hpp"
#include "mmaemu/tools/sweep.hpp"
#include "mmaemu/version.hpp"
#include "option_lists.hpp"
#include "progress.hpp"

namespace mmaemu::cli {
namespace {

using nlohmann::json;

struct SweepCliOptions {
  std::string out, m, n, k, workspaces = "1048576,33554432", scale_modes = "tensorwise,rowwise",
                            fast_accum = "off,on", out_dtypes = "bf16", pairs = "e4m3xe4m3",
                            biases = "none", sm_counts = "0", cublaslt = "libcublasLt.so.13",
                            profile = "hopper", sample_out;
  int replay_sample = 0;
  int64_t sample_max_macs = int64_t{1} << 30;
  size_t random = 0;
  uint64_t seed = 1;
  int jobs = 0;
  double max_seconds = 0;
  bool skip_ruled = false;
};

// One axis of the sweep: a comma list of values and ranges "FROM..TO" or "FROM..TO/STEP" (every
// STEP-th value from FROM). A random sweep draws from the ranges (log-uniformly, on the STEP
// lattice) and from the listed values.
struct AxisSpec {
  std::vector<int64_t> values;  // the listed values and every value of the ranges, sorted
  struct Range {
    int64_t from, to, step;
  };
  std::vector<Range> ranges;
  std::vector<int64_t> listed;
};

Result<AxisSpec> parse_axis_spec(const std::string& text, const char* option, int64_t from,
                                 int64_t to) {
  AxisSpec a;
  if (text.empty()) {
    a.listed = a.values = documented_axis(from, to);
    return a;
  }
  auto number = [&](const std::string& part) -> Result<int64_t> {
    int64_t x = 0;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), x);
    if (ec != std::errc() || ptr != part.data() + part.size() || x <= 0)
      return Error(Errc::invalid_argument,
                   std::string(option) + ": '" + part + "' is not a positive integer");
    return x;
  };
  for (const auto& part : split_list(text)) {
    const auto dots = part.find("..");
    if (dots == std::string::npos) {
      auto x = number(part);
      if (!x) return x.error();
      if (*x > INT32_MAX)
        return Error(Errc::invalid_argument, std::string(option) + ": '" + part + "' is past 2^31");
      a.listed.push_back(*x);
      a.values.push_back(*x);
      continue;
    }
    std::string upper = part.substr(dots + 2), step_text = "1";
    if (const auto slash = upper.find('/'); slash != std::string::npos) {
      step_text = upper.substr(slash + 1);
      upper = upper.substr(0, slash);
    }
    auto lo = number(part.substr(0, dots)), hi = number(upper), step = number(step_text);
    if (!lo) return lo.error();
    if (!hi) return hi.error();
    if (!step) return step.error();
    if (*hi < *lo)
      return Error(Errc::invalid_argument, std::string(option) + ": range '" + part + "' is empty");
    if (*hi > INT32_MAX)
      return Error(Errc::invalid_argument,
                   std::string(option) + ": '" + part + "' reaches past 2^31");
    if ((*hi - *lo) / *step > (int64_t{1} << 24))
      return Error(Errc::invalid_argument,
                   std::string(option) + ": range '" + part + "' has more than 2^24 values");
    a.ranges.push_back({*lo, *hi, *step});
    for (int64_t x = *lo; x <= *hi; x += *step) a.values.push_back(x);
  }
  std::sort(a.values.begin(), a.values.end());
  a.values.erase(std::unique(a.values.begin(), a.values.end()), a.values.end());
  if (a.values.empty()) return Error(Errc::invalid_argument, std::string(option) + " is empty");
  return a;
}

// A value drawn from the axis: each range and each listed value equally likely to be picked
// first, then log-uniformly within a range, so that every octave of a range is sampled alike.
int64_t draw_from(const AxisSpec& a, std::mt19937_64& rng) {
  const size_t choices = a.ranges.size() + (a.listed.empty() ? 0 : 1);
  const size_t pick = std::uniform_int_distribution<size_t>(0, choices - 1)(rng);
  if (pick == a.ranges.size())
    return a.listed[std::uniform_int_distribution<size_t>(0, a.listed.size() - 1)(rng)];
  const auto& r = a.ranges[pick];
  const double lo = std::log(static_cast<double>(r.from)),
               hi = std::log(static_cast<double>(r.to + r.step));
  const double v = std::exp(std::uniform_real_distribution<double>(lo, hi)(rng));
  const int64_t x = r.from + static_cast<int64_t>((v - static_cast<double>(r.from)) /
                                                  static_cast<double>(r.step)) *
                                 r.step;
  return std::clamp(x, r.from, r.from + (r.to - r.from) / r.step * r.step);
}

Result<std::vector<int64_t>> parse_axis(const std::string& text, const char* option, int64_t from,
                                        int64_t to) {
  auto a = parse_axis_spec(text, option, from, to);
  if (!a) return a.error();
  return a->values;
}

Result<std::vector<SweepKey>> make_keys(const SweepCliOptions& o) {
  std::vector<SweepKey> keys;
  const auto ws = byte_counts(o.workspaces);  // 0 is a workspace size too
  if (!ws || ws->empty())
    return Error(Errc::invalid_argument,
                 "--workspaces: '" + o.workspaces + "' is not a list of byte counts");
  std::vector<int> sm_counts;
  for (const auto& part : split_list(o.sm_counts)) {
    int x = -1;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), x);
    if (ec != std::errc() || ptr != part.data() + part.size() || x < 0 || x > 4096)
      return Error(Errc::invalid_argument,
                   "--sm-counts: '" + part + "' is not an SM count (0: the GPU's own)");
    sm_counts.push_back(x);
  }
  std::vector<std::optional<Format>> biases;
  for (const auto& b : split_list(o.biases)) {
    if (b == "none") {
      biases.push_back(std::nullopt);
      continue;
    }
    const auto f = format_from_name(b);
    if (!f || (*f != Format::bf16 && *f != Format::f16))
      return Error(Errc::invalid_argument, "--biases: '" + b + "' is not none, bf16 or f16");
    biases.push_back(*f);
  }
  for (int64_t w : *ws)
    for (const auto& mode : split_list(o.scale_modes)) {
      if (mode != "tensorwise" && mode != "rowwise")
        return Error(Errc::invalid_argument,
                     "--scale-modes: '" + mode + "' is not tensorwise or rowwise");
      for (const auto& fast : split_list(o.fast_accum)) {
        if (fast != "off" && fast != "on")
          return Error(Errc::invalid_argument, "--fast-accum: '" + fast + "' is not off or on");
        for (const auto& pair : split_list(o.pairs)) {
          const auto formats = fp8_operand_pair(pair);
          if (!formats)
            return Error(Errc::invalid_argument, "--pairs: '" + pair + "' is not like e4m3xe5m2");
          const auto [fa, fb] = *formats;
          for (const auto& out : split_list(o.out_dtypes)) {
            const auto fo = format_from_name(out);
            if (!fo)
              return Error(Errc::invalid_argument, "--out-dtypes: unknown dtype '" + out + "'");
            for (const auto& bias : biases)
              for (int sm : sm_counts) {
                SweepKey key{w, mode == "rowwise", fast == "on", fa, fb, *fo, bias, sm};
                if (auto why = torch_refuses(key)) {
                  spdlog::debug("sweep: {} left out: {}", describe_key(key), *why);
                  continue;
                }
                keys.push_back(key);
              }
          }
        }
      }
    }
  if (keys.empty())
    return Error(Errc::invalid_argument, "sweep: no configuration torch accepts was named");
  return keys;
}

Result<SweepGrid> make_grid(const SweepCliOptions& o) {
  SweepGrid g;
  auto m = parse_axis(o.m, "--m", 16, 8192), n = parse_axis(o.n, "--n", 16, 8192),
       k = parse_axis(o.k, "--k", 32, 65536);
  if (!m) return m.error();
  if (!n) return n.error();
  if (!k) return k.error();
  g.m = *m;
  g.n = *n;
  g.k = *k;
  auto keys = make_keys(o);
  if (!keys) return keys.error();
  g.keys = std::move(keys).value();
  return g;
}

json key_json(const SweepKey& k) {
  return json::parse(sweep_key_json(k));
}

json choice_json(const AlgorithmChoice& c) {
  json j = json::object();
  for (const auto& [name, value] : c.attributes) j[name] = value;
  j["workspace_size"] = c.workspace_size;
  return j;
}

struct SampleCell {
  size_t table, cell;
  int64_t m, n, k;
};

std::vector<SampleCell> pick_sample(const SweepResult& r, int count, int64_t max_macs) {
  std::vector<SampleCell> split, single;
  for (size_t t = 0; t < r.tables.size(); ++t) {
    const SweepTable& tab = r.tables[t];
    for (size_t i = 0; i < tab.m.size(); ++i)
      for (size_t j = 0; j < tab.n.size(); ++j)
        for (size_t l = 0; l < tab.k.size(); ++l) {
          const size_t cell = (i * tab.n.size() + j) * tab.k.size() + l;
          if (tab.splits[cell] <= 0 || tab.m[i] * tab.n[j] * tab.k[l] > max_macs) continue;
          (tab.splits[cell] > 1 ? split : single)
              .push_back({t, cell, tab.m[i], tab.n[j], tab.k[l]});
        }
  }
  std::mt19937_64 rng(20261202);
  std::shuffle(split.begin(), split.end(), rng);
  std::shuffle(single.begin(), single.end(), rng);
  std::vector<SampleCell> picked;
  // Most of the sample where the table matters most: shapes that split.
  const size_t want_split = std::min(split.size(), static_cast<size_t>(count - count / 4));
  picked.assign(split.begin(), split.begin() + static_cast<long>(want_split));
  for (size_t i = 0; i < single.size() && picked.size() < static_cast<size_t>(count); ++i)
    picked.push_back(single[i]);
  return picked;
}

// The sample's calls, by workspace: normal operands, unit scales, no bias, the GPU's own SM count;
// `table_split_k` gets the count the sweep logged for each.
Result<std::map<int64_t, std::vector<RecordCall>>> sample_calls(
    const SweepCliOptions& o, const SweepResult& r, std::map<std::string, int>& table_split_k) {
  std::map<int64_t, std::vector<RecordCall>> by_workspace;
  uint64_t seed = 77;
  for (const auto& s : pick_sample(r, o.replay_sample, o.sample_max_macs)) {
    const SweepKey& key = r.tables[s.table].key;
    RecordCall c = record_call(key, s.m, s.n, s.k);
    c.bias_dtype.reset();
    c.sm_count_target = 0;
    c.id = fmt::format("sweep_{}x{}x{}_{}_{}_{}_ws{}", s.m, s.n, s.k,
                       key.rowwise ? "rowwise" : "tensorwise",
                       key.use_fast_accum ? "fast" : "promoted", describe(key.out_dtype).name,
                       key.workspace_bytes);
    c.dist = "normal";
    c.seed = ++seed;
    if (auto drawn = draw_operands({&c, 1}, 1); !drawn) return drawn.error();
    c.scale_a.assign(c.rowwise ? static_cast<size_t>(c.m) : 1, 0x3F800000);
    c.scale_b.assign(c.rowwise ? static_cast<size_t>(c.n) : 1, 0x3F800000);
    table_split_k[c.id] = r.tables[s.table].splits[s.cell];
    by_workspace[key.workspace_bytes].push_back(std::move(c));
  }
  return by_workspace;
}

// One recording of the sample replayed with the sweep's count, not the recording's: the sample
// checks that the heuristic asked alone chose what the recorded run used, and that the bits
// follow from it.
Result<json> replay_sample_call(const TruthSet& set, const Recording& rec, const Profile& profile,
                                int table_split_k, int64_t ws) {
  auto loaded = load_scaled_mm_call(set, rec);
  if (!loaded) return loaded.error();
  auto plan = profile.resolve(loaded->call, {.known_split_k = table_split_k,
                                             .workspace_bytes = ws,
                                             .sm_count = std::nullopt,
                                             .known_split = std::nullopt,
                                             .heuristic_gpu = {}});
  if (!plan) return plan.error();
  auto out = emulate(*plan, loaded->call, Backend::cpu, threads_for_jobs(0));
  if (!out) return out.error();
  const Comparison cmp = compare_bits(rec.out_dtype, loaded->expected, *out);
  const bool table_agrees = rec.recorded_split_k == plan->split_k;
  const bool pass = table_agrees && cmp.bit_exact();
  return json{{"id", rec.id},
              {"workspace_bytes", ws},
              {"table_split_k", plan->split_k},
              {"recorded_split_k", rec.recorded_split_k ? json(*rec.recorded_split_k) : json()},
              {"mismatches", cmp.mismatches},
              {"elements", cmp.total},
              {"verdict", pass           ? "bit-exact"
                          : table_agrees ? "mismatch"
                                         : "table disagrees"}};
}

// Records the sample through cuBLASLt and replays it with the swept tables: the verdict checks
// both the table (the count the profile gives equals the one the recorded run used) and the bits.
Result<json> replay_sample(const SweepCliOptions& o, const SweepResult& r, const Profile& profile,
                           int& failures) {
  std::map<std::string, int> table_split_k;  // by recording id: the count the sweep logged
  auto by_workspace = sample_calls(o, r, table_split_k);
  if (!by_workspace) return by_workspace.error();
  json log = json::array();
  for (auto& [ws, calls] : *by_workspace) {
    const std::string dir = fmt::format("{}/ws{}", o.sample_out, ws);
    auto summary = record_truth_set({dir, o.cublaslt, ws, 0}, std::move(calls), {});
    if (!summary) return summary.error();
    auto set = load_truth_set(dir);
    if (!set) return set.error();
    Progress progress(set->recordings.size());
    for (const auto& rec : set->recordings) {
      progress.step(rec.id);
      auto entry = replay_sample_call(*set, rec, profile, table_split_k[rec.id], ws);
      if (!entry) return entry.error();
      const bool pass = (*entry)["verdict"] == "bit-exact";
      failures += !pass;
      if (!pass) {
        progress.clear();
        std::cout << fmt::format(
                         "FAIL {}: table {} splits, recorded {}; {}/{} elements differ", rec.id,
                         (*entry)["table_split_k"].get<int>(), rec.recorded_split_k.value_or(-1),
                         (*entry)["mismatches"].get<int64_t>(), (*entry)["elements"].get<int64_t>())
                  << std::endl;
      }
      log.push_back(*entry);
    }
    progress.clear();
  }
  return log;
}

json environment_json(const std::string& gpu, int major, int minor, int sms, int driver,
                      const std::string& library, size_t version) {
  return {{"gpu", gpu},
          {"sm", fmt::format("{}.{}", major, minor)},
          {"multiprocessors", sms},
          {"driver_api_version", driver},
          {"cublaslt", {{"path", library}, {"version", version}}}};
}

// The fields every sweep log begins with: format, mmaemu version and commit, the GPU and library,
// the call.
template <class R>
json log_header(const char* format, const R& result);

constexpr const char* kCallSetup =
    "torch._scaled_mm as torch 2.11 sets it up: operands swapped, TRANSA=T, TRANSB=N, 32F compute, "
    "scale modes, "
    "FAST_ACCUM, the bias epilogue, SM_COUNT_TARGET where set, only MAX_WORKSPACE_BYTES as a "
    "preference, the first "
    "heuristic result";

template <class R>
json log_header(const char* format, const R& result) {
  return {{"format", format},
          {"mmaemu_version", kVersion},
          {"mmaemu_commit", kGitCommit},
          {"environment", environment_json(result.gpu, result.compute_major, result.compute_minor,
                                           result.multiprocessors, result.driver_version,
                                           result.cublaslt_library, result.cublaslt_version)},
          {"call_setup", kCallSetup}};
}

// The questions of an array sweep: every cell of a grid over the axes, or --random shapes drawn
// from them, for every key.
struct ArrayQuestions {
  SweepLogLayout layout;
  size_t count = 0, cells = 0;
  std::function<HeuristicQuery(size_t)> query_of;
};

// Fills `q` in place (query_of refers to q.layout).
Result<void> array_questions(const SweepCliOptions& o, size_t keys, ArrayQuestions& q) {
  auto m = parse_axis_spec(o.m, "--m", 16, 8192), n = parse_axis_spec(o.n, "--n", 16, 8192),
       k = parse_axis_spec(o.k, "--k", 32, 65536);
  if (!m) return m.error();
  if (!n) return n.error();
  if (!k) return k.error();
  q.cells = m->values.size() * n->values.size() * k->values.size();
  if (o.random > 0) {
    std::mt19937_64 rng(o.seed);
    q.layout.list.reserve(o.random * keys);
    for (size_t i = 0; i < o.random; ++i) {
      const int64_t mm = draw_from(*m, rng), nn = draw_from(*n, rng), kk = draw_from(*k, rng);
      for (uint32_t key = 0; key < keys; ++key) q.layout.list.push_back({key, mm, nn, kk});
    }
    q.count = q.layout.list.size();
    q.query_of = [&list = q.layout.list](size_t i) { return list[i]; };
    return {};
  }
  if (q.cells > (size_t{1} << 31) / keys)
    return Error(Errc::invalid_argument,
                 fmt::format("sweep: {} cells x {} configurations is too many", q.cells, keys));
  q.layout.m = m->values;
  q.layout.n = n->values;
  q.layout.k = k->values;
  q.count = q.cells * keys;
  q.query_of = [&l = q.layout, cells = q.cells](size_t i) {
    const size_t cell = i % cells;
    const size_t nk = l.n.size() * l.k.size();
    return HeuristicQuery{static_cast<uint32_t>(i / cells), l.m[cell / nk],
                          l.n[(cell / l.k.size()) % l.n.size()], l.k[cell % l.k.size()]};
  };
  return {};
}

// --skip-ruled: leave out the questions a rule of the profile's split-K model answers (one
// slice); in the region where splitting can happen, a grid is a few times smaller.
Result<void> skip_ruled_questions(const SweepCliOptions& o, const std::vector<SweepKey>& keys,
                                  ArrayQuestions& q) {
  auto profile = load_profile(o.profile);
  if (!profile) return profile.error();
  if (!profile->split_k_model)
    return Error(Errc::unsupported, "--skip-ruled: profile " + profile->name +
                                        " has no split-K model (split_k.model)");
  std::vector<SplitKDecider> deciders;
  deciders.reserve(keys.size());
  for (const SweepKey& key : keys)
    deciders.emplace_back(*profile->split_k_model,
                          split_k_config(key, profile->split_k_model->reference_sm_count));
  q.query_of = [inner = std::move(q.query_of), deciders = std::move(deciders)](size_t i) {
    HeuristicQuery h = inner(i);
    h.ask = deciders[h.key].rule_for(h.m, h.n, h.k) == SplitKRule::none;
    return h;
  };
  return {};
}

// A short account per configuration on the log: how many shapes split, and the largest count.
void log_split_counts(const std::vector<SweepKey>& keys, const ArrayQuestions& q,
                      const HeuristicSweep& result) {
  for (size_t key = 0; key < keys.size(); ++key) {
    size_t split = 0, asked = 0;
    int largest = 0;
    for (size_t i = 0; i < q.count; ++i) {
      const uint32_t of =
          q.layout.is_list() ? q.layout.list[i].key : static_cast<uint32_t>(i / q.cells);
      const int32_t a = result.answers[i].algorithm;
      if (of != key || a < 0) continue;
      ++asked;
      const int s = result.algorithms[static_cast<size_t>(a)].splits;
      split += s > 1;
      largest = std::max(largest, s);
    }
    spdlog::info("{}: {} of {} shapes split (largest count {})", describe_key(keys[key]), split,
                 asked, largest);
  }
}

// The large form of a sweep (mmaemu-sweep/2, safetensors; write_sweep_log): every answer as
// arrays, the keys, the distinct algorithms and the environment in the metadata. A grid keeps its
// axes; a random sweep keeps each question's key and shape.
Result<int> run_array_sweep(const SweepCliOptions& o) {
  auto keys = make_keys(o);
  if (!keys) return keys.error();
  if (keys->size() > UINT16_MAX)
    return Error(Errc::invalid_argument, "sweep: more than 65535 configurations");
  ArrayQuestions q;
  if (auto ok = array_questions(o, keys->size(), q); !ok) return ok.error();
  if (o.skip_ruled)
    if (auto ok = skip_ruled_questions(o, *keys, q); !ok) return ok.error();
  spdlog::info("sweep: {} questions ({} configurations{})", q.count, keys->size(),
               q.layout.is_list() ? fmt::format(", {} random shapes", o.random)
                                  : fmt::format(", {} cells", q.cells));
  Progress progress(q.count);
  auto result = ask_heuristic({o.cublaslt, 0, o.jobs, o.max_seconds}, *keys, q.count, q.query_of,
                              [&](size_t done, size_t) { progress.set(done, "sweep"); });
  progress.clear();
  if (!result) return result.error();
  json about = log_header("mmaemu-sweep/2", *result);
  about.update(
      {{"axes", {{"m", o.m}, {"n", o.n}, {"k", o.k}}},
       {"seed", o.seed},
       {"questions", q.count},
       {"asked", result->asked},
       {"seconds", result->seconds},
       {"jobs", result->jobs},
       {"fields",
        "algorithm: an index into algorithms (-1: the heuristic returned none, -2: not "
        "asked before --max-seconds, -3: not asked, a rule of the split-K model gives "
        "one slice (--skip-ruled)); workspace: the bytes the algorithm asks for; waves: the "
        "heuristic's wavesCount. "
        "grid: arrays [key][m][n][k] over the axes m, n, k; list: one row per question "
        "with its key, m, n, k"}});
  if (auto ok = write_sweep_log(o.out, *keys, *result, q.layout, about.dump()); !ok)
    return ok.error();
  log_split_counts(*keys, q, *result);
  std::cout << fmt::format(
                   "sweep: {} of {} questions asked in {:.1f} s on {} threads ({:.0f} per second), "
                   "{} distinct algorithms",
                   result->asked, q.count, result->seconds, result->jobs,
                   static_cast<double>(result->asked) / std::max(result->seconds, 1e-9),
                   result->algorithms.size())
            << std::endl;
  return kExitOk;
}

// One table of the JSON form: its answers, histograms, and each cell's index into `distinct`.
json table_json(const SweepTable& t, std::vector<AlgorithmChoice>& distinct,
                std::map<std::string, size_t>& index_of) {
  json tj = key_json(t.key);
  std::vector<int64_t> algorithm_index;
  std::map<int, int> histogram, schemes;
  int not_found = 0;
  for (size_t c = 0; c < t.splits.size(); ++c) {
    if (t.splits[c] <= 0) {
      ++not_found;
      algorithm_index.push_back(-1);
      continue;
    }
    ++histogram[t.splits[c]];
    if (t.splits[c] > 1) ++schemes[t.reduction_schemes[c]];
    const std::string key = choice_json(t.choices[c]).dump();
    auto [it, fresh] = index_of.emplace(key, distinct.size());
    if (fresh) distinct.push_back(t.choices[c]);
    algorithm_index.push_back(static_cast<int64_t>(it->second));
  }
  json hist = json::object(), sch = json::object();
  for (auto [s, count] : histogram) hist[std::to_string(s)] = count;
  for (auto [s, count] : schemes) sch[std::to_string(s)] = count;
  tj["cells_by_split_count"] = hist;
  tj["split_cells_by_reduction_scheme"] = sch;
  tj["cells_without_algorithm"] = not_found;
  tj["splits"] = t.splits;
  tj["reduction_schemes"] = t.reduction_schemes;
  tj["algorithm_index"] = algorithm_index;
  spdlog::info("{} ws {} {} {}: split counts {} ; schemes of split cells {}",
               describe(t.key.out_dtype).name, t.key.workspace_bytes,
               t.key.rowwise ? "rowwise" : "tensorwise", t.key.use_fast_accum ? "fast" : "promoted",
               hist.dump(), sch.dump());
  return tj;
}

// The small form of a sweep (mmaemu-sweep/1, JSON): a grid's tables, and a replayed sample.
Result<int> run_sweep(const SweepCliOptions& o) {
  if (o.out.size() >= 12 && o.out.ends_with(".safetensors")) return run_array_sweep(o);
  if (o.random > 0 || o.skip_ruled)
    return Error(Errc::invalid_argument,
                 "--random and --skip-ruled write the large form: give --out a .safetensors name");
  auto grid = make_grid(o);
  if (!grid) return grid.error();
  auto base = load_profile(o.profile);
  if (!base) return base.error();
  if (o.replay_sample > 0 && o.sample_out.empty())
    return Error(Errc::invalid_argument,
                 "--replay-sample needs --sample-out DIR for the recorded calls");
  const size_t total = grid->m.size() * grid->n.size() * grid->k.size() * grid->keys.size();
  Progress progress(total);
  const auto start = std::chrono::steady_clock::now();
  auto result = sweep_algorithms({o.cublaslt, 0, o.jobs, o.max_seconds}, *grid,
                                 [&](size_t done, size_t) { progress.set(done, "sweep"); });
  progress.clear();
  if (!result) return result.error();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  json log = log_header("mmaemu-sweep/1", *result);
  log.update(
      {{"grid",
        {{"m", grid->m},
         {"n", grid->n},
         {"k", grid->k},
         {"note", o.m.empty() && o.n.empty() && o.k.empty()
                      ? "documented grid: powers of two and their x1.5 midpoints, m,n in 16..8192, "
                        "k in 32..65536"
                      : "axes given on the command line"}}},
       {"seconds", seconds}});
  std::vector<AlgorithmChoice> distinct;
  std::map<std::string, size_t> index_of;
  log["tables"] = json::array();
  for (const auto& t : result->tables) log["tables"].push_back(table_json(t, distinct, index_of));
  log["algorithms"] = json::array();
  for (const auto& c : distinct) log["algorithms"].push_back(choice_json(c));
  int failures = 0;
  if (o.replay_sample > 0) {
    auto sample = replay_sample(o, *result, *base, failures);
    if (!sample) return sample.error();
    log["sample"] = {
        {"recorded_in", o.sample_out},
        {"calls", sample->size()},
        {"verdict", fmt::format("{}/{} sampled calls bit-exact with the table's split count",
                                sample->size() - static_cast<size_t>(failures), sample->size())},
        {"replays", *sample}};
    std::cout << log["sample"]["verdict"].get<std::string>() << std::endl;
  }
  if (auto ok = write_file_atomically(o.out, log.dump() + "\n"); !ok) return ok.error();
  std::cout << fmt::format("sweep: {} cells, {} distinct algorithms, {:.1f} s", total,
                           distinct.size(), seconds)
            << std::endl;
  return failures == 0 ? kExitOk : kExitVerdictFailed;
}

}  // namespace

Runner setup_sweep(CLI::App& app) {
  auto o = std::make_shared<SweepCliOptions>();
  app.add_option(
         "--out", o->out,
         "the sweep log: FILE.json (a grid, mmaemu-sweep/1) or FILE.safetensors (grid or random, "
         "mmaemu-sweep/2)")
      ->required();
  app.add_option("--m", o->m,
                 "m values and ranges FROM..TO[/STEP] (default: the documented grid 16..8192)");
  app.add_option("--n", o->n, "n values and ranges (default: the documented grid 16..8192)");
  app.add_option("--k", o->k, "k values and ranges (default: the documented grid 32..65536)");
  app.add_option("--random", o->random,
                 "draw this many shapes from the axes' ranges and values instead of the grid");
  app.add_option("--seed", o->seed, "seed of --random")->capture_default_str();
  app.add_option("--biases", o->biases, "none, bf16, f16 (combinations torch refuses are left out)")
      ->capture_default_str();
  app.add_option("--sm-counts", o->sm_counts, "SM_COUNT_TARGET values (0: the GPU's own)")
      ->capture_default_str();
  app.add_option("--jobs", o->jobs, "threads asking the heuristic (default: every core)");
  app.add_option("--max-seconds", o->max_seconds,
                 "stop asking after this long (the log says how many were asked)");
  app.add_flag("--skip-ruled", o->skip_ruled,
               "ask only what no rule of the profile's split-K model answers (the rest: -3)");
  app.add_option("--workspaces", o->workspaces, "cuBLASLt workspace sizes in bytes")
      ->capture_default_str();
  app.add_option("--scale-modes", o->scale_modes, "tensorwise, rowwise")->capture_default_str();
  app.add_option("--fast-accum", o->fast_accum, "off, on")->capture_default_str();
  app.add_option("--out-dtypes", o->out_dtypes, "bf16, f16, f32, f8_e4m3")->capture_default_str();
  app.add_option("--pairs", o->pairs, "e4m3xe4m3, e4m3xe5m2, e5m2xe4m3")->capture_default_str();
  app.add_option("--cublaslt", o->cublaslt, "the libcublasLt to load")->capture_default_str();
  app.add_option("--profile", o->profile, "profile the sample is replayed with")
      ->capture_default_str();
  app.add_option("--replay-sample", o->replay_sample,
                 "record this many swept calls and replay them");
  app.add_option("--sample-out", o->sample_out, "folder for the sample's truth sets");
  app.add_option("--sample-max-macs", o->sample_max_macs, "largest m*n*k in the sample")
      ->capture_default_str();
  return [o] { return run_sweep(*o); };
}

}  // namespace mmaemu::cli
