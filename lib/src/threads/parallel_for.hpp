// The library's one way to spread work over threads: body(i) for every i in [0, count), worker w
// of W taking i = w, w + W, w + 2W, ... The share of each worker is fixed by i alone, so a body
// that writes only what belongs to its i gives the same bits at any thread count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace mmaemu {

// The threads a request for `threads` gets: itself, or every core for threads <= 0.
inline int thread_count(int threads) {
  return threads > 0 ? threads
                     : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// threads <= 0: every core. The calling thread is worker 0.
template <class Body>
void parallel_for(int64_t count, int threads, const Body& body) {
  if (count <= 0) return;
  threads = thread_count(threads);
  const int64_t workers = std::clamp<int64_t>(threads, 1, count);
  auto share = [&](int64_t w) {
    for (int64_t i = w; i < count; i += workers) body(i);
  };
  std::vector<std::thread> pool;
  for (int64_t w = 1; w < workers; ++w) pool.emplace_back(share, w);
  share(0);
  for (auto& t : pool) t.join();
}

}  // namespace mmaemu
