// Large buffers on transparent huge pages: Array storage and a program's arena.
#pragma once

#include <cstddef>

namespace symx::detail {

// `bytes` of 64-byte aligned memory, released with std::free; nullptr when out of memory. A buffer
// of 4 MiB or more is 2 MiB aligned and advised onto huge pages (madvise MADV_HUGEPAGE, honoured
// when /sys/kernel/mm/transparent_hugepage/enabled is `madvise` or `always`): first touch faults
// once per 2 MiB instead of once per 4 KiB, and streaming kernels miss the TLB less.
void* allocate_aligned(std::size_t bytes);

}  // namespace symx::detail
