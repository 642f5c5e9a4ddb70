// The call generator: every random torch._scaled_mm call the tools make, in one module
// (lib/src/calls/, one draw per file). Three recipes, each pinned by the seeds of committed logs:
//   grid_call                 `mmaemu record`'s grid: calibration-like scales, a bias of the
//   output's type random_live_calls         `selftest --live`: random shapes where cuBLASLt splits
//   K and elsewhere,
//                             every configuration torch accepts
//   random_adversarial_call   `conform` (ConformanceCalls) and the fast path's test: odd shapes,
//                             NaN/Inf codes, overflowing scales, every output dtype (more than
//                             torch accepts)
// Operands of the first two (and of `bench` and `sweep`) come from draw_operands: a call's
// distribution and seed name its codes, the convention every recorded truth set follows.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mmaemu/error.hpp"
#include "mmaemu/format.hpp"
#include "mmaemu/preset.hpp"
#include "mmaemu/scaled_mm.hpp"

namespace mmaemu {

// A generated or recorded call: the owning call, and what a truth set's manifest says of it.
struct RecordCall : OwnedScaledMmCall {
  std::string id;
  std::optional<double> scale_a_value, scale_b_value;  // as the manifest writes tensorwise scales
  std::string dist;
  uint64_t seed = 0;
  // CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET: the heuristic chooses as for a GPU with this many SMs
  // (an H100 PCIe's 114 on an H200, say); 0 leaves the attribute unset (the GPU's own count).
  int sm_count_target = 0;
  // cuBLASLt's workspace for this call; none: RecordOptions::workspace_bytes.
  std::optional<int64_t> workspace_bytes;
};

// The input distributions: normal (N(0,1) rounded to nearest), wide (every finite code equally
// likely), cancel (normal, each odd element the negation of the one before), small (the bottom
// binades and subnormals), special (normal with NaN/Inf/zero/extreme codes).
enum class CallDistribution { normal, wide, small, cancel, special };
inline constexpr std::string_view kCallDistributionNames[] = {"normal", "wide", "small", "cancel",
                                                              "special"};
std::string_view distribution_name(CallDistribution d);
std::optional<CallDistribution> distribution_from_name(std::string_view name);

// FP8 codes of `format` drawn from a named distribution and seed.
Result<std::vector<uint8_t>> draw_fp8(Format format, const std::string& distribution, size_t count,
                                      uint64_t seed);

// Each call's operands drawn from its `dist` and `seed`: a (m x k) from seed x 2, b (n x k) from
// seed x 2 + 1; calls spread over `threads` (<= 0: every core), the codes the same at any count.
Result<void> draw_operands(std::span<RecordCall> calls, int threads);

// A scale as a calibration gives one: 2^e x (1 + i/8), e in [min_exp, max_exp], as f32 bits.
uint32_t draw_calibrated_scale(std::mt19937_64& rng, int min_exp, int max_exp);

// n bias values of `format` (2 bytes each), N(0,1) rounded to nearest.
std::vector<uint8_t> draw_normal_bias(std::mt19937_64& rng, Format format, int64_t n);

// One call of `mmaemu record`'s grid; its scales and bias drawn from seed x 7919 + index, its
// operands left empty (one draw per shape, pair and distribution serves the grid's other axes).
struct GridCallSpec {
  int64_t m = 0, n = 0, k = 0;
  std::string pair;  // as --pairs names it, e4m3xe5m2
  Format a_dtype = Format::f8_e4m3, b_dtype = Format::f8_e4m3;
  std::string dist, out_name;
  Format out_dtype = Format::bf16;
  std::string scale_mode;  // one, tensorwise or rowwise
  bool bias = false;       // a bias of the output's dtype
  bool fast = false;
  uint64_t seed = 0;
  size_t index = 0;
};
RecordCall grid_call(const GridCallSpec& spec);

// The random calls `selftest --live` draws: the three operand pairs, every output dtype, fast
// accumulation, tensorwise and rowwise scales, biases, the given workspaces; half of the shapes
// from where cuBLASLt splits K (small m and n, large k), the rest anywhere; M any, N and K
// multiples of 16, off any grid. The same calls for the same seed, whatever the threads.
Result<std::vector<RecordCall>> random_live_calls(int count, uint64_t seed,
                                                  const std::vector<int64_t>& workspaces,
                                                  int threads);

// The shapes an adversarial call draws from: odd sizes, K not a multiple of the step.
struct AdversarialShapes {
  std::vector<int64_t> m = {1, 3, 16, 17}, n = {1, 5, 16},
                       k = {1, 7, 31, 32, 33, 100, 128, 129, 300, 513};
};

// Random and adversarial calls for conformance: every distribution and worse (NaN/Inf,
// subnormals, overflowing scales), tensorwise and rowwise scales, bias, every output dtype.
OwnedScaledMmCall random_adversarial_call(std::mt19937& rng, CallDistribution dist,
                                          const AdversarialShapes& shapes = {});

// One call `conform` checks: an adversarial call, the FP8 step preset it runs under and the split
// count forced on it.
struct ConformanceCall {
  CallDistribution distribution = CallDistribution::normal;
  int trial = 0;  // its index within the distribution
  OwnedScaledMmCall call;
  const Preset* preset = nullptr;
  int split_k = 1;
};

// The calls `conform` checks for a seed, one at a time (a run of 1000 calls would hold about a
// gigabyte at once): for each distribution in kCallDistributionNames' order,
// `calls_per_distribution` adversarial calls over the unit test's odd shapes and larger ones that
// fill more of a GPU, each FP8 step preset in turn, one slice half the time, else 2 to 5.
class ConformanceCalls {
 public:
  ConformanceCalls(uint64_t seed, int calls_per_distribution);
  std::optional<ConformanceCall> next();
  const std::vector<const Preset*>& presets() const { return presets_; }

 private:
  std::mt19937 rng_;
  int calls_per_distribution_;
  size_t distribution_ = 0;
  int trial_ = 0;
  std::vector<const Preset*> presets_;
  AdversarialShapes shapes_;
};

}  // namespace mmaemu
