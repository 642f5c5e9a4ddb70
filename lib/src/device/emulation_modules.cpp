// The emulation kernel modules as data, and what each covers: plain CPU code (no CUDA header).
#include "mmaemu/tools/emulation_modules.hpp"

#include <algorithm>
#include <vector>

#include "common/float_terms.h"
#include "common/h4_tiling.h"
#include "mmaemu/preset.hpp"

namespace mmaemu {
namespace {

// Whether the plan's step is exactly the Hopper wgmma FP8 step the probes matched (a preset that
// only carries its name, say a what-if with one parameter moved, is not).
bool is_wgmma_fp8_step(const Preset& p) {
  const Preset* w = find_preset("hopper_fp8_wgmma_k32");
  const StepResult &a = p.f32_result, &b = w->f32_result;
  return p.terms_per_step == w->terms_per_step && p.product_alignment == w->product_alignment &&
         p.alignment_fraction_bits == w->alignment_fraction_bits &&
         p.shifted_out == w->shifted_out && p.accumulator_entry == w->accumulator_entry &&
         p.flush_subnormal_inputs == w->flush_subnormal_inputs && a.format == b.format &&
         a.fraction_bits == b.fraction_bits && a.rounding == b.rounding &&
         a.exponent_floor == b.exponent_floor;
}

bool report(std::string reason, std::string* why) {
  if (why) *why = reason;
  return reason.empty();
}

// v1: the fast CPU path's arithmetic, on any GPU, for every preset it takes with the library's
// usual epilogue.
bool v1_covers(const Plan& plan, const ScaledMmCall&, int, int, std::string* why) {
  std::string reason;
  if (!fast_path_supports(plan, &reason)) {
  } else if (plan.algorithm.fused_bias || !plan.algorithm.fold_tensorwise_scales) {
    reason = "an epilogue other than scale-then-bias with folded tensorwise scales";
  } else if (plan.algorithm.accumulation == Accumulation::promoted &&
             plan.algorithm.promotion_interval <= 0) {
    reason = "no promotion interval";
  }
  return report(reason, why);
}

bool v4_covers(const Plan& plan, const ScaledMmCall& call, int major, int minor, std::string* why) {
  std::string reason;
  if (!v1_covers(plan, call, major, minor, &reason)) {
  } else if (plan.preset->terms_per_step > 64) {
    reason = "v4 holds steps of up to 64 terms, not " + std::to_string(plan.preset->terms_per_step);
  }
  return report(reason, why);
}

bool v9_covers(const Plan& plan, const ScaledMmCall& call, int major, int minor, std::string* why) {
  std::string reason;
  if (!v4_covers(plan, call, major, minor, &reason)) {
  } else if (!float_sum_fits(plan.preset->alignment_fraction_bits, plan.preset->terms_per_step)) {
    reason = "v9 makes and sums a step's terms in FP32: " + plan.preset->name + "'s " +
             std::to_string(plan.preset->terms_per_step) + " terms in a " +
             std::to_string(plan.preset->alignment_fraction_bits) +
             "-bit window do not fit its 24 bits (v4 takes it)";
  }
  return report(reason, why);
}

bool h1_covers(const Plan& plan, const ScaledMmCall& call, int major, int minor, std::string* why) {
  std::string reason;
  if (!v1_covers(plan, call, major, minor, &reason)) {
  } else if (!is_wgmma_fp8_step(*plan.preset)) {
    reason = "h1 and h4 issue wgmma, whose step is hopper_fp8_wgmma_k32's, not " +
             plan.preset->name + "'s";
  } else if (major != 9 || minor != 0) {
    reason =
        "h1 needs an sm_90 GPU (wgmma), not sm_" + std::to_string(major) + std::to_string(minor);
  } else if ((plan.algorithm.accumulation == Accumulation::promoted &&
              plan.algorithm.promotion_interval % 32 != 0) ||
             plan.algorithm.split_k_grain % 32 != 0) {
    reason = "promotion blocks or split-K grains that are not whole 32-element steps";
  }
  return report(reason, why);
}

bool h4_covers(const Plan& plan, const ScaledMmCall& call, int major, int minor, std::string* why) {
  std::string reason;
  if (!h1_covers(plan, call, major, minor, &reason)) {
  } else if (plan.split_k > kH4MaxSplits) {
    reason = "h4 computes up to " + std::to_string(kH4MaxSplits) + " split-K slices, not " +
             std::to_string(plan.split_k) + " (h1 takes any count)";
  } else if (plan.split_k > 1 && plan.algorithm.split_k_grain % kH4SlabK != 0) {
    reason = "h4's split-K slices start at its " + std::to_string(kH4SlabK) +
             "-element slabs: a grain of " + std::to_string(plan.algorithm.split_k_grain) +
             " is not a multiple (h1 takes it)";
  } else if (call.k % 16 != 0) {
    reason = "h4 copies 16-byte rows: K = " + std::to_string(call.k) +
             " is not a multiple of 16 (h1 takes it)";
  } else if (plan.algorithm.accumulation == Accumulation::promoted &&
             plan.algorithm.promotion_interval % kH4SlabK != 0) {
    reason = "h4 promotes at its " + std::to_string(kH4SlabK) +
             "-element slabs: a promotion interval of " +
             std::to_string(plan.algorithm.promotion_interval) + " is not a multiple (h1 takes it)";
  }
  return report(reason, why);
}

// v1: one thread per element; v4 and v9: 256 threads per 64 x 64 tile; h1: one warpgroup per
// 64 x 64 tile; h4: two warpgroups per 128 x 128 tile (one per 64 x 128 where the call has few
// tiles; the launcher sizes those), its ring in dynamic shared memory.
constexpr EmulationModule kModules[] = {
    {"v1", "cuda-v1", Backend::cuda_v1, "v1_scaled_mm.cu",
     "the fast path's arithmetic, one thread per element, any GPU", false, 128,
     LaunchShape::per_element, 0, v1_covers, 0},
    {"v4", "cuda-v4", Backend::cuda_v4, "v4_scaled_mm.cu",
     "v1's arithmetic tiled (64 x 64 per block, 4 x 4 per thread), any GPU", false, 256,
     LaunchShape::tiles_64, 0, v4_covers, 4},
    {"h1", "cuda-h1", Backend::cuda_h1, "h1_scaled_mm.cu",
     "the real wgmma step on Hopper (sm_90), hopper_fp8_wgmma_k32 only", true, 128,
     LaunchShape::tiles_64, 0, h1_covers, 2},
    // First where it covers the call: TMA-fed, split K as a cluster per tile; conform, replays and
    // bench all bit-equal on an H100 (validation_logs/2026-12-07/h4-tma-h100/README.md).
    {"h4", "cuda-h4", Backend::cuda_h4, "h4_scaled_mm.cu",
     "h1 pipelined at 128 x 128 tiles (64 x 128 for few tiles), TMA-fed; up to 8 split-K "
     "slices, K % 16 == 0",
     true, 256, LaunchShape::tiles_128_linear, static_cast<unsigned>(kH4DynamicSharedBytes),
     h4_covers, 1, true},
    // Before v4 where it covers the call: equal to the oracle in conform on a GPU and 4.1-4.3x
    // v4's speed there (validation_logs/2026-12-07/v9-pipelined-h100/README.md).
    {"v9", "cuda-v9", Backend::cuda_v9, "v9_scaled_mm.cu",
     "v4's step with its terms in FP32, register-blocked, any GPU", false, 256,
     LaunchShape::tiles_64, 0, v9_covers, 3},
};

}  // namespace

std::span<const EmulationModule> emulation_modules() {
  return kModules;
}

const EmulationModule* emulation_module_named(std::string_view name) {
  for (const auto& m : kModules)
    if (m.name == name) return &m;
  return nullptr;
}

const EmulationModule* emulation_module_for(Backend backend) {
  for (const auto& m : kModules)
    if (m.backend == backend) return &m;
  return nullptr;
}

namespace {

// Whether module m runs the call, its operands at `operand_addresses` (see the header); if not,
// why.
bool runs(const EmulationModule& m, const Plan& plan, const ScaledMmCall& call, int major,
          int minor, uint64_t operand_addresses, std::string* why) {
  if (!m.covers(plan, call, major, minor, why)) return false;
  if (m.tensor_maps && operand_addresses % 16 != 0) {
    *why = std::string(m.name) +
           " reads a and b through tensor maps, which need 16-byte aligned addresses";
    return false;
  }
  return true;
}

}  // namespace

Result<const EmulationModule*> choose_emulation_module(const Plan& plan, const ScaledMmCall& call,
                                                       Backend backend, int major, int minor,
                                                       uint64_t operand_addresses) {
  std::string why;
  if (const EmulationModule* named = emulation_module_for(backend)) {
    if (runs(*named, plan, call, major, minor, operand_addresses, &why)) return named;
    return Error(Errc::unsupported, std::string(named->name) + " does not cover the call: " + why);
  }
  if (backend != Backend::cuda)
    return Error(Errc::invalid_argument,
                 std::string(to_string(backend)) + " is not a CUDA backend");
  // The fastest first, by auto_rank (v1 is v4's plain form, kept as the reference: rank 0).
  std::vector<const EmulationModule*> ranked;
  for (const auto& m : kModules)
    if (m.auto_rank != 0) ranked.push_back(&m);
  std::sort(ranked.begin(), ranked.end(), [](const EmulationModule* a, const EmulationModule* b) {
    return a->auto_rank < b->auto_rank;
  });
  std::string reasons;
  for (const EmulationModule* m : ranked) {
    if (runs(*m, plan, call, major, minor, operand_addresses, &why)) return m;
    reasons += (reasons.empty() ? "" : "; ") + why;
  }
  return Error(Errc::unsupported, "no CUDA kernel module covers the call: " + reasons);
}

}  // namespace mmaemu
