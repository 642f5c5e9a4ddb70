#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "mmaemu/profile.hpp"
#include "mmaemu/safetensors.hpp"
#include "profile/embedded_profiles.hpp"
#include "truth/json_object.hpp"

namespace mmaemu {
namespace {

using nlohmann::json;

Error bad(const std::string& origin, const std::string& what) {
  return Error(Errc::malformed, origin + ": " + what);
}

Result<std::vector<Format>> formats(const json& j, const std::string& origin,
                                    const std::string& field) {
  std::vector<Format> out;
  if (j.is_null()) return out;
  if (!j.is_array()) return bad(origin, field + " must be an array of dtype names");
  for (const auto& e : j) {
    auto f = e.is_string() ? format_from_name(e.get<std::string>()) : std::nullopt;
    if (!f) return bad(origin, field + " names an unknown dtype " + e.dump());
    out.push_back(*f);
  }
  return out;
}

std::string text(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

bool listed(const std::vector<Format>& list, Format f) {
  return list.empty() || std::find(list.begin(), list.end(), f) != list.end();
}

Result<SplitKEntry> split_entry(const json& e, const std::string& origin,
                                const std::string& where) {
  if (!e.is_object()) return bad(origin, where + " must be an object");
  for (const char* key : {"m", "n", "k", "splits"})
    if (!e.contains(key) || !e[key].is_number_integer() || e[key].get<int64_t>() <= 0)
      return bad(origin, where + "." + key + " must be a positive integer");
  if (e.contains("rowwise") && !e["rowwise"].is_boolean())
    return bad(origin, where + ".rowwise must be a boolean");
  return SplitKEntry{e["m"].get<int64_t>(),  e["n"].get<int64_t>(),     e["k"].get<int64_t>(),
                     e["splits"].get<int>(), e.value("rowwise", false), text(e, "evidence")};
}

// Each field a profile may hold, with its JSON type: a field of another type is bad input that
// names it ("rules[0].use_fast_accum must be a boolean"), before any value is read.
enum class Kind { string, boolean, integer, object, array, string_array };

Result<void> check_kinds(const json& j, const std::string& where, const std::string& origin,
                         std::initializer_list<std::pair<const char*, Kind>> fields) {
  const std::string prefix = where.empty() ? "" : where + ".";
  if (!j.is_object())
    return bad(origin, (where.empty() ? "the profile" : where) + " must be an object");
  for (const auto& [key, kind] : fields) {
    if (!j.contains(key)) continue;
    const json& v = j[key];
    // null stands for "not known" in a scalar (ada's target.workspace_bytes)
    if (v.is_null() && (kind == Kind::string || kind == Kind::boolean || kind == Kind::integer))
      continue;
    bool ok = false;
    const char* what = "";
    switch (kind) {
      case Kind::string:
        ok = v.is_string(), what = "a string";
        break;
      case Kind::boolean:
        ok = v.is_boolean(), what = "a boolean";
        break;
      case Kind::integer:
        ok = v.is_number_integer(), what = "an integer";
        break;
      case Kind::object:
        ok = v.is_object(), what = "an object";
        break;
      case Kind::array:
        ok = v.is_array(), what = "an array";
        break;
      case Kind::string_array:
        ok = v.is_array() &&
             std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_string(); });
        what = "an array of strings";
        break;
    }
    if (!ok) return bad(origin, prefix + key + " must be " + what);
  }
  return {};
}

}  // namespace

