// Reading method inputs from files: NumPy .npy arrays and raw bytes.
#pragma once

#include <string>

#include "exec/Executor.h"

namespace ptescope::exec {

// A .npy file (format versions 1-3, C order, little-endian or byte-sized
// elements). Errors start with the path.
Result<HostTensor> readNpyFile(const std::string& path);
// Parses .npy bytes; `name` is used in messages.
Result<HostTensor> parseNpy(std::span<const uint8_t> bytes, const std::string& name);
// The .npy bytes of a tensor (version 1), for tests and for saving outputs.
std::vector<uint8_t> encodeNpy(const HostTensor& tensor);

// The input file for method input `position` inside `directory`: the first
// of <i>.npy, input_<i>.npy, <i>.bin, input_<i>.bin, <i>.raw, input_<i>.raw
// that exists; empty when none does.
std::string findInputFile(const std::string& directory, size_t position);

}  // namespace ptescope::exec
