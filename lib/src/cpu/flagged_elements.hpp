// The host's share of a GPU run: the output elements a kernel flagged (rows holding NaN/Inf codes,
// results the integer step or the output conversion leaves to the exact codec), computed exactly.
#pragma once

#include <cstdint>
#include <span>

#include "mmaemu/scaled_mm.hpp"

namespace mmaemu {

// out[i * n + j] for every flags[i * n + j] != 0, on the fast CPU path where it covers the plan
// (it handles NaNs and infinities step by step), else with the oracle; rows spread over threads.
// The call has passed validate_planned_call.
void finish_flagged_elements(const Plan& plan, const ScaledMmCall& call,
                             std::span<const uint8_t> flags, std::span<uint8_t> out, int threads);

}  // namespace mmaemu
