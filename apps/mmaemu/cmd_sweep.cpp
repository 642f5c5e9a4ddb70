// mmaemu sweep: the algorithm (tile, stages, split-K count, reduction scheme) that cuBLASLt's
// heuristic picks for torch._scaled_mm calls over a grid of shapes; optionally written into a
// profile's split-K tables, and checked by recording a sample of the swept shapes and replaying
// them through the emulator with the table (not the recorded count).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "command.hpp"
#include "option_lists.hpp"
#include "mmaemu/emulate.hpp"
#include "mmaemu/profile.hpp"
#include "mmaemu/replay.hpp"
#include "mmaemu/sweep.hpp"
#include "mmaemu/version.hpp"
#include "progress.hpp"

namespace mmaemu::cli {
namespace {

using nlohmann::json;

struct SweepCliOptions {
  std::string out, m, n, k, workspaces = "1048576,33554432", scale_modes = "tensorwise,rowwise",
                            fast_accum = "off,on", out_dtypes = "bf16", pairs = "e4m3xe4m3",
                            cublaslt = "libcublasLt.so.13", write_profile, profile = "hopper", sample_out;
  int replay_sample = 0;
  int64_t sample_max_macs = int64_t{1} << 30;
};

Result<std::vector<int64_t>> parse_axis(const std::string& text, const char* option, int64_t from, int64_t to) {
  if (text.empty()) return documented_axis(from, to);
  std::vector<int64_t> v;
  for (const auto& part : split_list(text)) {
    char* end = nullptr;
    const long long x = std::strtoll(part.c_str(), &end, 10);
    if (*end != '\0' || x <= 0) return Error(Errc::invalid_argument, std::string(option) + ": '" + part + "' is not a positive integer");
    v.push_back(x);
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  if (v.empty()) return Error(Errc::invalid_argument, std::string(option) + " is empty");
  return v;
}

Result<SweepGrid> make_grid(const SweepCliOptions& o) {
  SweepGrid g;
  auto m = parse_axis(o.m, "--m", 16, 8192), n = parse_axis(o.n, "--n", 16, 8192), k = parse_axis(o.k, "--k", 32, 65536);
  if (!m) return m.error();
  if (!n) return n.error();
  if (!k) return k.error();
  g.m = *m;
  g.n = *n;
  g.k = *k;
  auto workspaces = parse_axis(o.workspaces, "--workspaces", 0, 0);
  if (!workspaces) return workspaces.error();
  for (int64_t ws : *workspaces)
    for (const auto& mode : split_list(o.scale_modes)) {
      if (mode != "tensorwise" && mode != "rowwise")
        return Error(Errc::invalid_argument, "--scale-modes: '" + mode + "' is not tensorwise or rowwise");
      for (const auto& fast : split_list(o.fast_accum)) {
        if (fast != "off" && fast != "on") return Error(Errc::invalid_argument, "--fast-accum: '" + fast + "' is not off or on");
        for (const auto& pair : split_list(o.pairs)) {
          const auto formats = fp8_operand_pair(pair);
          if (!formats) return Error(Errc::invalid_argument, "--pairs: '" + pair + "' is not like e4m3xe5m2");
          const auto [fa, fb] = *formats;
          for (const auto& out : split_list(o.out_dtypes)) {
            const auto fo = format_from_name(out);
            if (!fo) return Error(Errc::invalid_argument, "--out-dtypes: unknown dtype '" + out + "'");
            g.keys.push_back({ws, mode == "rowwise", fast == "on", fa, fb, *fo});
          }
        }
      }
    }
  return g;
}

json key_json(const SweepKey& k) {
  return {{"workspace_bytes", k.workspace_bytes}, {"rowwise", k.rowwise}, {"use_fast_accum", k.use_fast_accum},
          {"a_dtype", describe(k.a_dtype).name},   {"b_dtype", describe(k.b_dtype).name},
          {"out_dtype", describe(k.out_dtype).name}};
}

json choice_json(const AlgorithmChoice& c) {
  json j = json::object();
  for (const auto& [name, value] : c.attributes) j[name] = value;
  j["workspace_size"] = c.workspace_size;
  return j;
}

// The profile's form of a table: the key, the axes and the two flat arrays, with its evidence.
// Split counts above 35 do not fit one base-36 digit; none was seen (the largest on the H200 is 25).
json profile_table_json(const SweepResult& r, const SweepTable& t, const std::string& evidence) {
  json j = key_json(t.key);
  j["gpu"] = r.gpu;
  j["multiprocessors"] = r.multiprocessors;
  j["cublaslt_version"] = r.cublaslt_version;
  j["m"] = t.m;
  j["n"] = t.n;
  j["k"] = t.k;
  auto base36 = [](const std::vector<int>& cells) {
    std::string text;
    for (int x : cells) text += static_cast<char>(x < 10 ? '0' + x : 'a' + (x - 10));
    return text;
  };
  j["splits"] = base36(t.splits);
  j["reduction_schemes"] = base36(t.reduction_schemes);
  j["evidence"] = evidence;
  return j;
}

SplitKSweep to_profile_table(const SweepTable& t, const std::string& evidence) {
  SplitKSweep s;
  s.workspace_bytes = t.key.workspace_bytes;
  s.rowwise = t.key.rowwise;
  s.use_fast_accum = t.key.use_fast_accum;
  s.a_dtype = t.key.a_dtype;
  s.b_dtype = t.key.b_dtype;
  s.out_dtype = t.key.out_dtype;
  s.m = t.m;
  s.n = t.n;
  s.k = t.k;
  s.splits = t.splits;
  s.reduction_schemes = t.reduction_schemes;
  s.evidence = evidence;
  return s;
}

// Replaces the tables of the same GPU, library version and key in the profile file.
Result<void> write_into_profile(const std::string& path, const SweepResult& r, const std::string& evidence) {
  auto bytes = read_file_bytes(path);
  if (!bytes) return bytes.error();
  json p = json::parse(bytes->begin(), bytes->end(), nullptr, false);
  if (p.is_discarded() || !p.is_object()) return Error(Errc::malformed, path + ": not a JSON object");
  json& sweeps = p["split_k"]["sweeps"];
  if (!sweeps.is_array()) sweeps = json::array();
  for (const auto& t : r.tables) {
    json entry = profile_table_json(r, t, evidence);
    auto same = [&](const json& e) {
      return e.value("gpu", "") == r.gpu && e.value("cublaslt_version", size_t{0}) == r.cublaslt_version &&
             e.value("workspace_bytes", int64_t{0}) == t.key.workspace_bytes && e.value("rowwise", false) == t.key.rowwise &&
             e.value("use_fast_accum", false) == t.key.use_fast_accum && e.value("a_dtype", "") == entry["a_dtype"] &&
             e.value("b_dtype", "") == entry["b_dtype"] && e.value("out_dtype", "") == entry["out_dtype"];
    };
    auto it = std::find_if(sweeps.begin(), sweeps.end(), same);
    if (it != sweeps.end()) *it = entry;
    else sweeps.push_back(entry);
  }
  // Check that the result still parses as a profile before replacing the file.
  const std::string text = p.dump(1) + "\n";
  if (auto parsed = parse_profile(text, path); !parsed) return parsed.error();
  return write_file_atomically(path, text);
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
          (tab.splits[cell] > 1 ? split : single).push_back({t, cell, tab.m[i], tab.n[j], tab.k[l]});
        }
  }
  std::mt19937_64 rng(20261202);
  std::shuffle(split.begin(), split.end(), rng);
  std::shuffle(single.begin(), single.end(), rng);
  std::vector<SampleCell> picked;
  // Most of the sample where the table matters most: shapes that split.
  const size_t want_split = std::min(split.size(), static_cast<size_t>(count - count / 4));
  picked.assign(split.begin(), split.begin() + static_cast<long>(want_split));
  for (size_t i = 0; i < single.size() && picked.size() < static_cast<size_t>(count); ++i) picked.push_back(single[i]);
  return picked;
}

// Records the sample through cuBLASLt and replays it with the swept tables: the verdict checks
// both the table (the count the profile gives equals the one the recorded run used) and the bits.
Result<json> replay_sample(const SweepCliOptions& o, const SweepResult& r, const Profile& base, int& failures) {
  Profile profile = base;
  for (const auto& t : r.tables) profile.split_k_sweeps.insert(profile.split_k_sweeps.begin(), to_profile_table(t, o.out));
  const auto cells = pick_sample(r, o.replay_sample, o.sample_max_macs);
  std::map<int64_t, std::vector<RecordCall>> by_workspace;
  uint64_t seed = 77;
  for (const auto& s : cells) {
    const SweepKey& key = r.tables[s.table].key;
    RecordCall c;
    c.id = fmt::format("sweep_{}x{}x{}_{}_{}_{}_ws{}", s.m, s.n, s.k, key.rowwise ? "rowwise" : "tensorwise",
                       key.use_fast_accum ? "fast" : "promoted", describe(key.out_dtype).name, key.workspace_bytes);
    c.m = s.m;
    c.n = s.n;
    c.k = s.k;
    c.a_dtype = key.a_dtype;
    c.b_dtype = key.b_dtype;
    c.out_dtype = key.out_dtype;
    c.use_fast_accum = key.use_fast_accum;
    c.rowwise = key.rowwise;
    c.dist = "normal";
    c.seed = ++seed;
    auto a = draw_fp8(c.a_dtype, "normal", static_cast<size_t>(c.m * c.k), seed * 2);
    auto b = draw_fp8(c.b_dtype, "normal", static_cast<size_t>(c.n * c.k), seed * 2 + 1);
    if (!a) return a.error();
    if (!b) return b.error();
    c.a = *a;
    c.b = *b;
    if (c.rowwise) {
      c.scale_a.assign(static_cast<size_t>(c.m), 0x3F800000);
      c.scale_b.assign(static_cast<size_t>(c.n), 0x3F800000);
    } else {
      c.scale_a = {0x3F800000};
      c.scale_b = {0x3F800000};
    }
    by_workspace[key.workspace_bytes].push_back(std::move(c));
  }
  json log = json::array();
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (auto& [ws, calls] : by_workspace) {
    const std::string dir = fmt::format("{}/ws{}", o.sample_out, ws);
    RecordOptions ro{dir, o.cublaslt, ws, 0};
    auto summary = record_truth_set(ro, std::move(calls), {});
    if (!summary) return summary.error();
    auto set = load_truth_set(dir);
    if (!set) return set.error();
    Progress progress(set->recordings.size());
    for (const auto& rec : set->recordings) {
      progress.step(rec.id);
      auto loaded = load_scaled_mm_call(*set, rec);
      if (!loaded) return loaded.error();
      auto plan = profile.resolve(loaded->call, std::nullopt, ws);
      if (!plan) return plan.error();
      auto out = emulate(*plan, loaded->call, Backend::cpu, threads);
      if (!out) return out.error();
      const Comparison cmp = compare_bits(rec.out_dtype, loaded->expected, *out);
      const bool table_agrees = rec.recorded_split_k == plan->split_k;
      const bool pass = table_agrees && cmp.bit_exact();
      failures += !pass;
      log.push_back({{"id", rec.id}, {"workspace_bytes", ws}, {"table_split_k", plan->split_k},
                     {"recorded_split_k", rec.recorded_split_k ? json(*rec.recorded_split_k) : json()},
                     {"mismatches", cmp.mismatches}, {"elements", cmp.total},
                     {"verdict", pass ? "bit-exact" : table_agrees ? "mismatch" : "table disagrees"}});
      if (!pass) {
        progress.clear();
        std::cout << fmt::format("FAIL {}: table {} splits, recorded {}; {}/{} elements differ", rec.id,
                                 plan->split_k, rec.recorded_split_k.value_or(-1), cmp.mismatches, cmp.total)
                  << std::endl;
      }
    }
    progress.clear();
  }
  return log;
}

Result<int> run_sweep(const SweepCliOptions& o) {
  auto grid = make_grid(o);
  if (!grid) return grid.error();
  auto base = load_profile(o.profile);
  if (!base) return base.error();
  if (o.replay_sample > 0 && o.sample_out.empty())
    return Error(Errc::invalid_argument, "--replay-sample needs --sample-out DIR for the recorded calls");
  const size_t total = grid->m.size() * grid->n.size() * grid->k.size() * grid->keys.size();
  spdlog::debug("sweeping {} cells ({} tables of {} x {} x {} shapes)", total, grid->keys.size(), grid->m.size(),
               grid->n.size(), grid->k.size());
  Progress progress(total);
  const auto start = std::chrono::steady_clock::now();
  auto result = sweep_algorithms({o.cublaslt, 0}, *grid, [&](size_t done, size_t) { progress.set(done, "sweep"); });
  progress.clear();
  if (!result) return result.error();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  json log = {{"format", "mmaemu-sweep/1"},
              {"mmaemu_version", kVersion},
              {"mmaemu_commit", kGitCommit},
              {"environment",
               {{"gpu", result->gpu},
                {"sm", fmt::format("{}.{}", result->compute_major, result->compute_minor)},
                {"multiprocessors", result->multiprocessors},
                {"driver_api_version", result->driver_version},
                {"cublaslt", {{"path", result->cublaslt_library}, {"version", result->cublaslt_version}}}}},
              {"call_setup", "torch._scaled_mm as torch 2.11 sets it up: operands swapped, TRANSA=T, TRANSB=N, 32F "
                             "compute, scale modes, FAST_ACCUM, only MAX_WORKSPACE_BYTES as a preference, the first "
                             "heuristic result"},
              {"grid", {{"m", grid->m}, {"n", grid->n}, {"k", grid->k},
                        {"note", o.m.empty() && o.n.empty() && o.k.empty()
                                     ? "documented grid: powers of two and their x1.5 midpoints, m,n in 16..8192, "
                                       "k in 32..65536"
                                     : "axes given on the command line"}}},
              {"seconds", seconds}};
  std::vector<AlgorithmChoice> distinct;
  std::map<std::string, size_t> index_of;
  json tables = json::array();
  for (const auto& t : result->tables) {
    json tj = key_json(t.key);
    std::vector<int64_t> algorithm_index;
    std::map<int, int> histogram;
    std::map<int, int> schemes;
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
    tables.push_back(tj);
    spdlog::info("{} ws {} {} {}: split counts {} ; schemes of split cells {}", describe(t.key.out_dtype).name,
                 t.key.workspace_bytes, t.key.rowwise ? "rowwise" : "tensorwise",
                 t.key.use_fast_accum ? "fast" : "promoted", hist.dump(), sch.dump());
  }
  log["tables"] = tables;
  json algorithms = json::array();
  for (const auto& c : distinct) algorithms.push_back(choice_json(c));
  log["algorithms"] = algorithms;

  int failures = 0;
  if (o.replay_sample > 0) {
    auto sample = replay_sample(o, *result, *base, failures);
    if (!sample) return sample.error();
    log["sample"] = {{"recorded_in", o.sample_out}, {"calls", sample->size()},
                     {"verdict", fmt::format("{}/{} sampled calls bit-exact with the table's split count",
                                             sample->size() - static_cast<size_t>(failures), sample->size())},
                     {"replays", *sample}};
    std::cout << log["sample"]["verdict"].get<std::string>() << std::endl;
  }
  if (auto ok = write_file_atomically(o.out, log.dump() + "\n"); !ok) return ok.error();
  if (!o.write_profile.empty()) {
    if (auto ok = write_into_profile(o.write_profile, *result, o.out); !ok) return ok.error();
    spdlog::info("wrote {} tables into {}", result->tables.size(), o.write_profile);
  }
  std::cout << fmt::format("sweep: {} cells, {} distinct algorithms, {:.1f} s", total, distinct.size(), seconds)
            << std::endl;
  return failures == 0 ? kExitOk : kExitVerdictFailed;
}

}  // namespace