// The type of every field a profile may hold, checked before any is read.
static Result<void> check_profile_kinds(const json& j, const std::string& origin) {
  if (auto ok = check_kinds(j, "", origin,
                            {{"schema", Kind::string},
                             {"name", Kind::string},
                             {"description", Kind::string},
                             {"maturity", Kind::string},
                             {"target", Kind::object},
                             {"evidence", Kind::string_array},
                             {"rules", Kind::array},
                             {"split_k", Kind::object},
                             {"envelope", Kind::object}});
      !ok)
    return ok.error();
  if (j.contains("target"))
    if (auto ok = check_kinds(j["target"], "target", origin,
                              {{"devices", Kind::string_array},
                               {"architecture", Kind::string},
                               {"library", Kind::string},
                               {"library_version", Kind::string},
                               {"workspace_bytes", Kind::integer}});
        !ok)
      return ok.error();
  if (j.contains("split_k"))
    if (auto ok = check_kinds(j["split_k"], "split_k", origin,
                              {{"source", Kind::string},
                               {"table", Kind::array},
                               {"unsplit_shapes", Kind::array},
                               {"model", Kind::string}});
        !ok)
      return ok.error();
  if (j.contains("envelope"))
    if (auto ok = check_kinds(j["envelope"], "envelope", origin, {{"note", Kind::string}}); !ok)
      return ok.error();
  return {};
}

// rules[i]: which preset and algorithm a configuration takes.
static Result<ProfileRule> parse_rule(const json& r, const std::string& origin,
                                      const std::string& where) {
  if (auto ok = check_kinds(r, where, origin,
                            {{"use_fast_accum", Kind::boolean},
                             {"rowwise", Kind::boolean},
                             {"preset", Kind::string},
                             {"algorithm", Kind::string}});
      !ok)
    return ok.error();
  ProfileRule rule;
  auto a = formats(r.value("a_dtypes", json()), origin, where + ".a_dtypes");
  auto b = formats(r.value("b_dtypes", json()), origin, where + ".b_dtypes");
  auto o = formats(r.value("out_dtypes", json()), origin, where + ".out_dtypes");
  if (!a) return a.error();
  if (!b) return b.error();
  if (!o) return o.error();
  rule.a_dtypes = *a;
  rule.b_dtypes = *b;
  rule.out_dtypes = *o;
  if (r.contains("use_fast_accum")) rule.use_fast_accum = r["use_fast_accum"].get<bool>();
  if (r.contains("rowwise")) rule.rowwise = r["rowwise"].get<bool>();
  rule.preset = text(r, "preset");
  rule.algorithm = text(r, "algorithm");
  if (!find_preset(rule.preset))
    return bad(origin, where + ".preset names no preset: '" + rule.preset + "'");
  if (!find_algorithm(rule.algorithm))
    return bad(origin, where + ".algorithm names no algorithm: '" + rule.algorithm + "'");
  return rule;
}

// split_k: the listed shapes of a profile without a model, or the model's name.
static Result<void> parse_split_k_section(const json& s, const std::string& origin, Profile& p) {
  p.split_k_source = text(s, "source");
  for (const char* list : {"table", "unsplit_shapes"}) {
    if (!s.contains(list)) continue;
    for (size_t i = 0; i < s[list].size(); ++i) {
      auto e = split_entry(s[list][i], origin,
                           std::string("split_k.") + list + "[" + std::to_string(i) + "]");
      if (!e) return e.error();
      (std::string(list) == "table" ? p.split_k_table : p.unsplit_shapes).push_back(*e);
    }
  }
  if (s.contains("model")) {
    if (!s["model"].is_string() || s["model"].get<std::string>().empty())
      return bad(origin, "split_k.model must name a split-K model file");
    p.split_k_model_name = s["model"].get<std::string>();
  }
  // The grids of mmaemu-sweep/1 that profiles once carried: the split-K model replaced them.
  if (s.contains("sweeps"))
    return bad(origin,
               "split_k.sweeps is no longer read: the split-K count comes from a split-K model "
               "(split_k.model; docs/split-k.md)");
  return {};
}

