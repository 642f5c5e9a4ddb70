// Reading mmaemu-truth/1 manifests. Every field is checked and an error names the manifest, the
// recording and the field.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "json_object.hpp"
#include "mmaemu/truth.hpp"

namespace mmaemu {
namespace {

Error hash_differs(const std::filesystem::path& path, const std::string& actual,
                   const std::string& expected) {
  return Error(Errc::hash_mismatch,
               path.string() + ": sha256 " + actual + " differs from the manifest's " + expected);
}

using nlohmann::json;

struct FieldReader {
  const std::string& where;
  const json& object;

  Error error(const std::string& field, const std::string& what) const {
    return Error(Errc::malformed, where + ": field '" + field + "' " + what);
  }
  Result<std::string> string(const char* field) const {
    if (!object.contains(field) || !object[field].is_string())
      return error(field, "must be a string");
    return object[field].get<std::string>();
  }
  Result<int64_t> positive(const char* field) const {
    if (!object.contains(field) || !object[field].is_number_integer() ||
        object[field].get<int64_t>() <= 0)
      return error(field, "must be a positive integer");
    return object[field].get<int64_t>();
  }
  Result<Format> format(const char* field) const {
    auto name = string(field);
    if (!name) return name.error();
    auto f = format_from_name(*name);
    if (!f) return error(field, "names an unknown dtype '" + *name + "'");
    return *f;
  }
  Result<ScaleRef> scale(const char* field) const {
    if (!object.contains(field)) return error(field, "is missing");
    const json& v = object[field];
    if (v.is_number()) return ScaleRef{v.get<double>(), {}};
    if (v.is_string()) return ScaleRef{std::nullopt, v.get<std::string>()};
    return error(field, "must be a number or a tensor name");
  }
};

#define MMAEMU_TRY(target, expr)          \
  do {                                    \
    auto result_ = (expr);                \
    if (!result_) return result_.error(); \
    target = std::move(result_).value();  \
  } while (0)

Result<Recording> parse_recording(const std::string& where, const json& r) {
  if (!r.is_object()) return Error(Errc::malformed, where + ": is not an object");
  FieldReader f{where, r};
  Recording rec;
  MMAEMU_TRY(rec.id, f.string("id"));
  MMAEMU_TRY(rec.op, f.string("op"));
  MMAEMU_TRY(rec.file, f.string("file"));
  if (rec.op == "scaled_mm") {
    MMAEMU_TRY(rec.m, f.positive("m"));
    MMAEMU_TRY(rec.n, f.positive("n"));
    MMAEMU_TRY(rec.k, f.positive("k"));
    if (r.contains("n_stored")) {
      int64_t stored;
      MMAEMU_TRY(stored, f.positive("n_stored"));
      if (stored > rec.n) return f.error("n_stored", "exceeds n");
      rec.n_stored = stored;
    }
    MMAEMU_TRY(rec.a, f.string("a"));
    MMAEMU_TRY(rec.b, f.string("b"));
    MMAEMU_TRY(rec.out, f.string("out"));
    MMAEMU_TRY(rec.a_dtype, f.format("a_dtype"));
    MMAEMU_TRY(rec.b_dtype, f.format("b_dtype"));
    MMAEMU_TRY(rec.out_dtype, f.format("out_dtype"));
    if (r.contains("b_layout") && r["b_layout"] != "n_by_k_rowmajor")
      return f.error("b_layout", "must be \"n_by_k_rowmajor\"");
    MMAEMU_TRY(rec.scale_a, f.scale("scale_a"));
    MMAEMU_TRY(rec.scale_b, f.scale("scale_b"));
    if (r.contains("bias") && !r["bias"].is_null()) {
      if (!r["bias"].is_string()) return f.error("bias", "must be null or a tensor name");
      rec.bias = r["bias"].get<std::string>();
    }
    if (!r.contains("use_fast_accum") || !r["use_fast_accum"].is_boolean())
      return f.error("use_fast_accum", "must be a boolean");
    rec.use_fast_accum = r["use_fast_accum"].get<bool>();
    if (r.contains("kernels") && r["kernels"].is_array())
      for (const auto& k : r["kernels"])
        if (k.is_string()) rec.kernels.push_back(k.get<std::string>());
    if (r.contains("dist") && r["dist"].is_string()) rec.dist = r["dist"].get<std::string>();
    if (r.contains("algorithm") && r["algorithm"].is_object() &&
        r["algorithm"].contains("splitk_num")) {
      const auto& s = r["algorithm"]["splitk_num"];
      if (!s.is_number_integer() || s.get<int64_t>() < 1 || s.get<int64_t>() > 4096)
        return f.error("algorithm.splitk_num", "must be a positive integer");
      rec.recorded_split_k = s.get<int>();
    }
    if (r.contains("workspace_bytes")) {
      if (!r["workspace_bytes"].is_number_integer() || r["workspace_bytes"].get<int64_t>() < 0)
        return f.error("workspace_bytes", "must be a byte count");
      rec.workspace_bytes = r["workspace_bytes"].get<int64_t>();
    }
    if (r.contains("sm_count_target")) {
      int64_t target;
      MMAEMU_TRY(target, f.positive("sm_count_target"));
      if (target > 4096) return f.error("sm_count_target", "must be an SM count (at most 4096)");
      rec.sm_count_target = static_cast<int>(target);
    }
  } else if (rec.op == "mma_block") {
    MMAEMU_TRY(rec.gpu, f.string("gpu"));
    MMAEMU_TRY(rec.instruction, f.string("instruction"));
    MMAEMU_TRY(rec.count, f.positive("count"));
    MMAEMU_TRY(rec.k, f.positive("k"));
    MMAEMU_TRY(rec.a, f.string("a"));
    MMAEMU_TRY(rec.b, f.string("b"));
    MMAEMU_TRY(rec.c, f.string("c"));
    MMAEMU_TRY(rec.out, f.string("out"));
    MMAEMU_TRY(rec.in_dtype, f.format("in_dtype"));
    MMAEMU_TRY(rec.out_dtype, f.format("out_dtype"));
    if (r.contains("c_dtype")) MMAEMU_TRY(rec.c_dtype, f.format("c_dtype"));
  } else {
    return f.error("op", "is '" + rec.op + "', not scaled_mm or mma_block");
  }
  return rec;
}

}  // namespace

std::optional<int> heuristic_sm_count(const TruthSet& set, const Recording& r) {
  if (r.sm_count_target) return r.sm_count_target;
  if (set.sm_count_target) return set.sm_count_target;
  return set.multiprocessors;
}

std::optional<int64_t> recorded_workspace_bytes(const TruthSet& set, const Recording& r) {
  return r.workspace_bytes ? r.workspace_bytes : set.workspace_bytes;
}

std::optional<bool> kernels_show_split(const Recording& r) {
  if (r.kernels.empty()) return std::nullopt;
  return std::any_of(r.kernels.begin(), r.kernels.end(), [](const std::string& name) {
    return name.find("splitKreduce") != std::string::npos ||
           name.find("_splitK_") != std::string::npos;
  });
}

Result<TruthSet> load_truth_set(const std::filesystem::path& directory,
                                const TruthLoadOptions& options) {
  const auto manifest_path = directory / "manifest.json";
  auto bytes = read_file_bytes(manifest_path);
  if (!bytes) return bytes.error();
  const std::string where = manifest_path.string();
  auto parsed =
      parse_json_object({reinterpret_cast<const char*>(bytes->data()), bytes->size()}, where);
  if (!parsed) return parsed.error();
  json& m = *parsed;
  if (!m.contains("format") || m["format"] != "mmaemu-truth/1")
    return Error(Errc::malformed, where + ": field 'format' must be \"mmaemu-truth/1\"");
  TruthSet set;
  set.directory = directory;
  set.manifest_sha256 = sha256_bytes(*bytes);
  if (m.contains("source") && m["source"].is_string()) set.source = m["source"].get<std::string>();
  if (m.contains("environment")) {
    set.environment_json = m["environment"].dump();
    if (m["environment"].contains("gpu") && m["environment"]["gpu"].is_string())
      set.gpu = m["environment"]["gpu"].get<std::string>();
    const json& env = m["environment"];
    if (env.contains("workspace_bytes") && env["workspace_bytes"].is_number_integer())
      set.workspace_bytes = env["workspace_bytes"].get<int64_t>();
    for (auto [key, field] : {std::pair{"multiprocessors", &set.multiprocessors},
                              {"sm_count_target", &set.sm_count_target}}) {
      if (!env.contains(key)) continue;
      if (!env[key].is_number_integer() || env[key].get<int64_t>() <= 0 ||
          env[key].get<int64_t>() > 4096)
        return Error(Errc::malformed,
                     where + ": field 'environment." + key + "' must be an SM count");
      *field = env[key].get<int>();
    }
  }
  if (!m.contains("files") || !m["files"].is_object())
    return Error(Errc::malformed, where + ": field 'files' must be an object");
  for (auto& [name, hash] : m["files"].items()) {
    if (!hash.is_string() || hash.get<std::string>().size() != 64)
      return Error(Errc::malformed, where + ": files." + name + " must be a sha256 hex string");
    if (name.find('/') != std::string::npos || name.find("..") != std::string::npos)
      return Error(Errc::malformed, where + ": files." + name + " must be a plain file name");
    set.files[name] = hash.get<std::string>();
  }
  if (!m.contains("recordings") || !m["recordings"].is_array())
    return Error(Errc::malformed, where + ": field 'recordings' must be an array");
  std::set<std::string> ids;
  for (size_t i = 0; i < m["recordings"].size(); ++i) {
    const json& r = m["recordings"][i];
    std::string label = where + ": recordings[" + std::to_string(i) + "]";
    if (r.is_object() && r.contains("id") && r["id"].is_string())
      label += " (" + r["id"].get<std::string>() + ")";
    auto rec = parse_recording(label, r);
    if (!rec) return rec.error();
    // Ids name recordings in logs and --only: two of one id would make both ambiguous.
    if (!ids.insert(rec->id).second)
      return Error(Errc::malformed,
                   label + ": id '" + rec->id + "' is used by an earlier recording");
    if (!set.files.count(rec->file))
      return Error(Errc::malformed, label + ": file '" + rec->file + "' is not listed in 'files'");
    set.recordings.push_back(std::move(rec).value());
  }
  if (m.contains("skipped") && m["skipped"].is_array())
    for (const auto& s : m["skipped"])
      if (s.is_string()) set.skipped.push_back(s.get<std::string>());
  // A recording's file is hashed when it is read for the replay (open_recording_file), so that
  // the bytes checked are the bytes used; here every file must exist, and the files no recording
  // names are hashed now.
  set.verify_hashes = options.verify_hashes;
  if (options.verify_hashes) {
    std::set<std::string> named;
    for (const auto& r : set.recordings) named.insert(r.file);
    for (const auto& [name, expected] : set.files) {
      if (auto ok = require_regular_file(directory / name); !ok) return ok.error();
      if (named.count(name)) continue;
      auto actual = sha256_file(directory / name);
      if (!actual) return actual.error();
      if (*actual != expected) return hash_differs(directory / name, *actual, expected);
    }
  }
  return set;
}

namespace {

Result<void> expect_tensor(const SafetensorsFile& file, const std::string& name,
                           std::string_view dtype, std::vector<int64_t> shape,
                           const std::string& recording) {
  const TensorInfo* t = file.find(name);
  if (!t)
    return Error(Errc::malformed,
                 file.origin() + ": recording " + recording + ": no tensor '" + name + "'");
  if (t->dtype != dtype)
    return Error(Errc::malformed, file.origin() + ": tensor '" + name + "' is " + t->dtype +
                                      ", the manifest implies " + std::string(dtype));
  if (t->shape != shape) {
    auto show = [](const std::vector<int64_t>& s) {
      std::string out = "[";
      for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
      return out + "]";
    };
    return Error(Errc::malformed, file.origin() + ": tensor '" + name + "' has shape " +
                                      show(t->shape) + ", the manifest implies " + show(shape));
  }
  return {};
}

}  // namespace

Result<SafetensorsFile> open_recording_file(const TruthSet& set, const Recording& r) {
  const std::filesystem::path path = set.directory / r.file;
  // A link may stay inside the set (a file shared by two sets is a copy, not a link out of one).
  std::error_code ec;
  if (std::filesystem::is_symlink(path, ec)) {
    const auto target = std::filesystem::weakly_canonical(path, ec);
    const auto inside = std::filesystem::weakly_canonical(set.directory, ec);
    if (ec || target.parent_path() != inside)
      return Error(Errc::malformed,
                   path.string() + ": a symlink leaving the set (to " + target.string() + ")");
  }
  auto bytes = read_file_bytes(path);
  if (!bytes) return bytes.error();
  if (set.verify_hashes) {
    const auto expected = set.files.find(r.file);
    if (expected == set.files.end())
      return Error(Errc::malformed, r.id + ": file '" + r.file + "' is not listed in 'files'");
    const std::string actual = sha256_bytes(*bytes);
    if (actual != expected->second) return hash_differs(path, actual, expected->second);
  }
  auto file = SafetensorsFile::parse(std::move(bytes).value(), path.string());
  if (!file) return file.error();
  auto dtype = [](Format f) { return describe(f).safetensors_dtype; };
  std::vector<std::pair<std::string, std::pair<std::string_view, std::vector<int64_t>>>> expected;
  if (r.op == "scaled_mm") {
    const int64_t n = r.n_stored.value_or(r.n);
    expected.push_back({r.a, {dtype(r.a_dtype), {r.m, r.k}}});
    expected.push_back({r.b, {dtype(r.b_dtype), {n, r.k}}});
    expected.push_back({r.out, {dtype(r.out_dtype), {r.m, n}}});
    if (r.scale_a.is_tensor()) expected.push_back({r.scale_a.tensor, {"F32", {r.m, 1}}});
    if (r.scale_b.is_tensor()) expected.push_back({r.scale_b.tensor, {"F32", {1, n}}});
    if (r.bias) {
      const TensorInfo* t = file->find(*r.bias);
      expected.push_back({*r.bias, {t ? std::string_view(t->dtype) : "BF16", {n}}});
      if (t && t->dtype != "BF16" && t->dtype != "F16")
        return Error(Errc::malformed,
                     file->origin() + ": bias '" + *r.bias + "' must be BF16 or F16");
    }
  } else {
    expected.push_back({r.a, {dtype(r.in_dtype), {r.count, r.k}}});
    expected.push_back({r.b, {dtype(r.in_dtype), {r.count, r.k}}});
    expected.push_back({r.c, {dtype(r.c_dtype), {r.count}}});
    expected.push_back({r.out, {dtype(r.out_dtype), {r.count}}});
  }
  for (const auto& [name, spec] : expected) {
    auto ok = expect_tensor(*file, name, spec.first, spec.second, r.id);
    if (!ok) return ok.error();
  }
  return file;
}

}  // namespace mmaemu