Runner setup_sweep(CLI::App& app) {
  auto o = std::make_shared<SweepCliOptions>();
  app.add_option("--out", o->out, "the sweep log (JSON) to write")->required();
  app.add_option("--m", o->m, "m values (default: the documented grid 16..8192)");
  app.add_option("--n", o->n, "n values (default: the documented grid 16..8192)");
  app.add_option("--k", o->k, "k values (default: the documented grid 32..65536)");
  app.add_option("--workspaces", o->workspaces, "cuBLASLt workspace sizes in bytes")->capture_default_str();
  app.add_option("--scale-modes", o->scale_modes, "tensorwise, rowwise")->capture_default_str();
  app.add_option("--fast-accum", o->fast_accum, "off, on")->capture_default_str();
  app.add_option("--out-dtypes", o->out_dtypes, "bf16, f16, f32, f8_e4m3")->capture_default_str();
  app.add_option("--pairs", o->pairs, "e4m3xe4m3, e4m3xe5m2, e5m2xe4m3")->capture_default_str();
  app.add_option("--cublaslt", o->cublaslt, "the libcublasLt to load")->capture_default_str();
  app.add_option("--profile", o->profile, "profile the sample is replayed with")->capture_default_str();
  app.add_option("--write-profile", o->write_profile, "merge the tables into this profile JSON file");
  app.add_option("--replay-sample", o->replay_sample, "record this many swept calls and replay them");
  app.add_option("--sample-out", o->sample_out, "folder for the sample's truth sets");
  app.add_option("--sample-max-macs", o->sample_max_macs, "largest m*n*k in the sample")->capture_default_str();
  return [o] { return run_sweep(*o); };
}

}  // namespace mmaemu::cli
