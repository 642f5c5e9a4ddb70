// What a library does around the tensor-core step to form C = A * B: when the step chain is
// promoted into an FP32 accumulator, how split-K slices are cut and reduced, and the order of the
// epilogue's scale multiplies.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mmaemu {

enum class Accumulation : uint8_t {
  single_chain,  // "fast accumulation": one chain of steps over the whole K (or K slice)
  promoted,      // the chain restarts from zero every promotion_interval elements of K and its
                 // value is added into an FP32 accumulator (round-to-nearest-even)
};

enum class RowwiseScaleOrder : uint8_t {
  column_first,  // fl32(fl32(acc * scale_b[j]) * scale_a[i])  (cuBLASLt "ovscale" kernels)
  row_first,     // fl32(fl32(acc * scale_a[i]) * scale_b[j])  (CUTLASS, not transposed)
};

struct Algorithm {
  std::string name;
  std::string description;
  Accumulation accumulation = Accumulation::single_chain;
  int promotion_interval = 128;  // K elements per promoted block
  int split_k_grain = 128;       // slices are whole multiples of this many K elements
  RowwiseScaleOrder rowwise_order = RowwiseScaleOrder::column_first;
  bool fold_tensorwise_scales = true;  // alpha = fl32(scale_a * scale_b), then one multiply
  bool fused_bias = false;             // the last scale multiply and the bias add as one FMA
};

const std::vector<Algorithm>& builtin_algorithms();
const Algorithm* find_algorithm(std::string_view name);
std::string_view to_string(Accumulation v);
std::string_view to_string(RowwiseScaleOrder v);

// The K range [begin, end) of split-K slice `slice` of `splits`: slices of
// ceil(ceil(K / grain) / splits) * grain elements, the last one shorter (or empty). When K = 16
// mod grain and the last slice is empty, the slice before it ends at K - 16: the H200's cuBLASLt
// never adds those 16 elements (kernels/common/k_slices.h, where the rule is written once).
struct KRange {
  int64_t begin, end;
};
KRange split_k_slice(int64_t k, int splits, int grain, int slice);

}  // namespace mmaemu
