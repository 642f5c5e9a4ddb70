// Records torch._scaled_mm calls through cuBLASLt on a live GPU (device/torch_scaled_mm.hpp sets
// each call up as torch does), each call twice, into an mmaemu-truth/1 set.
#include "mmaemu/tools/record.hpp"

#include <algorithm>

#ifdef MMAEMU_HAVE_CUDA_HEADERS

#include <nlohmann/json.hpp>

#include "device/torch_scaled_mm.hpp"
#include "mmaemu/exact.hpp"
#include "mmaemu/safetensors.hpp"
#include "mmaemu/truth.hpp"

namespace mmaemu {
namespace {

struct Outcome {
  bool ok = false;
  std::string skip_reason;
  std::vector<uint8_t> out;
  bool deterministic = false;
  nlohmann::json algorithm;
};

Outcome run_call(const device::LtSession& s, const RecordCall& c, int64_t workspace_bytes) {
  Outcome o;
  auto run = device::run_native(s, c, workspace_bytes, 2);
  if (!run) {
    o.skip_reason = run.error().message();
    return o;
  }
  o.ok = true;
  o.deterministic = run->deterministic;
  o.out = std::move(run->out);
  for (const auto& [name, value] : run->choice.attributes) o.algorithm[name] = value;
  o.algorithm["workspace_size"] = run->choice.workspace_size;
  o.algorithm["waves_count"] = run->choice.waves_count;
  return o;
}

}  // namespace

Result<RecordSummary> record_truth_set(const RecordOptions& options, std::vector<RecordCall> calls,
                                       const std::function<void(const std::string&)>& progress) {
  auto session = device::open_lt_session(options.cublaslt_library, options.device);
  if (!session) return session.error();
  const device::LtSession& s = **session;
  const device::Gpu& gpu = s.gpu;

  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  nlohmann::json manifest = {
      {"format", "mmaemu-truth/1"},
      {"source", "mmaemu record: cuBLASLt FP8 matmul set up as torch._scaled_mm"},
      {"environment",
       {{"gpu", gpu.name},
        {"sm", std::to_string(gpu.compute_major) + "." + std::to_string(gpu.compute_minor)},
        {"multiprocessors", gpu.multiprocessors},
        {"driver_api_version", gpu.driver_version},
        {"cublaslt", {{"path", options.cublaslt_library}, {"version", s.version}}},
        {"workspace_bytes", options.workspace_bytes}}},
      {"files", nlohmann::json::object()},
      {"recordings", nlohmann::json::array()},
      {"skipped", nlohmann::json::array()}};
  if (options.sm_count_target > 0)
    manifest["environment"]["sm_count_target"] = options.sm_count_target;
  RecordSummary summary;
  for (RecordCall& c : calls) {
    if (c.sm_count_target == 0) c.sm_count_target = options.sm_count_target;
    const int64_t workspace = c.workspace_bytes.value_or(options.workspace_bytes);
    Outcome o = run_call(s, c, workspace);
    if (progress) progress(c.id);
    if (!o.ok) {
      manifest["skipped"].push_back(c.id + " skipped: " + o.skip_reason);
      ++summary.skipped;
      continue;
    }
    summary.recorded += 1;
    summary.nondeterministic += !o.deterministic;
    const std::string file = c.id + ".safetensors";
    auto dtype = [](Format f) { return std::string(describe(f).safetensors_dtype); };
    std::vector<TensorToWrite> tensors = {{"a", dtype(c.a_dtype), {c.m, c.k}, c.a},
                                          {"b", dtype(c.b_dtype), {c.n, c.k}, c.b},
                                          {"out", dtype(c.out_dtype), {c.m, c.n}, o.out}};
    nlohmann::json r = {{"id", c.id},
                        {"op", "scaled_mm"},
                        {"file", file},
                        {"m", c.m},
                        {"n", c.n},
                        {"k", c.k},
                        {"a", "a"},
                        {"a_dtype", describe(c.a_dtype).name},
                        {"b", "b"},
                        {"b_dtype", describe(c.b_dtype).name},
                        {"b_layout", "n_by_k_rowmajor"},
                        {"out", "out"},
                        {"out_dtype", describe(c.out_dtype).name},
                        {"use_fast_accum", c.use_fast_accum},
                        {"deterministic", o.deterministic},
                        {"algorithm", o.algorithm},
                        {"dist", c.dist},
                        {"seed", c.seed},
                        {"bias", nullptr}};
    // A call's own workspace and SM-count target, where they differ from the set's.
    if (workspace != options.workspace_bytes) r["workspace_bytes"] = workspace;
    if (c.sm_count_target > 0 && c.sm_count_target != options.sm_count_target)
      r["sm_count_target"] = c.sm_count_target;
    if (c.rowwise) {
      tensors.push_back({"scale_rows", "F32", {c.m, 1}, bytes_of(c.scale_a)});
      tensors.push_back({"scale_cols", "F32", {1, c.n}, bytes_of(c.scale_b)});
      r["scale_a"] = "scale_rows";
      r["scale_b"] = "scale_cols";
    } else {
      r["scale_a"] = c.scale_a_value.value_or(decode(Format::f32, c.scale_a[0]).to_double());
      r["scale_b"] = c.scale_b_value.value_or(decode(Format::f32, c.scale_b[0]).to_double());
    }
    if (c.bias_dtype) {
      tensors.push_back({"bias", dtype(*c.bias_dtype), {c.n}, c.bias});
      r["bias"] = "bias";
    }
    if (auto ok = write_safetensors(options.out_dir / file, tensors); !ok) return ok.error();
    auto hash = sha256_file(options.out_dir / file);
    if (!hash) return hash.error();
    manifest["files"][file] = *hash;
    manifest["recordings"].push_back(r);
  }
  const std::string text = manifest.dump(1) + "\n";
  if (auto ok = write_file_atomically(options.out_dir / "manifest.json", text); !ok)
    return ok.error();
  return summary;
}

}  // namespace mmaemu

#else  // built without the CUDA toolkit's headers

namespace mmaemu {

Result<RecordSummary> record_truth_set(const RecordOptions&, std::vector<RecordCall>,
                                       const std::function<void(const std::string&)>&) {
  return Error(Errc::unsupported,
               "this mmaemu was built without the CUDA toolkit's headers: record is unavailable");
}

}  // namespace mmaemu

#endif

namespace mmaemu {

std::optional<int64_t> AlgorithmChoice::attribute(const std::string& name) const {
  auto it = std::find_if(attributes.begin(), attributes.end(),
                         [&](const auto& a) { return a.first == name; });
  if (it == attributes.end()) return std::nullopt;
  return it->second;
}

}  // namespace mmaemu
