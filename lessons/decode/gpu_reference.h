#pragma once
// One GPU's balance point, for the lessons that say what changes on a GPU (decode, transmla): an
// NVIDIA H100 SXM's data-sheet figures, dense BF16 tensor-core peak and HBM3 bandwidth.
namespace attn {

constexpr const char* kGpuName = "H100 SXM";
constexpr double kGpuPeakGflops = 989.4e3;     // GFLOP/s, dense BF16 (989.4 TFLOP/s)
constexpr double kGpuBandwidthGbs = 3.35e3;    // GB/s (3.35 TB/s)
constexpr double kGpuBalance = kGpuPeakGflops / kGpuBandwidthGbs;  // FLOP per byte, about 295

}  // namespace attn