static Result<Profile> parse_profile_fields(std::string_view json_text, const std::string& origin) {
  auto parsed = parse_json_object(json_text, origin);
  if (!parsed) return parsed.error();
  const json& j = *parsed;
  if (auto ok = check_profile_kinds(j, origin); !ok) return ok.error();
  if (text(j, "schema") != "mmaemu-profile/1")
    return bad(origin, "schema must be \"mmaemu-profile/1\"");
  Profile p;
  p.name = text(j, "name");
  if (p.name.empty()) return bad(origin, "name is missing");
  p.description = text(j, "description");
  p.maturity = text(j, "maturity");
  if (p.maturity != "validated" && p.maturity != "experimental")
    return bad(origin, "maturity must be \"validated\" or \"experimental\"");
  const json& target = j.contains("target") ? j["target"] : json::object();
  if (target.contains("devices"))
    for (const auto& d : target["devices"]) p.devices.push_back(d.get<std::string>());
  p.architecture = text(target, "architecture");
  p.library = text(target, "library");
  p.library_version = text(target, "library_version");
  if (target.contains("workspace_bytes") && target["workspace_bytes"].is_number_integer())
    p.workspace_bytes = target["workspace_bytes"].get<int64_t>();
  if (j.contains("evidence"))
    for (const auto& e : j["evidence"]) p.evidence.push_back(e.get<std::string>());
  if (!j.contains("rules") || !j["rules"].is_array() || j["rules"].empty())
    return bad(origin, "rules must be a non-empty array");
  for (size_t i = 0; i < j["rules"].size(); ++i) {
    auto rule = parse_rule(j["rules"][i], origin, "rules[" + std::to_string(i) + "]");
    if (!rule) return rule.error();
    p.rules.push_back(*rule);
  }
  if (j.contains("split_k"))
    if (auto ok = parse_split_k_section(j["split_k"], origin, p); !ok) return ok.error();
  if (j.contains("envelope")) {
    auto o = formats(j["envelope"].value("out_dtypes", json()), origin, "envelope.out_dtypes");
    if (!o) return o.error();
    p.envelope_out_dtypes = *o;
    p.envelope_note = text(j["envelope"], "note");
  }
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
  Result<Profile> p = [&]() -> Result<Profile> {
    try {
      return parse_profile_fields(json_text, origin);
    } catch (const nlohmann::json::exception& e) {
      // check_kinds names every field's type first; this is the last guard.
      return bad(origin, std::string("a field has the wrong type: ") + e.what());
    }
  }();
  if (!p || p->split_k_model_name.empty()) return p;
  auto model = split_k_model_named(p->split_k_model_name, folder);
  if (!model)
    return Error(model.error().code(), origin + ": split_k.model: " + model.error().message());
  p->split_k_model = *model;
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
  const int sm_count =
      options.sm_count.value_or(split_k_model ? split_k_model->reference_sm_count : 0);
  if (split_k_model) plan.heuristic_device = split_k_model->describe_device(sm_count);
  // The hand-made table: shapes fitted to the h200-dev recordings at torch's default workspace.
  auto same_shape = [&](const SplitKEntry& e) {
    return e.m == call.m && e.n == n && e.k == call.k && e.rowwise == rowwise;
  };
  // A profile with a split-K model takes every count from it (it knows the configuration); the
  // table applies to a profile without one.
  const auto listed_split =
      split_k_model ? split_k_table.end()
                    : std::find_if(split_k_table.begin(), split_k_table.end(), same_shape);
  if (known_split_k) {
    plan.split_k = *known_split_k;
    plan.split_k_source = "given with the call (the library's CUBLASLT_ALGO_CONFIG_SPLITK_NUM)";
  } else if (listed_split != split_k_table.end()) {
    plan.split_k = listed_split->splits;
    plan.split_k_source = "split_k.table of profile " + name + ": " + listed_split->evidence;
  } else if (split_k_model) {
    SplitKConfig config;
    config.sm_count = sm_count;
    config.workspace_bytes = ws;
    config.rowwise = rowwise;
    config.use_fast_accum = call.use_fast_accum;
    config.a_dtype = call.a_dtype;
    config.b_dtype = call.b_dtype;
    config.out_dtype = call.out_dtype;
    if (call.bias) config.bias_dtype = call.bias->format;
    const SplitKDecision d = decide_split_k(*split_k_model, config, call.m, n, call.k);
    plan.split_k = d.splits;
    plan.split_k_source = "split-K model " + split_k_model_name + " (" + plan.heuristic_device +
                          "): " + (d.checked ? d.source : d.outside);
    if (!d.checked) {
      plan.envelope.inside = false;
      plan.envelope.reason =
          "the split count for shape " + shape + " is predicted, not swept: " + d.outside;
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
