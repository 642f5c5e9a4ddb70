// mmaemu gemm: one torch._scaled_mm call from a safetensors file, written to a safetensors file.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <optional>

#include <charconv>
#include <iostream>
#include <nlohmann/json.hpp>

#include "backend_option.hpp"
#include "command.hpp"
#include "mmaemu/emulate.hpp"
#include "mmaemu/exact.hpp"
#include "mmaemu/profile.hpp"
#include "mmaemu/safetensors.hpp"
#include "mmaemu/scaled_mm.hpp"
#include "mmaemu/version.hpp"

namespace mmaemu::cli {
namespace {

struct GemmOptions {
  std::string input, output, a = "a", b = "b", scale_a = "1", scale_b = "1", bias;
  std::string profile = "hopper", out_dtype = "bf16", backend = "cpu", gpu;
  bool fast_accum = false, json = false, strict_envelope = false;
  int64_t n_full = 0;
  std::optional<int> splits;  // unset: the profile decides
  int sm_count = 0;
  int jobs = 0;            // 0: every core
  int64_t workspace = -1;  // -1: the profile's (torch's 1 MiB)
  int64_t max_output = 0;  // bytes; 0: the machine's memory (validate's bound)
};

Error bad_input(const std::string& file, const std::string& what) {
  return Error(Errc::invalid_argument, file + ": " + what);
}

Result<const TensorInfo*> fp8_matrix(const SafetensorsFile& f, const std::string& name) {
  const TensorInfo* t = f.find(name);
  if (!t) return bad_input(f.origin(), "no tensor named '" + name + "'");
  if (t->dtype != "F8_E4M3" && t->dtype != "F8_E5M2")
    return bad_input(f.origin(), "tensor '" + name + "' has dtype " + t->dtype +
                                     ", expected F8_E4M3 or F8_E5M2");
  if (t->shape.size() != 2)
    return bad_input(f.origin(), "tensor '" + name + "' must be 2-D, it has " +
                                     std::to_string(t->shape.size()) + " dimensions");
  return t;
}

// A scale is a number (tensorwise) or the name of an f32 tensor in the input file (rowwise).
Result<Scales> read_scale(const SafetensorsFile& f, const std::string& text, const char* option,
                          int64_t expected_count) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc() && end == text.data() + text.size())
    return Scales::tensorwise(encode(Format::f32, ExactValue::from_double(value)));
  const TensorInfo* t = f.find(text);
  if (!t)
    return bad_input(f.origin(),
                     std::string(option) + " '" + text + "' is neither a number nor a tensor");
  if (t->dtype != "F32")
    return bad_input(f.origin(), std::string(option) + " tensor '" + text + "' must be F32");
  if (t->element_count() != expected_count && t->element_count() != 1)
    return bad_input(f.origin(), std::string(option) + " tensor '" + text + "' holds " +
                                     std::to_string(t->element_count()) +
                                     " values, expected 1 or " + std::to_string(expected_count));
  Scales s;
  s.per_row = t->element_count() == expected_count && t->shape.size() == 2;
  const auto data = f.data(*t);
  for (int64_t i = 0; i < t->element_count(); ++i)
    s.f32_bits.push_back(load_bits(Format::f32, data, i));
  return s;
}

