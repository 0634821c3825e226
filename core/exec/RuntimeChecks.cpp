#include "exec/RuntimeChecks.h"

#include <cstdio>
#include <cstdlib>
#include <map>

namespace ptescope::exec {

const std::vector<RuntimeCheck>& runtimeChecks() {
  static const std::vector<RuntimeCheck> checks{
      {"RT001", "planned-input-on-device", "set_input", "Method::set_input fails with NotSupported",
       "Planned-buffer copy needs host memory on both sides: dst device %d, src device %d. Export with "
       "MemoryPlanningPass(alloc_graph_input=False) to share the caller's memory.",
       "PTS001",
       "runtime/core/exec_aten/util/tensor_util_portable.cpp internal::copy_tensor_data, called by "
       "runtime/executor/method.cpp Method::set_input for a memory-planned input",
       "a method input is memory-planned (alloc_graph_input=True) and its tensor is tagged for a device: "
       "skip_h2d_for_method_inputs with device planning, or legacy device tagging without it"},
      {"RT002", "input-dtype-mismatch", "set_input", "Method::set_input fails with InvalidArgument",
       "Input %zu has unexpected scalar type: expected %s but was %s.", "",
       "runtime/executor/method.cpp Method::set_input",
       "the caller's tensor for an input has another dtype than the program's input"},
      {"RT003", "input-resize-refused", "set_input", "Method::set_input fails with NotSupported (resize_tensor)",
       "Attempted to resize a static tensor. Expected shape %s, but received %s. / Attempted to resize a bounded "
       "tensor with a maximum capacity of %zu elements to %zu elements. / Attempted to change the tensor rank which "
       "is immutable: old=%zu, new=%zu",
       "",
       "runtime/core/portable_type/tensor_impl.cpp TensorImpl::internal_resize_contiguous, called through "
       "resize_tensor by runtime/executor/method.cpp Method::set_input",
       "the caller's tensor for an input has other sizes than a STATIC input, more elements than a DYNAMIC_BOUND "
       "input's capacity, or another rank"},
      {"RT004", "kernel-arg-count", "execute", "Method::execute fails with InvalidProgram",
       "Expected %zu args received %zu", "",
       "codegen/gen.py ComputeCodegenUnboxedKernels (the generated unboxing of every kernel library)",
       "a kernel call of a portable-library operator has another number of arguments than its schema's + 1 "
       "(e.g. a multi-output op that repeats its outs instead of ending in one TensorList)"},
  };
  return checks;
}

const RuntimeCheck& runtimeCheck(std::string_view id) {
  for (const auto& check : runtimeChecks())
    if (check.id == id) return check;
  std::fprintf(stderr, "ptescope: unknown runtime check %.*s\n", int(id.size()), id.data());
  std::abort();
}

std::string refusal(const RuntimeCheck& check, std::string_view where, std::string_view message) {
  std::string out(where);
  out += ": the runtime refuses: ";
  out += check.refusal;
  out += ": \"";
  out += message;
  out += "\" (runtime check ";
  out += check.id;
  out += " ";
  out += check.name;
  if (!check.lint_rule.empty()) {
    out += "; predicted by lint ";
    out += check.lint_rule;
  }
  out += ")";
  return out;
}

std::optional<size_t> portableSchemaArgCount(std::string_view op) {
  // Generated from upstream's kernel signatures (parameters minus the
  // KernelRuntimeContext); checked against the shared samples and every
  // program synth writes, which the real runtime loads and runs.
  static const std::map<std::string_view, size_t> arity{
    {"aten::_adaptive_avg_pool2d.out", 3}, {"aten::_cdist_forward.out", 5}, {"aten::_conj_physical.out", 2},
    {"aten::_log_softmax.out", 4}, {"aten::_native_batch_norm_legit.no_stats_out", 9},
    {"aten::_native_batch_norm_legit.out", 11}, {"aten::_native_batch_norm_legit_no_training.out", 10},
    {"aten::_pdist_forward.out", 3}, {"aten::_softmax.out", 4}, {"aten::_to_copy.out", 4},
    {"aten::_upsample_bilinear2d_aa.out", 6}, {"aten::abs.out", 2}, {"aten::acos.out", 2}, {"aten::acosh.out", 2},
    {"aten::add.Scalar_out", 4}, {"aten::add.out", 4}, {"aten::addmm.out", 6}, {"aten::alias_copy.out", 2},
    {"aten::amax.out", 4}, {"aten::amin.out", 4}, {"aten::any.all_out", 2}, {"aten::any.dims_out", 4},
    {"aten::any.out", 4}, {"aten::arange.out", 2}, {"aten::arange.start_out", 4}, {"aten::argmax.out", 4},
    {"aten::argmin.out", 4}, {"aten::as_strided_copy.out", 5}, {"aten::asin.out", 2}, {"aten::asinh.out", 2},
    {"aten::atan.out", 2}, {"aten::atan2.out", 3}, {"aten::atanh.out", 2}, {"aten::avg_pool2d.out", 8},
    {"aten::bitwise_and.Scalar_out", 3}, {"aten::bitwise_and.Tensor_out", 3},
    {"aten::bitwise_left_shift.Tensor_Scalar_out", 3}, {"aten::bitwise_left_shift.Tensor_out", 3},
    {"aten::bitwise_not.out", 2}, {"aten::bitwise_or.Scalar_out", 3}, {"aten::bitwise_or.Tensor_out", 3},
    {"aten::bitwise_right_shift.Tensor_Scalar_out", 3}, {"aten::bitwise_right_shift.Tensor_out", 3},
    {"aten::bitwise_xor.Scalar_out", 3}, {"aten::bitwise_xor.Tensor_out", 3}, {"aten::bmm.out", 3},
    {"aten::cat.out", 3}, {"aten::ceil.out", 2}, {"aten::clamp.Tensor_out", 4}, {"aten::clamp.out", 4},
    {"aten::clone.out", 3}, {"aten::constant_pad_nd.out", 4}, {"aten::convolution.out", 10},
    {"aten::convolution_backward.out", 14}, {"aten::copy.out", 4}, {"aten::copy_", 3}, {"aten::cos.out", 2},
    {"aten::cosh.out", 2}, {"aten::cumsum.out", 4}, {"aten::detach_copy.out", 2}, {"aten::diagonal_copy.out", 5},
    {"aten::div.Scalar_mode_out", 4}, {"aten::div.Scalar_out", 3}, {"aten::div.out", 3}, {"aten::div.out_mode", 4},
    {"aten::elu.out", 5}, {"aten::embedding.out", 6}, {"aten::empty.out", 3}, {"aten::eq.Scalar_out", 3},
    {"aten::eq.Tensor_out", 3}, {"aten::erf.out", 2}, {"aten::exp.out", 2}, {"aten::expand_copy.out", 4},
    {"aten::expm1.out", 2}, {"aten::fill.Scalar_out", 3}, {"aten::fill.Tensor_out", 3}, {"aten::flip.out", 3},
    {"aten::floor.out", 2}, {"aten::floor_divide.out", 3}, {"aten::fmod.Scalar_out", 3},
    {"aten::fmod.Tensor_out", 3}, {"aten::full.out", 3}, {"aten::full_like.out", 4}, {"aten::gather.out", 5},
    {"aten::ge.Scalar_out", 3}, {"aten::ge.Tensor_out", 3}, {"aten::gelu.out", 3}, {"aten::glu.out", 3},
    {"aten::grid_sampler_2d.out", 6}, {"aten::gt.Scalar_out", 3}, {"aten::gt.Tensor_out", 3},
    {"aten::hardtanh.out", 4}, {"aten::index.Tensor_out", 3}, {"aten::index_put.out", 5}, {"aten::index_put_", 4},
    {"aten::index_select.out", 4}, {"aten::isinf.out", 2}, {"aten::isnan.out", 2}, {"aten::le.Scalar_out", 3},
    {"aten::le.Tensor_out", 3}, {"aten::leaky_relu.out", 3}, {"aten::lift_fresh_copy.out", 2},
    {"aten::log.out", 2}, {"aten::log10.out", 2}, {"aten::log1p.out", 2}, {"aten::log2.out", 2},
    {"aten::logical_and.out", 3}, {"aten::logical_not.out", 2}, {"aten::logical_or.out", 3},
    {"aten::logical_xor.out", 3}, {"aten::logit.out", 3}, {"aten::lt.Scalar_out", 3}, {"aten::lt.Tensor_out", 3},
    {"aten::masked_fill.Scalar_out", 4}, {"aten::masked_scatter.out", 4}, {"aten::masked_select.out", 3},
    {"aten::max.dim_max", 5}, {"aten::max.unary_out", 2}, {"aten::max_pool2d_with_indices.out", 8},
    {"aten::max_pool2d_with_indices_backward.grad_input", 9}, {"aten::maximum.out", 3},
    {"aten::mean.dtype_out", 3}, {"aten::mean.out", 5}, {"aten::min.dim_min", 5}, {"aten::min.unary_out", 2},
    {"aten::minimum.out", 3}, {"aten::mm.out", 3}, {"aten::mul.Scalar_out", 3}, {"aten::mul.out", 3},
    {"aten::narrow_copy.out", 5}, {"aten::native_dropout.out", 5}, {"aten::native_group_norm.out", 11},
    {"aten::native_layer_norm.out", 8}, {"aten::ne.Scalar_out", 3}, {"aten::ne.Tensor_out", 3},
    {"aten::neg.out", 2}, {"aten::nonzero.out", 2}, {"aten::ones.out", 2}, {"aten::permute_copy.out", 3},
    {"aten::pixel_shuffle.out", 3}, {"aten::pixel_unshuffle.out", 3}, {"aten::pow.Scalar_out", 3},
    {"aten::pow.Tensor_Scalar_out", 3}, {"aten::pow.Tensor_Tensor_out", 3}, {"aten::prod.int_out", 5},
    {"aten::prod.out", 3}, {"aten::rand.out", 2}, {"aten::randn.out", 2}, {"aten::reciprocal.out", 2},
    {"aten::reflection_pad1d.out", 3}, {"aten::reflection_pad2d.out", 3}, {"aten::reflection_pad3d.out", 3},
    {"aten::relu.out", 2}, {"aten::remainder.Scalar_out", 3}, {"aten::remainder.Tensor_out", 3},
    {"aten::repeat.out", 3}, {"aten::repeat_interleave.Tensor_out", 3}, {"aten::replication_pad1d.out", 3},
    {"aten::replication_pad2d.out", 3}, {"aten::replication_pad3d.out", 3}, {"aten::roll.out", 4},
    {"aten::round.out", 2}, {"aten::rsqrt.out", 2}, {"aten::rsub.Scalar_out", 4}, {"aten::scalar_tensor.out", 2},
    {"aten::scatter.src_out", 5}, {"aten::scatter.value_out", 5}, {"aten::scatter_add.out", 5},
    {"aten::select_copy.int_out", 4}, {"aten::select_scatter.out", 5}, {"aten::sigmoid.out", 2},
    {"aten::sign.out", 2}, {"aten::sin.out", 2}, {"aten::sinh.out", 2}, {"aten::slice_copy.Tensor_out", 6},
    {"aten::slice_scatter.out", 7}, {"aten::split_copy.Tensor_out", 4}, {"aten::split_with_sizes_copy.out", 4},
    {"aten::sqrt.out", 2}, {"aten::squeeze_copy.dim_out", 3}, {"aten::squeeze_copy.dims_out", 3},
    {"aten::stack.out", 3}, {"aten::sub.Scalar_out", 4}, {"aten::sub.out", 4}, {"aten::sum.IntList_out", 5},
    {"aten::t_copy.out", 2}, {"aten::tan.out", 2}, {"aten::tanh.out", 2}, {"aten::topk.values", 7},
    {"aten::transpose_copy.int_out", 4}, {"aten::tril.out", 3}, {"aten::trunc.out", 2},
    {"aten::unbind_copy.int_out", 3}, {"aten::unfold_copy.out", 5}, {"aten::unsqueeze_copy.out", 3},
    {"aten::upsample_bilinear2d.vec_out", 5}, {"aten::upsample_nearest2d.vec_out", 4},
    {"aten::var.correction_out", 5}, {"aten::var.out", 5}, {"aten::var_mean.correction_out", 6},
    {"aten::view_as_real_copy.out", 2}, {"aten::view_copy.out", 3}, {"aten::where.self_out", 4},
    {"aten::zeros.out", 2}, {"dim_order_ops::_clone_dim_order.out", 4}, {"dim_order_ops::_empty_dim_order.out", 3},
    {"dim_order_ops::_to_dim_order_copy.out", 4}, {"et_copy::_d2h_copy.out", 2}, {"et_copy::_h2d_copy.out", 2},
  };
  auto found = arity.find(op);
  if (found == arity.end()) return std::nullopt;
  return found->second;
}

}  // namespace ptescope::exec
