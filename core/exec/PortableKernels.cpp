// The one registry of ptescope's CPU kernels: each family lives in
// core/exec/kernels/ and adds its own operators here.
#include "exec/Kernels.h"
#include "exec/kernels/KernelSupport.h"

namespace ptescope::exec {

void addPortableKernels(KernelRegistry& registry) {
  kernels::addElementwiseKernels(registry);
  kernels::addReductionKernels(registry);
  kernels::addLinearKernels(registry);
  kernels::addShapeKernels(registry);
  kernels::addIndexingKernels(registry);
  kernels::addCreationKernels(registry);
  kernels::addQuantizedKernels(registry);
  kernels::addPrimKernels(registry);
  kernels::addCustomKernels(registry);
  kernels::addCortexMKernels(registry);
}

}  // namespace ptescope::exec
