// Times the h4 kernel with one part left out at a time (the copies into the ring, the wgmma
// steps, the output stores; MMAEMU_H4_COPIES / _STEPS / _STORES = 0 at build time), so that a
// device run names what bounds it (issue 15). The bits of a build with a part left out mean
// nothing; the full build's outputs are hashed so that a run can check it matches the library.
// Built by build.sh with nvcc and the CUDA runtime, one executable per variant; prints one JSON
// line per shape: {"variant","m","n","k","ms","mac_per_s","hash"}.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <vector>

#include "../../../kernels/common/h4_tensor_maps.h"
#include "../../../kernels/h4/h4_scaled_mm.cu"

#ifndef VARIANT
#define VARIANT "full"
#endif
// 1: the run asks for one chain over all of K (no promotion blocks, one accumulator): what the
// second accumulator and the promotion adds cost (its bits are another algorithm's).
#ifndef ANATOMY_SINGLE_CHAIN
#define ANATOMY_SINGLE_CHAIN 0
#endif

#define CHECK(x)                                                                             \
  do {                                                                                       \
    cudaError_t e = (x);                                                                     \
    if (e != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

// Finite e4m3 codes from a fixed generator (0x7F and 0xFF are NaN: mapped to 0x7E / 0xFE).
static void fill(std::vector<uint8_t>& v, unsigned seed) {
  unsigned long long x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto& c : v) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    c = static_cast<uint8_t>(x >> 24);
    if ((c & 0x7F) == 0x7F) c ^= 1;
  }
}

static void run(long long m, long long n, long long k, int repeats) {
  std::vector<uint8_t> a(m * k), b(n * k);
  fill(a, 1), fill(b, 2);
  uint8_t *da, *db, *out, *fallback, *rows_a, *rows_b;
  unsigned* flagged;
  CHECK(cudaMalloc(&da, a.size()));
  CHECK(cudaMalloc(&db, b.size()));
  CHECK(cudaMalloc(&out, m * n * 2));
  CHECK(cudaMalloc(&fallback, m * n));
  CHECK(cudaMalloc(&rows_a, m));
  CHECK(cudaMalloc(&rows_b, n));
  CHECK(cudaMalloc(&flagged, 4));
  CHECK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(rows_a, 0, m));
  CHECK(cudaMemset(rows_b, 0, n));
  CHECK(cudaMemset(flagged, 0, 4));
  CHECK(cudaMemset(out, 0, m * n * 2));
  uint32_t* scale;  // tensorwise 1.0 for both operands: the kernel reads the words
  const uint32_t one = 0x3F800000u;
  CHECK(cudaMalloc(&scale, 4));
  CHECK(cudaMemcpy(scale, &one, 4, cudaMemcpyHostToDevice));
  ScaledMmParams p{};
  p.scale_a = p.scale_b = scale;
  p.a = da, p.b = db, p.out = out, p.fallback = fallback, p.flagged = flagged;
  p.special_rows_a = rows_a, p.special_rows_b = rows_b;
  p.m = m, p.n = n, p.k = k, p.out_format = 1;
  p.single_chain = ANATOMY_SINGLE_CHAIN, p.promotion_interval = 128, p.split_k = 1,
  p.split_grain = 128;
  const int shared_bytes = kH4DynamicSharedBytes;
  // The library's launcher's tensor maps (common/h4_tensor_maps.h).
  H4TensorMaps maps;
  for (auto [map, base, rows, box_rows] : {std::tuple{&maps.a, (void*)da, m, kH4TileM},
                                           std::tuple{&maps.b, (void*)db, n, kH4BoxRowsB}}) {
    CUresult r = encode_h4_tensor_map(cuTensorMapEncodeTiled, reinterpret_cast<CUtensorMap*>(map),
                                      base, static_cast<unsigned long long>(k),
                                      static_cast<unsigned long long>(rows),
                                      static_cast<unsigned>(box_rows));
    if (r != CUDA_SUCCESS) {
      std::fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", static_cast<int>(r));
      std::exit(1);
    }
  }
  CHECK(cudaFuncSetAttribute(h4_scaled_mm_e4m3_e4m3, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             shared_bytes));
  const unsigned tiles = static_cast<unsigned>(h4_grid_blocks(m, n));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int r = 0; r <= repeats; ++r) {  // the first run warms up
    CHECK(cudaEventRecord(start));
    h4_scaled_mm_e4m3_e4m3<<<tiles, 256, shared_bytes>>>(p, maps);
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaGetLastError());
    float t;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    if (r > 0) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  const float median = ms[ms.size() / 2];
  std::vector<uint8_t> host(m * n * 2);
  CHECK(cudaMemcpy(host.data(), out, host.size(), cudaMemcpyDeviceToHost));
  unsigned long long hash = 1469598103934665603ull;  // FNV-1a over the output bytes
  for (uint8_t c : host) hash = (hash ^ c) * 1099511628211ull;
  std::printf(
      "{\"variant\": \"%s\", \"m\": %lld, \"n\": %lld, \"k\": %lld, \"ms\": %.4f, "
      "\"mac_per_s\": %.4g, \"hash\": \"%016llx\"}\n",
      VARIANT, m, n, k, median, static_cast<double>(m) * n * k / (median * 1e-3), hash);
  for (void* q : {(void*)da, (void*)db, (void*)out, (void*)fallback, (void*)rows_a, (void*)rows_b,
                  (void*)flagged})
    CHECK(cudaFree(q));
}

int main(int argc, char** argv) {
  // Shapes as MxNxK arguments; by default the issue's two square shapes, a long K, and a ragged
  // shape (partial tiles, rows not 16-byte multiples) whose hash checks the candidates' edges, and
  // one with an odd number of tile rows (a cluster of two then has a block past the last row).
  std::vector<const char*> shapes(argv + 1, argv + argc);
  if (shapes.empty())
    shapes = {"4096x4096x4096", "8192x8192x8192", "4096x4096x16384", "1000x3001x2000",
              "640x3001x2000"};
  for (const char* s : shapes) {
    long long m, n, k;
    if (std::sscanf(s, "%lldx%lldx%lld", &m, &n, &k) != 3 || k % 16 != 0) {
      std::fprintf(stderr, "bad shape %s (MxNxK, K a multiple of 16)\n", s);
      return 2;
    }
    run(m, n, k, 5);
  }
}
