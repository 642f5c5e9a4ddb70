#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "mmaemu/profile.hpp"
#include "mmaemu/safetensors.hpp"
#include "profile/embedded_profiles.hpp"
#include "truth/json_fields.hpp"
#include "truth/json_object.hpp"

namespace mmaemu {
namespace {

using nlohmann::json;

// dtype names of an optional array field; absent: empty (any dtype).
Result<std::vector<Format>> formats(const JsonFields& j, const char* key) {
  auto names = j.strings(key);
  if (!names) return names.error();
  std::vector<Format> out;
  for (const auto& name : *names) {
    auto f = format_from_name(name);
    if (!f) return j.error(key, "names an unknown dtype '" + name + "'");
    out.push_back(*f);
  }
  return out;
}

bool listed(const std::vector<Format>& list, Format f) {
  return list.empty() || std::find(list.begin(), list.end(), f) != list.end();
}

Result<SplitKEntry> split_entry(const JsonFields& e) {
  SplitKEntry entry;
  MMAEMU_TRY(entry.m, e.positive("m"));
  MMAEMU_TRY(entry.n, e.positive("n"));
  MMAEMU_TRY(entry.k, e.positive("k"));
  MMAEMU_TRY(entry.splits, e.integer("splits", 1, 4096));
  MMAEMU_TRY(entry.rowwise, e.boolean("rowwise", false));
  MMAEMU_TRY(entry.evidence, e.string("evidence", ""));
  return entry;
}

}  // namespace

// rules[i]: which preset and algorithm a configuration takes.
static Result<ProfileRule> parse_rule(const JsonFields& r) {
  ProfileRule rule;
  MMAEMU_TRY(rule.a_dtypes, formats(r, "a_dtypes"));
  MMAEMU_TRY(rule.b_dtypes, formats(r, "b_dtypes"));
  MMAEMU_TRY(rule.out_dtypes, formats(r, "out_dtypes"));
  if (r.has("use_fast_accum")) MMAEMU_TRY(rule.use_fast_accum, r.boolean("use_fast_accum"));
  if (r.has("rowwise")) MMAEMU_TRY(rule.rowwise, r.boolean("rowwise"));
  MMAEMU_TRY(rule.preset, r.string("preset"));
  MMAEMU_TRY(rule.algorithm, r.string("algorithm"));
  if (!find_preset(rule.preset)) return r.error("preset", "names no preset: '" + rule.preset + "'");
  if (!find_algorithm(rule.algorithm))
    return r.error("algorithm", "names no algorithm: '" + rule.algorithm + "'");
  return rule;
}

// split_k: the listed shapes of a profile without a model, or the model's name.
static Result<void> parse_split_k_section(const JsonFields& s, Profile& p) {
  MMAEMU_TRY(p.split_k_source, s.string("source", ""));
  for (const char* list : {"table", "unsplit_shapes"}) {
    auto entries = s.array(list, true);
    if (!entries) return entries.error();
    for (size_t i = 0; i < (*entries)->size(); ++i) {
      auto fields = s.element(list, i);
      if (!fields) return fields.error();
      auto e = split_entry(*fields);
      if (!e) return e.error();
      (std::string(list) == "table" ? p.split_k_table : p.unsplit_shapes).push_back(*e);
    }
  }
  if (s.has("model")) {
    MMAEMU_TRY(p.split_k_model_name, s.string("model"));
    if (p.split_k_model_name.empty()) return s.error("model", "must name a split-K model file");
  }
  std::vector<std::string> gpu_models;
  MMAEMU_TRY(gpu_models, s.strings("gpu_models"));
  if (!gpu_models.empty() && p.split_k_model_name.empty())
    return s.error("gpu_models", "needs split_k.model, the reference GPU's model");
  for (auto& name : gpu_models) p.split_k_gpu_models.push_back({std::move(name), nullptr});
  // The grids of mmaemu-sweep/1 that profiles once carried: the split-K model replaced them.
  if (s.has("sweeps"))
    return s.error("sweeps",
                   "is no longer read: the split-K count comes from a split-K model "
                   "(split_k.model; docs/split-k.md)");
  return {};
}

static Result<Profile> parse_profile_fields(std::string_view json_text, const std::string& origin) {
  auto parsed = parse_json_object(json_text, origin);
  if (!parsed) return parsed.error();
  const JsonFields j(*parsed, origin);
  std::string schema;
  MMAEMU_TRY(schema, j.string("schema", ""));
  if (schema != "mmaemu-profile/1") return j.error("schema", "must be \"mmaemu-profile/1\"");
  Profile p;
  MMAEMU_TRY(p.name, j.string("name"));
  if (p.name.empty()) return j.error("name", "is empty");
  MMAEMU_TRY(p.description, j.string("description", ""));
  MMAEMU_TRY(p.maturity, j.string("maturity", ""));
  if (p.maturity != "validated" && p.maturity != "experimental")
    return j.error("maturity", "must be \"validated\" or \"experimental\"");
  auto target = j.object("target", true);
  if (!target) return target.error();
  MMAEMU_TRY(p.devices, target->strings("devices"));
  MMAEMU_TRY(p.architecture, target->string("architecture", ""));
  MMAEMU_TRY(p.library, target->string("library", ""));
  MMAEMU_TRY(p.library_version, target->string("library_version", ""));
  // null: not known (ada's)
  if (target->has("workspace_bytes"))
    MMAEMU_TRY(p.workspace_bytes, target->integer("workspace_bytes", 0, int64_t{1} << 40));
  MMAEMU_TRY(p.evidence, j.strings("evidence"));
  auto rules = j.array("rules");
  if (!rules) return rules.error();
  if ((*rules)->empty()) return j.error("rules", "must not be empty");
  for (size_t i = 0; i < (*rules)->size(); ++i) {
    auto fields = j.element("rules", i);
    if (!fields) return fields.error();
    auto rule = parse_rule(*fields);
    if (!rule) return rule.error();
    p.rules.push_back(*rule);
  }
  auto split_k = j.object("split_k", true);
  if (!split_k) return split_k.error();
  if (auto ok = parse_split_k_section(*split_k, p); !ok) return ok.error();
  auto envelope = j.object("envelope", true);
  if (!envelope) return envelope.error();
  MMAEMU_TRY(p.envelope_out_dtypes, formats(*envelope, "out_dtypes"));
  MMAEMU_TRY(p.envelope_note, envelope->string("note", ""));
  return p;
}

namespace {

// The split-K model a profile names: `folder`/<name>.json where the profile came from a folder
// and that file exists (read each time), else the one the executable carries (parsed once, shared).
Result<std::shared_ptr<const SplitKModel>> split_k_model_named(
    const std::string& name, const std::filesystem::path& folder) {
  const std::filesystem::path beside =
      folder.empty() ? std::filesystem::path() : folder / (name + ".json");
  if (!beside.empty() && std::filesystem::exists(beside)) {
    auto bytes = read_file_bytes(beside);
    if (!bytes) return bytes.error();
    auto model = parse_split_k_model(
        std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()),
        beside.string());
    if (!model) return model.error();
    return std::make_shared<const SplitKModel>(std::move(model).value());
  }
  const auto& carried = embedded_split_k_models();
  const auto it = std::find_if(carried.begin(), carried.end(),
                               [&](const EmbeddedText& t) { return t.name == name; });
  if (it == carried.end()) return Error(Errc::not_found, "no split-K model named '" + name + "'");
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const SplitKModel>> parsed;
  std::lock_guard lock(mutex);
  if (auto found = parsed.find(name); found != parsed.end()) return found->second;
  auto model = parse_split_k_model(it->text, "split-K model " + name);
  if (!model) return model.error();
  return parsed.emplace(name, std::make_shared<const SplitKModel>(std::move(model).value()))
      .first->second;
}

Result<Profile> parse_profile_in(std::string_view json_text, const std::string& origin,
                                 const std::filesystem::path& folder) {
  Result<Profile> p = parse_profile_fields(json_text, origin);
  if (!p || p->split_k_model_name.empty()) return p;
  auto model = split_k_model_named(p->split_k_model_name, folder);
  if (!model)
    return Error(model.error().code(), origin + ": split_k.model: " + model.error().message());
  p->split_k_model = *model;
  for (auto& other : p->split_k_gpu_models) {
    auto m = split_k_model_named(other.name, folder);
    if (!m) return Error(m.error().code(), origin + ": split_k.gpu_models: " + m.error().message());
    other.model = *m;
  }
  return p;
}

// What the library is known to have done (split K or not, from a recording's kernel names)
// overrides a count that says otherwise. Not split: one slice, known. Split where the profile said
// one slice: two, the count nearest the boundary the profile misplaced (every such live call on the
// H200 took 2, validation_logs/2026-12-05/split-k), outside the envelope.
void weigh_split_evidence(Plan& plan, bool split, const std::string& shape) {
  if (!split && (plan.split_k > 1 || !plan.envelope.inside)) {
    plan.split_k_source = "the recording's kernels (no split-K kernel ran); the profile said " +
                          std::to_string(plan.split_k) + (plan.split_k > 1 ? " slices" : " slice");
    plan.split_k = 1;
    plan.envelope = {};
  } else if (split && plan.split_k == 1) {
    plan.split_k_source =
        "the recording's kernels (splitKreduce_kernel ran) where the profile said "
        "one slice: 2 slices assumed";
    plan.split_k = 2;
    plan.envelope.inside = false;
    plan.envelope.reason = "cuBLASLt split K for shape " + shape +
                           " (the recording's kernels) where the profile predicted one slice; "
                           "the count is not known: 2 assumed";
  }
}

}  // namespace