// The call the input file describes; its spans point into `file`.
Result<ScaledMmCall> call_from_file(const GemmOptions& o, const SafetensorsFile& file) {
  auto ta = fp8_matrix(file, o.a);
  if (!ta) return ta.error();
  auto tb = fp8_matrix(file, o.b);
  if (!tb) return tb.error();
  const TensorInfo& a = **ta;
  const TensorInfo& b = **tb;
  if (a.shape[1] != b.shape[1])
    return bad_input(
        o.input,
        fmt::format("a is {} x {} and b is {} x {}: K differs ({} vs {}); b is "
                    "given as N x K (mat2 transposed)",
                    a.shape[0], a.shape[1], b.shape[0], b.shape[1], a.shape[1], b.shape[1]));
  const auto out_dtype = format_from_name(o.out_dtype);
  if (!out_dtype)
    return Error(Errc::invalid_argument, "--out-dtype '" + o.out_dtype + "' is not a dtype");
  ScaledMmCall call;
  call.m = a.shape[0];
  call.n = b.shape[0];
  call.k = a.shape[1];
  call.n_full = o.n_full;
  call.a_dtype = *format_from_safetensors_dtype(a.dtype);
  call.b_dtype = *format_from_safetensors_dtype(b.dtype);
  call.a = file.data(a);
  call.b = file.data(b);
  auto sa = read_scale(file, o.scale_a, "--scale-a", call.m);
  if (!sa) return sa.error();
  auto sb = read_scale(file, o.scale_b, "--scale-b", call.n);
  if (!sb) return sb.error();
  call.scale_a = *sa;
  call.scale_b = *sb;
  if (!o.bias.empty()) {
    const TensorInfo* t = file.find(o.bias);
    if (!t) return bad_input(o.input, "no bias tensor named '" + o.bias + "'");
    if ((t->dtype != "BF16" && t->dtype != "F16") || t->element_count() != call.n)
      return bad_input(o.input, "bias '" + o.bias + "' must be BF16 or F16 with N = " +
                                    std::to_string(call.n) + " elements");
    call.bias = Bias{t->dtype == "F16" ? Format::f16 : Format::bf16, file.data(*t)};
  }
  call.out_dtype = *out_dtype;
  call.use_fast_accum = o.fast_accum;
  if (auto ok = validate(call); !ok) return bad_input(o.input, ok.error().message());
  // Checked before anything the size of the output is allocated; validate() has checked that
  // m x n x bytes does not overflow.
  if (const int64_t bytes = call.m * call.n * describe(call.out_dtype).storage_bytes();
      o.max_output > 0 && bytes > o.max_output)
    return Error(Errc::invalid_argument,
                 fmt::format("an output of {} x {} {} takes {} bytes, more than --max-output {}",
                             call.m, call.n, describe(call.out_dtype).name, bytes, o.max_output));
  return call;
}

// The profile's plan for the call, said on the log; outside the envelope a warning, or an error
// with --strict-envelope.
Result<Plan> plan_call(const GemmOptions& o, const ScaledMmCall& call) {
  auto profile = load_profile(o.profile);
  if (!profile) return profile.error();
  ResolveOptions resolve;
  resolve.known_split_k = o.splits;
  if (o.workspace >= 0) resolve.workspace_bytes = o.workspace;
  if (o.sm_count > 0) resolve.sm_count = o.sm_count;
  resolve.heuristic_gpu = o.gpu;
  auto plan = profile->resolve(call, resolve);
  if (!plan) return plan.error();
  if (!plan->envelope.inside) {
    if (o.strict_envelope)
      return Error(Errc::unsupported, "outside the envelope: " + plan->envelope.reason);
    spdlog::warn("outside the validated envelope: {}", plan->envelope.reason);
  }
  spdlog::debug("{}x{}x{} with profile {}: preset {}, algorithm {}, split-K {} ({})", call.m,
                call.n, call.k, plan->profile, plan->preset->name, plan->algorithm.name,
                plan->split_k, plan->split_k_source);
  if (!plan->heuristic_device.empty())
    spdlog::debug("split-K count {} as cuBLASLt chooses it on {}", plan->split_k,
                  plan->heuristic_device);
  return plan;
}

// The output file (the plan in its metadata), and with --json the same on stdout.
Result<void> write_output(const GemmOptions& o, const ScaledMmCall& call, const Plan& plan,
                          std::span<const uint8_t> out, int threads) {
  const std::map<std::string, std::string> metadata = {
      {"mmaemu_version", kVersion},
      {"profile", plan.profile},
      {"preset", plan.preset->name},
      {"algorithm", plan.algorithm.name},
      {"split_k", std::to_string(plan.split_k)},
      {"split_k_source", plan.split_k_source},
      {"heuristic_device", plan.heuristic_device},
      {"inside_envelope", plan.envelope.inside ? "true" : "false"}};
  const TensorToWrite tensor{
      "out", std::string(describe(call.out_dtype).safetensors_dtype), {call.m, call.n}, out};
  if (auto ok = write_safetensors(o.output, std::span(&tensor, 1), metadata); !ok)
    return ok.error();
  if (o.json) {
    nlohmann::json j = metadata;  // typed below where the metadata holds text
    j["split_k"] = plan.split_k;
    j["inside_envelope"] = plan.envelope.inside;
    j["threads"] = threads;
    j["out"] = o.output;
    j["shape"] = {call.m, call.n, call.k};
    j["envelope_reason"] = plan.envelope.reason;
    std::cout << j.dump() << "\n";
  }
  return {};
}

