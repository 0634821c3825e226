// Writing a synthesized program together with its data files.
#pragma once

#include <string>
#include <vector>

#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::synth {

// Writes each of the program's external data files (Program.external_data,
// e.g. "aoti_cuda_blob.ptd") into the directory of `path`, under the file
// name of its path, then the program itself to `path`, each atomically and
// verified. A data file of that name that holds other data (another
// program's aoti_cuda_blob.ptd) is left alone: the data goes to `path` with
// the extension .ptd instead, where the reader looks first. When the program cannot be written, the data files written for
// it are removed again. Returns every path written, the program last.
Result<std::vector<std::string>> writeProgramAndData(const program::Program& program, const std::string& path);

}  // namespace ptescope::synth