Result<Profile> parse_profile(std::string_view json_text, const std::string& origin) {
  return parse_profile_in(json_text, origin, {});
}

Profile::SplitKModelChoice Profile::split_k_model_for(const std::string& gpu) const {
  if (!split_k_model) return {};
  if (gpu.empty() || split_k_model->swept_on(gpu))
    return {split_k_model.get(), split_k_model_name, true};
  for (const auto& other : split_k_gpu_models)
    if (other.model->swept_on(gpu)) return {other.model.get(), other.name, true};
  return {split_k_model.get(), split_k_model_name, false};
}

std::string Profile::split_k_gpus() const {
  std::string gpus = split_k_model ? split_k_model->gpu : "";
  for (const auto& other : split_k_gpu_models) gpus += ", " + other.model->gpu;
  return gpus;
}

Result<Plan> Profile::resolve(const ScaledMmCall& call, const ResolveOptions& options) const {
  const std::optional<int>& known_split_k = options.known_split_k;
  // A count given with the call (a recording's, --splits) is bounded before anything is sized by
  // it: at most one slice per 32 elements of K (cuBLASLt's slices are far longer) and no more than
  // kMaxSplitK (its heuristic never chose more than the SM count, 132 on the H200).
  const int64_t most_splits =
      std::min<int64_t>(std::max<int64_t>((call.k + 31) / 32, 1), kMaxSplitK);
  if (known_split_k && (*known_split_k < 1 || *known_split_k > most_splits))
    return Error(Errc::invalid_argument,
                 "split count " + std::to_string(*known_split_k) + " is not between 1 and " +
                     std::to_string(most_splits) + " (ceil(K / 32) for K = " +
                     std::to_string(call.k) + ", at most " + std::to_string(kMaxSplitK) + ")");
  const std::optional<int64_t>& workspace = options.workspace_bytes;
  const bool rowwise = call.scale_a.rowwise();
  const ProfileRule* rule = nullptr;
  for (const auto& r : rules) {
    if (listed(r.a_dtypes, call.a_dtype) && listed(r.b_dtypes, call.b_dtype) &&
        listed(r.out_dtypes, call.out_dtype) &&
        (!r.use_fast_accum || *r.use_fast_accum == call.use_fast_accum) &&
        (!r.rowwise || *r.rowwise == rowwise)) {
      rule = &r;
      break;
    }
  }
  if (!rule)
    return Error(Errc::unsupported, "profile " + name + " has no rule for " +
                                        std::string(describe(call.a_dtype).name) + " x " +
                                        std::string(describe(call.b_dtype).name) + " -> " +
                                        std::string(describe(call.out_dtype).name) +
                                        (call.use_fast_accum ? " with" : " without") +
                                        " fast accumulation");
  Plan plan;
  plan.profile = name;
  plan.preset = find_preset(rule->preset);
  plan.algorithm = *find_algorithm(rule->algorithm);
  const int64_t n = call.library_n();
  const int64_t ws = workspace.value_or(workspace_bytes.value_or(0));
  const std::string shape = std::to_string(call.m) + "x" + std::to_string(n) + "x" +
                            std::to_string(call.k) + (rowwise ? " (rowwise)" : " (tensorwise)");
  const SplitKModelChoice chosen = split_k_model_for(options.heuristic_gpu);
  const SplitKModel* const model = chosen.model;
  const int sm_count = options.sm_count.value_or(model ? model->reference_sm_count : 0);
  if (model) plan.heuristic_device = model->describe_device(sm_count);
  // The hand-made table: shapes fitted to the h200-dev recordings at torch's default workspace.
  auto same_shape = [&](const SplitKEntry& e) {
    return e.m == call.m && e.n == n && e.k == call.k && e.rowwise == rowwise;
  };
  // A profile with a split-K model takes every count from it (it knows the configuration); the
  // table applies to a profile without one.
  const auto listed_split =
      model ? split_k_table.end()
            : std::find_if(split_k_table.begin(), split_k_table.end(), same_shape);
  if (known_split_k) {
    plan.split_k = *known_split_k;
    plan.split_k_source = "given with the call (the library's CUBLASLT_ALGO_CONFIG_SPLITK_NUM)";
  } else if (listed_split != split_k_table.end()) {
    plan.split_k = listed_split->splits;
    plan.split_k_source = "split_k.table of profile " + name + ": " + listed_split->evidence;
  } else if (model) {
    SplitKConfig config;
    config.sm_count = sm_count;
    config.workspace_bytes = ws;
    config.rowwise = rowwise;
    config.use_fast_accum = call.use_fast_accum;
    config.a_dtype = call.a_dtype;
    config.b_dtype = call.b_dtype;
    config.out_dtype = call.out_dtype;
    if (call.bias) config.bias_dtype = call.bias->format;
    const SplitKDecision d = decide_split_k(*model, config, call.m, n, call.k);
    plan.split_k = d.splits;
    plan.split_k_source = "split-K model " + chosen.name + " (" + plan.heuristic_device +
                          "): " + (d.checked ? d.source : d.outside);
    if (!d.checked) {
      plan.envelope.inside = false;
      plan.envelope.reason =
          "the split count for shape " + shape + " is predicted, not swept: " + d.outside;
    }
    if (!chosen.swept_on_gpu) {
      plan.envelope.inside = false;
      plan.envelope.reason = "no split-K model of profile " + name + " holds the choice of " +
                             "cuBLASLt on " + options.heuristic_gpu + " (they hold " +
                             split_k_gpus() + "); the count is the " + model->gpu +
                             "'s, and GPUs with equal SM counts choose differently (an H100 SXM's "
                             "heuristic differs from the H200's on 24 % of the cells compared, "
                             "validation_logs/2026-12-06/device/README.md)";
    }
  } else {
    const bool unsplit = std::any_of(unsplit_shapes.begin(), unsplit_shapes.end(), same_shape);
    plan.split_k = 1;
    plan.split_k_source = unsplit ? "split_k.unsplit_shapes of profile " + name
                                  : "assumed: shape not covered by profile " + name;
    if (!unsplit) {
      plan.envelope.inside = false;
      plan.envelope.reason = "shape " + shape +
                             " (m x n x k) is outside the split-K table of profile " + name +
                             "; one slice assumed";
    }
  }
  if (!known_split_k && options.known_split)
    weigh_split_evidence(plan, *options.known_split, shape);
  if (!listed(envelope_out_dtypes, call.out_dtype)) {
    plan.envelope.inside = false;
    plan.envelope.reason = "out dtype " + std::string(describe(call.out_dtype).name) +
                           " was not validated for profile " + name;
  }
  return plan;
}

std::vector<std::string> builtin_profile_names() {
  std::vector<std::string> names;
  for (const auto& t : embedded_profiles()) names.emplace_back(t.name);
  return names;
}

std::optional<std::string> builtin_profile_for(std::string_view architecture) {
  std::optional<std::string> found;
  for (const auto& name : builtin_profile_names())
    if (auto p = load_profile(name); p && p->architecture == architecture) found = name;
  return found;
}

Result<Profile> load_profile(const std::string& name_or_path) {
  for (const auto& t : embedded_profiles())
    if (t.name == name_or_path)
      return parse_profile_in(t.text, "profile " + std::string(t.name), {});
  if (name_or_path.find('/') == std::string::npos &&
      name_or_path.find(".json") == std::string::npos) {
    std::string known;
    for (const auto& t : embedded_profiles())
      known += (known.empty() ? "" : ", ") + std::string(t.name);
    return Error(Errc::not_found, "no profile named '" + name_or_path + "' (known: " + known + ")");
  }
  auto bytes = read_file_bytes(name_or_path);
  if (!bytes) return bytes.error();
  return parse_profile_in(
      std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), name_or_path,
      std::filesystem::path(name_or_path).parent_path());
}

}  // namespace mmaemu
