#include "mmaemu/exact.hpp"
#include "mmaemu/replay.hpp"

namespace mmaemu {
namespace {

Scales scales_from(const SafetensorsFile& file, const ScaleRef& ref) {
  // torch received a tensorwise scale as an f32 tensor: the manifest's number rounded to f32.
  if (!ref.is_tensor())
    return Scales::tensorwise(encode(Format::f32, ExactValue::from_double(*ref.value)));
  Scales s;
  s.per_row = true;
  const auto data = file.data(*file.find(ref.tensor));
  for (size_t i = 0; i < data.size() / 4; ++i)
    s.f32_bits.push_back(load_bits(Format::f32, data, i));
  return s;
}

}  // namespace

Result<LoadedCall> load_scaled_mm_call(const TruthSet& set, const Recording& r) {
  if (r.op != "scaled_mm")
    return Error(Errc::invalid_argument, r.id + ": not a scaled_mm recording");
  auto file = open_recording_file(set, r);
  if (!file) return file.error();
  LoadedCall loaded;
  loaded.file = std::make_unique<SafetensorsFile>(std::move(file).value());
  const SafetensorsFile& f = *loaded.file;
  ScaledMmCall& c = loaded.call;
  c.m = r.m;
  c.n = r.n_stored.value_or(r.n);
  c.n_full = r.n;
  c.k = r.k;
  c.a_dtype = r.a_dtype;
  c.b_dtype = r.b_dtype;
  c.a = f.data(*f.find(r.a));
  c.b = f.data(*f.find(r.b));
  c.scale_a = scales_from(f, r.scale_a);
  c.scale_b = scales_from(f, r.scale_b);
  if (r.bias) {
    const TensorInfo* t = f.find(*r.bias);
    c.bias = Bias{t->dtype == "F16" ? Format::f16 : Format::bf16, f.data(*t)};
  }
  c.out_dtype = r.out_dtype;
  c.use_fast_accum = r.use_fast_accum;
  loaded.expected = f.data(*f.find(r.out));
  if (auto ok = validate(c); !ok)
    return Error(Errc::malformed, (set.directory / r.file).string() + ": recording " + r.id + ": " +
                                      ok.error().message());
  return loaded;
}

Result<ScaledMmReplay> replay_scaled_mm(const TruthSet& set, const Recording& r,
                                        const Profile& profile, Backend backend, int threads,
                                        const ScaledMmReplayOptions& options) {
  auto loaded = load_scaled_mm_call(set, r);
  if (!loaded) return loaded.error();
  ResolveOptions resolve;
  if (options.split_k_from == SplitKFrom::recording) {
    resolve.known_split_k = r.recorded_split_k;
    resolve.known_split = kernels_show_split(r);
  }
  resolve.workspace_bytes = recorded_workspace_bytes(set, r);
  resolve.sm_count = options.sm_count ? options.sm_count : heuristic_sm_count(set, r);
  resolve.heuristic_gpu = !options.gpu.empty() ? options.gpu : r.gpu.empty() ? set.gpu : r.gpu;
  auto plan = profile.resolve(loaded->call, resolve);
  if (!plan) return plan.error();
  if (options.adjust_plan) options.adjust_plan(*plan);
  auto out = emulate(*plan, loaded->call, backend, threads);
  if (!out) return out.error();
  return ScaledMmReplay{*plan, compare_bits(r.out_dtype, loaded->expected, *out)};
}

}  // namespace mmaemu
