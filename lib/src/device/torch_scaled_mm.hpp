// torch._scaled_mm's cuBLASLt call, set up as torch 2.11 sets it up (CUDABlas.cpp scaled_gemm):
// operands swapped (cuBLAS computes out^T = mat2^T-op x mat1), TRANSA = T, TRANSB = N, 32F compute
// and scale type, A/B scale pointers (swapped with the operands) and scale modes, the
// fast-accumulation attribute, the bias epilogue, only MAX_WORKSPACE_BYTES as a preference, and
// the first heuristic result.
#pragma once

#ifdef MMAEMU_HAVE_CUDA_HEADERS

#include <optional>
#include <vector>

#include "device/cuda_api.hpp"
#include "mmaemu/tools/record.hpp"

namespace mmaemu::device {

// The descriptors of one call; pointers may be null when only the heuristic is asked.
class TorchScaledMm {
 public:
  struct Pointers {
    void* scale_a = nullptr;  // torch's mat1 scale
    void* scale_b = nullptr;  // torch's mat2 scale
    void* bias = nullptr;
  };
  // `handle`: a cuBLASLt handle of the session's library for this thread (null: the session's).
  TorchScaledMm(const LtSession& session, const RecordCall& call, int64_t workspace_bytes,
                Pointers p, cublasLtHandle_t handle = nullptr);
  TorchScaledMm(const TorchScaledMm&) = delete;
  TorchScaledMm& operator=(const TorchScaledMm&) = delete;
  ~TorchScaledMm();

  // The C operand's type: torch passes the bias type with a bias, f16 for FP8 outputs, else out.
  Format c_format() const { return c_format_; }
  // Asks the heuristic for one algorithm, as torch does.
  Result<AlgorithmChoice> choose();
  // Runs the chosen algorithm (choose() first); a, b are torch's mat1, mat2.
  Result<void> run(const void* a, const void* b, void* c, void* out, void* workspace);

 private:
  const LtSession& s_;
  cublasLtHandle_t handle_;
  int64_t workspace_bytes_;
  Format c_format_;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t la_ = nullptr, lb_ = nullptr, lc_ = nullptr, ld_ = nullptr;
  cublasLtMatmulPreference_t pref_ = nullptr;
  std::optional<cublasLtMatmulHeuristicResult_t> chosen_;
};

// One call run `runs` times as torch runs it (inputs on the GPU, the heuristic's first choice):
// the first run's output, whether every run gave the same bits, the choice, and each run's
// seconds (the matmul alone, launch to synchronise, host clock).
struct NativeRun {
  std::vector<uint8_t> out;
  bool deterministic = true;
  AlgorithmChoice choice;
  std::vector<double> seconds;
};
Result<NativeRun> run_native(const LtSession& session, const RecordCall& call,
                             int64_t workspace_bytes, int runs);

}  // namespace mmaemu::device

#endif
