#include "mmaemu/error.hpp"

namespace mmaemu {

const char* errc_name(Errc code) {
  switch (code) {
    case Errc::invalid_argument:
      return "invalid_argument";
    case Errc::io:
      return "io";
    case Errc::malformed:
      return "malformed";
    case Errc::hash_mismatch:
      return "hash_mismatch";
    case Errc::unsupported:
      return "unsupported";
    case Errc::not_found:
      return "not_found";
    case Errc::device_unavailable:
      return "device_unavailable";
    case Errc::internal:
      return "internal";
  }
  return "unknown";
}

}  // namespace mmaemu