Result<int> run_gemm(const GemmOptions& o) {
  if (auto ok = check_output_path(o.output, {o.input}); !ok) return ok.error();
  auto file = SafetensorsFile::read(o.input);
  if (!file) return file.error();
  auto call = call_from_file(o, *file);
  if (!call) return call.error();
  auto plan = plan_call(o, *call);
  if (!plan) return plan.error();
  auto backend = open_backend(o.backend);
  if (!backend) return backend.error();
  const int threads = threads_for_jobs(o.jobs);
  auto out = emulate(*plan, *call, *backend, threads);
  if (!out) return out.error();
  if (auto ok = write_output(o, *call, *plan, *out, threads); !ok) return ok.error();
  return kExitOk;
}

}  // namespace

Runner setup_gemm(CLI::App& app) {
  auto o = std::make_shared<GemmOptions>();
  app.add_option("--in", o->input, "safetensors file holding a (M x K) and b (N x K)")->required();
  app.add_option("--out", o->output, "safetensors file to write (tensor 'out', M x N)")->required();
  app.add_option("--a", o->a, "name of the A tensor")->capture_default_str();
  app.add_option("--jobs", o->jobs, "threads of the CPU backends (default: all cores)");
  app.add_option("--b", o->b, "name of the B tensor (N x K, i.e. mat2 transposed)")
      ->capture_default_str();
  app.add_option("--scale-a", o->scale_a, "tensorwise scale, or the name of an M x 1 F32 tensor")
      ->capture_default_str();
  app.add_option("--scale-b", o->scale_b, "tensorwise scale, or the name of a 1 x N F32 tensor")
      ->capture_default_str();
  app.add_option("--bias", o->bias, "name of a BF16/F16 bias tensor of N elements");
  app.add_option("--profile", o->profile, "profile name or JSON file")->capture_default_str();
  app.add_option("--out-dtype", o->out_dtype, "bf16, f16, f32, f8_e4m3 or f8_e5m2")
      ->capture_default_str();
  app.add_flag("--fast-accum", o->fast_accum, "use_fast_accum=True");
  app.add_option("--n-full", o->n_full, "N the call ran at, when b holds only its first rows");
  app.add_option("--splits", o->splits,
                 "the split-K count the library used, where known (e.g. logged by mmaemu record)");
  app.add_option("--sm-count", o->sm_count,
                 "emulate cuBLASLt's split-K choice on a GPU with this many SMs (default: the "
                 "profile's reference "
                 "GPU; 114: an H100 PCIe)")
      ->check(CLI::Range(1, 4096));
  app.add_option(
      "--gpu", o->gpu,
      "emulate cuBLASLt's split-K choice on this GPU, as its driver names it (\"NVIDIA H100 80GB "
      "HBM3\"): it picks the profile's split-K model; one no model was swept on gets the reference "
      "model's count, outside the envelope (default: the reference GPU, the H200)");
  app.add_option("--workspace", o->workspace,
                 "cuBLASLt's workspace in bytes (default: torch's 1 MiB)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  app.add_option("--max-output", o->max_output,
                 "refuse an output larger than this many bytes, before allocating it (default and "
                 "upper bound: this machine's memory)")
      ->check(CLI::Range(int64_t{1}, INT64_MAX));
  app.add_flag("--strict-envelope", o->strict_envelope,
               "refuse calls outside the profile's envelope");
  app.add_option("--backend", o->backend, backend_help())->capture_default_str();
  app.add_flag("--json", o->json, "print a JSON summary to stdout");
  return [o] { return run_gemm(*o); };
}

}  // namespace mmaemu::cli
