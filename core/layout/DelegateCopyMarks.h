// The copies delegates make inside their execute() (analysis/
// DelegateTransfers: TensorRT staging, CUDA graph replay) on a method's
// graph. They are no instructions, so they get no node: each is marked on the
// delegate's boundary edge that carries the value (the edge into the
// delegate for an input, its first edge out for an output) and listed on
// the delegate's node, or on the collapsed group that holds it.
#pragma once

#include "analysis/DelegateTransfers.h"
#include "layout/GraphModel.h"

namespace ptescope::layout {

// Fills GraphNode::inside_copies and GraphEdge::inside_copies of `model`
// (built from the method `transfers` were derived from).
void markDelegateCopies(GraphModel& model, const analysis::DelegateTransfers& transfers);

}  // namespace ptescope::layout
