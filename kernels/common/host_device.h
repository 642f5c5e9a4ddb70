// MMAEMU_HD marks the kernels' helpers that the host compiles too, so that unit tests check them
// against the library's exact code.
#pragma once

#if defined(__CUDACC__)
#define MMAEMU_HD __host__ __device__
#else
#define MMAEMU_HD
#endif
