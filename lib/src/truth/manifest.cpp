// Reading mmaemu-truth/1 manifests. Every field is checked and an error names the manifest, the
// recording and the field.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "json_fields.hpp"
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

// A scale: a number (tensorwise, its value) or the name of a tensor in the recording's file.
Result<ScaleRef> scale(const JsonFields& f, const char* field) {
  if (f.has(field) && f.at(field).is_number()) return ScaleRef{f.at(field).get<double>(), {}};
  if (f.has(field) && f.at(field).is_string())
    return ScaleRef{std::nullopt, f.at(field).get<std::string>()};
  return f.error(field, "must be a number or a tensor name");
}

Result<Recording> parse_recording(const std::string& where, const json& r) {
  if (!r.is_object()) return Error(Errc::malformed, where + ": is not an object");
  const JsonFields f(r, where);
  Recording rec;
  MMAEMU_TRY(rec.id, f.string("id"));
  MMAEMU_TRY(rec.op, f.string("op"));
  MMAEMU_TRY(rec.file, f.string("file"));
  if (rec.op == "scaled_mm") {
    MMAEMU_TRY(rec.m, f.positive("m"));
    MMAEMU_TRY(rec.n, f.positive("n"));
    MMAEMU_TRY(rec.k, f.positive("k"));
    if (f.has("n_stored")) {
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
    std::string layout;
    MMAEMU_TRY(layout, f.string("b_layout", "n_by_k_rowmajor"));
    if (layout != "n_by_k_rowmajor") return f.error("b_layout", "must be \"n_by_k_rowmajor\"");
    MMAEMU_TRY(rec.scale_a, scale(f, "scale_a"));
    MMAEMU_TRY(rec.scale_b, scale(f, "scale_b"));
    if (f.has("bias")) MMAEMU_TRY(rec.bias, f.string("bias"));
    MMAEMU_TRY(rec.use_fast_accum, f.boolean("use_fast_accum"));
    MMAEMU_TRY(rec.kernels, f.strings("kernels"));
    MMAEMU_TRY(rec.dist, f.string("dist", ""));
    auto algorithm = f.object("algorithm", true);
    if (!algorithm) return algorithm.error();
    if (algorithm->has("splitk_num"))
      MMAEMU_TRY(rec.recorded_split_k, algorithm->integer("splitk_num", 1, 4096));
    if (f.has("workspace_bytes"))
      MMAEMU_TRY(rec.workspace_bytes, f.integer("workspace_bytes", 0, int64_t{1} << 40));
    if (f.has("sm_count_target"))
      MMAEMU_TRY(rec.sm_count_target, f.integer("sm_count_target", 1, 4096));
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
    if (f.has("c_dtype")) MMAEMU_TRY(rec.c_dtype, f.format("c_dtype"));
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
  const JsonFields m(*parsed, where);
  std::string format;
  MMAEMU_TRY(format, m.string("format", ""));
  if (format != "mmaemu-truth/1") return m.error("format", "must be \"mmaemu-truth/1\"");
  TruthSet set;
  set.directory = directory;
  set.manifest_sha256 = sha256_bytes(*bytes);
  MMAEMU_TRY(set.source, m.string("source", ""));
  if (m.has("environment")) {
    auto env = m.object("environment");
    if (!env) return env.error();
    set.environment_json = env->json().dump();
    MMAEMU_TRY(set.gpu, env->string("gpu", ""));
    if (env->has("workspace_bytes"))
      MMAEMU_TRY(set.workspace_bytes, env->integer("workspace_bytes", 0, int64_t{1} << 40));
    if (env->has("multiprocessors"))
      MMAEMU_TRY(set.multiprocessors, env->integer("multiprocessors", 1, 4096));
    if (env->has("sm_count_target"))
      MMAEMU_TRY(set.sm_count_target, env->integer("sm_count_target", 1, 4096));
  }
  auto files = m.object("files");
  if (!files) return files.error();
  for (auto& [name, hash] : files->json().items()) {
    if (!hash.is_string() || hash.get<std::string>().size() != 64)
      return files->error(name, "must be a sha256 hex string");
    if (name.find('/') != std::string::npos || name.find("..") != std::string::npos)
      return files->error(name, "must name a plain file");
    set.files[name] = hash.get<std::string>();
  }
  auto recordings = m.array("recordings");
  if (!recordings) return recordings.error();
  std::set<std::string> ids;
  for (size_t i = 0; i < (*recordings)->size(); ++i) {
    const json& r = (**recordings)[i];
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
  MMAEMU_TRY(set.skipped, m.strings("skipped"));
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
