#include "mmaemu/tools/native_scaled_mm.hpp"

#ifdef MMAEMU_HAVE_CUDA_HEADERS

#include <map>
#include <memory>
#include <mutex>

#include "device/torch_scaled_mm.hpp"

namespace mmaemu {

Result<NativeTiming> time_native_scaled_mm(const RecordCall& call, const std::string& library,
                                           int64_t workspace_bytes, int runs, int device) {
  static std::mutex lock;
  static std::map<std::pair<std::string, int>, std::unique_ptr<device::LtSession>> sessions;
  std::lock_guard<std::mutex> guard(lock);
  auto& session = sessions[{library, device}];
  if (!session) {
    auto opened = device::open_lt_session(library, device);
    if (!opened) return opened.error();
    session = std::move(opened).value();
  }
  session->gpu.api.set_current(session->gpu.context);
  auto run = device::run_native(*session, call, workspace_bytes, runs);
  if (!run) return run.error();
  return NativeTiming{std::move(run->out),     run->deterministic, std::move(run->choice),
                      std::move(run->seconds), session->gpu.name,  session->version};
}

}  // namespace mmaemu

#else

namespace mmaemu {

Result<NativeTiming> time_native_scaled_mm(const RecordCall&, const std::string&, int64_t, int,
                                           int) {
  return Error(Errc::unsupported,
               "this mmaemu was built without the CUDA toolkit's headers: cuBLASLt is unavailable");
}

}  // namespace mmaemu

#endif
