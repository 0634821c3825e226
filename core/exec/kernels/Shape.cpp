// Kernels that rearrange elements without arithmetic: view, permute,
// transpose, (un)squeeze, expand, the alias/clone/to copies, cat/stack,
// split/unbind, slice/select/narrow, flip, repeat, tril and the scatters of
// a slice or a select. Same-dtype copies move bytes.
#include <algorithm>
#include <numeric>

#include "exec/kernels/KernelSupport.h"

namespace ptescope::exec::kernels {
namespace {

// out (resized to `sizes`) = self read at `offset + sum(index[d] * strides[d])`.
KernelResult gatherStrided(const Operand& out, const Sizes& sizes, const Operand& self, const Sizes& strides, int64_t offset = 0) {
  if (auto status = resize(out, sizes); !status) return status.error();
  forEachIndex<1>(sizes, {strides}, [&](int64_t i, const std::array<int64_t, 1>& off) { copyElement(out, i, self, offset + off[0]); });
  return KernelOutcome::done();
}

// out = self element for element (same number of elements), any sizes.
KernelResult copyAll(const Operand& out, const Sizes& sizes, const Operand& self) {
  if (numelOf(sizes) != self.numel())
    return makeError("sizes " + shapeText(sizes) + " do not hold the " + std::to_string(self.numel()) + " elements of %" +
                     std::to_string(self.tensor->value));
  if (auto status = resize(out, sizes); !status) return status.error();
  if (out.dtype() == self.dtype()) {
    if (self.numel() > 0 && out.tensor->data != self.tensor->data)
      std::memmove(out.tensor->data, self.tensor->data, size_t(self.numel()) * size_t(self.codec.size));
  } else {
    KernelCancelPoll cancelled;
    for (int64_t i = 0; i < self.numel() && !cancelled(); ++i) copyElement(out, i, self, i);
  }
  return KernelOutcome::done();
}

// Sizes of a view: one entry may be -1.
Result<Sizes> viewSizes(Sizes sizes, int64_t numel) {
  int64_t known = 1;
  int inferred = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1 && inferred < 0)
      inferred = int(i);
    else if (sizes[i] < 0)
      return makeError("view size " + std::to_string(sizes[i]) + " is negative");
    else
      known *= sizes[i];
  }
  if (inferred >= 0) {
    if (known == 0 || numel % known != 0) return makeError("cannot infer the -1 in " + shapeText(sizes));
    sizes[size_t(inferred)] = numel / known;
  }
  if (numelOf(sizes) != numel) return makeError("sizes " + shapeText(sizes) + " do not hold " + std::to_string(numel) + " elements");
  return sizes;
}

// view_copy.out(self, size, *, out).
KernelResult viewCopy(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const auto requested = a.ints(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  auto sizes = viewSizes(requested, self.numel());
  if (!sizes) return a.fail("view_copy of " + a.name(0) + ": " + sizes.error().message);
  return copyAll(out, *sizes, self);
}

KernelResult permuted(Args& a, const Operand& self, const std::vector<int64_t>& dims, const Operand& out) {
  if (dims.size() != self.rank())
    return a.fail("permute: " + std::to_string(dims.size()) + " dims for rank " + std::to_string(self.rank()));
  const Sizes inStrides = contiguousStrides(self.sizes());
  Sizes sizes(dims.size()), strides(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t d = 0; d < dims.size(); ++d) {
    auto source = normalizeDim(dims[d], self.rank());
    if (!source || seen[*source]) return a.fail("permute: " + shapeText(dims) + " is not a permutation");
    seen[*source] = true;
    sizes[d] = self.size(*source);
    strides[d] = inStrides[*source];
  }
  return gatherStrided(out, sizes, self, strides);
}

// permute_copy.out(self, dims, *, out).
KernelResult permuteCopy(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const auto dims = a.ints(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  return permuted(a, self, dims, out);
}

// transpose_copy.int_out(self, dim0, dim1, *, out).
KernelResult transposeCopy(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const int64_t d0 = a.integer(1), d1 = a.integer(2);
  auto out = a.out(3);
  if (a.failed()) return a.outcome();
  if (self.rank() == 0) return copyAll(out, {}, self);
  auto x = normalizeDim(d0, self.rank()), y = normalizeDim(d1, self.rank());
  if (!x) return x.error();
  if (!y) return y.error();
  std::vector<int64_t> dims(self.rank());
  std::iota(dims.begin(), dims.end(), 0);
  std::swap(dims[*x], dims[*y]);
  return permuted(a, self, dims, out);
}

// t_copy.out(self, *, out).
KernelResult tCopy(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  auto out = a.out(1);
  if (a.failed()) return a.outcome();
  if (self.rank() > 2) return a.fail("t_copy: " + a.name(0) + " has more than 2 dimensions");
  if (self.rank() < 2) return copyAll(out, self.sizes(), self);
  return permuted(a, self, {1, 0}, out);
}

// unsqueeze_copy.out(self, dim, *, out).
KernelResult unsqueezeCopy(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const int64_t dimArg = a.integer(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  auto dim = normalizeDim(dimArg, self.rank() + 1);
  if (!dim) return dim.error();
  Sizes sizes = self.sizes();
  sizes.insert(sizes.begin() + std::ptrdiff_t(*dim), 1);
  return copyAll(out, sizes, self);
}

// squeeze_copy.dim_out(self, dim, *, out) / squeeze_copy.dims_out(self, dims, *, out).
KernelResult squeezeCopy(KernelContext& ctx, bool list) {
  Args a(ctx);
  auto self = a.in(0);
  std::vector<int64_t> dims;
  if (list)
    dims = a.ints(1);
  else
    dims = {a.integer(1)};
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  std::vector<bool> drop(self.rank(), false);
  for (int64_t d : dims) {
    auto dim = normalizeDim(d, self.rank());
    if (!dim) return dim.error();
    if (self.rank() && self.size(*dim) == 1) drop[*dim] = true;
  }
  Sizes sizes;
  for (size_t d = 0; d < self.rank(); ++d)
    if (!drop[d]) sizes.push_back(self.size(d));
  return copyAll(out, sizes, self);
}

// expand_copy.out(self, size, *, implicit, out).
KernelResult expandCopy(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const auto requested = a.ints(1);
  auto out = a.out(3);
  if (a.failed()) return a.outcome();
  if (requested.size() < self.rank())
    return a.fail("expand_copy: " + shapeText(requested) + " has fewer dimensions than " + a.name(0) + " " + shapeText(self.sizes()));
  Sizes sizes = requested;
  const size_t lead = requested.size() - self.rank();
  for (size_t d = 0; d < self.rank(); ++d) {
    int64_t& s = sizes[lead + d];
    if (s == -1) s = self.size(d);
    if (s != self.size(d) && self.size(d) != 1)
      return a.fail("expand_copy: " + a.name(0) + " " + shapeText(self.sizes()) + " cannot expand to " + shapeText(requested));
  }
  for (size_t d = 0; d < lead; ++d)
    if (sizes[d] < 0) return a.fail("expand_copy: new leading size " + std::to_string(sizes[d]) + " is negative");
  return gatherStrided(out, sizes, self, broadcastStrides(self.sizes(), sizes));
}

// A copy that may convert the dtype: (self, ..., out). `dimOrderArg` holds
// an optional dim_order for the output (the dim-order copies); the output
// tensor's own dim order must be that one. Elements move between the two
// layouts by their logical index.
KernelResult convertingCopy(KernelContext& ctx, size_t dimOrderArg, size_t outArg) {
  Args a(ctx);
  const bool layouts = dimOrderArg != SIZE_MAX;
  auto self = layouts ? a.inAnyLayout(0) : a.in(0);
  std::optional<std::vector<int64_t>> order;
  if (layouts) order = a.optInts(dimOrderArg);
  auto out = layouts ? a.outAnyLayout(outArg) : a.out(outArg);
  if (a.failed()) return a.outcome();
  if (!layouts) return copyAll(out, self.sizes(), self);
  const auto& outOrder = out.tensor->dim_order;
  if (order) {
    bool identity = true;
    for (size_t i = 0; i < order->size(); ++i) identity = identity && (*order)[i] == int64_t(i);
    const bool matches = identity ? outOrder.empty() : *order == outOrder;
    if (!matches && self.rank() > 1)
      return a.fail("dim_order " + shapeText(*order) + " is not the dim order of " + a.name(outArg));
  }
  if (self.tensor->dim_order.empty() && outOrder.empty()) return copyAll(out, self.sizes(), self);
  if (auto status = resize(out, self.sizes()); !status) return status.error();
  const Sizes from = stridesForDimOrder(self.sizes(), self.tensor->dim_order);
  const Sizes to = stridesForDimOrder(self.sizes(), outOrder);
  const Sizes& sizes = self.sizes();
  Sizes index(sizes.size(), 0);
  KernelCancelPoll cancelled;
  for (int64_t n = 0; n < self.numel() && !cancelled(); ++n) {
    int64_t src = 0, dst = 0;
    for (size_t d = 0; d < sizes.size(); ++d) {
      src += index[d] * from[d];
      dst += index[d] * to[d];
    }
    copyElement(out, dst, self, src);
    nextIndex(index, sizes);
  }
  return KernelOutcome::done();
}

// copy.out(self, src, non_blocking, *, out) and copy_(self, src, non_blocking):
// src broadcast to self's sizes.
KernelResult copyInto(KernelContext& ctx, bool inPlace) {
  Args a(ctx);
  auto self = a.in(0), src = a.in(1);
  auto out = inPlace ? a.out(0) : a.out(3);
  if (a.failed()) return a.outcome();
  auto shape = broadcastShapes({src.sizes(), self.sizes()});
  if (!shape || *shape != self.sizes())
    return a.fail("copy: " + a.name(1) + " " + shapeText(src.sizes()) + " does not broadcast to " + shapeText(self.sizes()));
  return gatherStrided(out, self.sizes(), src, broadcastStrides(src.sizes(), self.sizes()));
}

// cat.out(tensors, dim, *, out). Legacy empty 1-D tensors ([0]) are skipped.
KernelResult cat(KernelContext& ctx) {
  Args a(ctx);
  auto inputs = a.tensors(0);
  const int64_t dimArg = a.integer(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  std::vector<const Operand*> parts;
  for (const auto& t : inputs)
    if (!(t.rank() == 1 && t.size(0) == 0)) parts.push_back(&t);
  if (parts.empty()) return resize(out, {0}) ? KernelResult(KernelOutcome::done()) : a.fail("cat: every input is empty");
  const Sizes& first = parts[0]->sizes();
  auto dim = normalizeDim(dimArg, first.size());
  if (!dim) return dim.error();
  Sizes sizes = first;
  sizes[*dim] = 0;
  for (const auto* p : parts) {
    if (p->rank() != first.size()) return a.fail("cat: inputs have different ranks");
    for (size_t d = 0; d < first.size(); ++d)
      if (d != *dim && p->size(d) != first[d])
        return a.fail("cat: " + shapeText(p->sizes()) + " and " + shapeText(first) + " differ outside dim " + std::to_string(*dim));
    sizes[*dim] += p->size(*dim);
  }
  if (auto status = resize(out, sizes); !status) return status.error();
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (d < *dim) outer *= sizes[d];
    if (d > *dim) inner *= sizes[d];
  }
  int64_t at = 0;
  KernelCancelPoll cancelled;
  for (int64_t o = 0; o < outer; ++o) {
    for (const auto* p : parts) {
      const int64_t block = p->size(*dim) * inner;
      if (cancelled(block)) return KernelOutcome::done();
      for (int64_t i = 0; i < block; ++i) copyElement(out, at++, *p, o * block + i);
    }
  }
  return KernelOutcome::done();
}

// stack.out(tensors, dim, *, out).
KernelResult stack(KernelContext& ctx) {
  Args a(ctx);
  auto inputs = a.tensors(0);
  const int64_t dimArg = a.integer(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  if (inputs.empty()) return a.fail("stack: no inputs");
  const Sizes& first = inputs[0].sizes();
  auto dim = normalizeDim(dimArg, first.size() + 1);
  if (!dim) return dim.error();
  for (const auto& t : inputs)
    if (t.sizes() != first) return a.fail("stack: inputs " + shapeText(t.sizes()) + " and " + shapeText(first) + " differ");
  Sizes sizes = first;
  sizes.insert(sizes.begin() + std::ptrdiff_t(*dim), int64_t(inputs.size()));
  if (auto status = resize(out, sizes); !status) return status.error();
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < first.size(); ++d) (d < *dim ? outer : inner) *= first[d];
  int64_t at = 0;
  KernelCancelPoll cancelled;
  for (int64_t o = 0; o < outer; ++o)
    for (const auto& t : inputs) {
      if (cancelled(inner)) return KernelOutcome::done();
      for (int64_t i = 0; i < inner; ++i) copyElement(out, at++, t, o * inner + i);
    }
  return KernelOutcome::done();
}

// Writes consecutive chunks of `self` along `dim` into `outs`.
KernelResult splitInto(Args& a, const Operand& self, size_t dim, const std::vector<int64_t>& lengths, const std::vector<Operand>& outs,
                       bool dropDim) {
  if (lengths.size() != outs.size())
    return a.fail("split: " + std::to_string(lengths.size()) + " chunks but " + std::to_string(outs.size()) + " outputs");
  int64_t total = 0;
  for (int64_t l : lengths) {
    if (l < 0) return a.fail("split: a negative chunk size");
    total += l;
  }
  if (total != self.size(dim))
    return a.fail("split: chunks of " + std::to_string(total) + " do not cover dim " + std::to_string(dim) + " of size " +
                  std::to_string(self.size(dim)));
  const Sizes inStrides = contiguousStrides(self.sizes());
  int64_t start = 0;
  for (size_t i = 0; i < outs.size(); ++i) {
    Sizes sizes = self.sizes(), strides = inStrides;
    sizes[dim] = lengths[i];
    if (dropDim) {
      sizes.erase(sizes.begin() + std::ptrdiff_t(dim));
      strides.erase(strides.begin() + std::ptrdiff_t(dim));
    }
    auto result = gatherStrided(outs[i], sizes, self, strides, start * inStrides[dim]);
    if (!result) return result;
    start += lengths[i];
  }
  return KernelOutcome::done();
}

// split_with_sizes_copy.out(self, split_sizes, dim, *, out[]).
KernelResult splitWithSizes(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const auto lengths = a.ints(1);
  const int64_t dimArg = a.integer(2);
  auto outs = a.tensors(3, true);
  if (a.failed()) return a.outcome();
  auto dim = normalizeDim(dimArg, self.rank());
  if (!dim) return dim.error();
  return splitInto(a, self, *dim, lengths, outs, false);
}

// split_copy.Tensor_out(self, split_size, dim, *, out[]).
KernelResult splitEqual(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const int64_t size = a.integer(1);
  const int64_t dimArg = a.integer(2);
  auto outs = a.tensors(3, true);
  if (a.failed()) return a.outcome();
  auto dim = normalizeDim(dimArg, self.rank());
  if (!dim) return dim.error();
  if (size <= 0 && self.size(*dim) > 0) return a.fail("split_copy: split_size must be positive");
  std::vector<int64_t> lengths;
  for (int64_t left = self.size(*dim); left > 0; left -= size) lengths.push_back(std::min(size, left));
  if (lengths.empty()) lengths.push_back(0);
  return splitInto(a, self, *dim, lengths, outs, false);
}

// unbind_copy.int_out(self, dim, *, out[]).
KernelResult unbind(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const int64_t dimArg = a.integer(1);
  auto outs = a.tensors(2, true);
  if (a.failed()) return a.outcome();
  auto dim = normalizeDim(dimArg, self.rank());
  if (!dim) return dim.error();
  return splitInto(a, self, *dim, std::vector<int64_t>(size_t(self.size(*dim)), 1), outs, true);
}

// [start, end) with step along a dimension of `size`, as Python slices clamp.
struct Slice {
  int64_t start = 0, length = 0, step = 1;
};
Result<Slice> planSlice(std::optional<int64_t> start, std::optional<int64_t> end, int64_t step, int64_t size) {
  if (step <= 0) return makeError("slice step must be positive, not " + std::to_string(step));
  auto clampIndex = [size](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + size : i, 0, size); };
  const int64_t s = clampIndex(start.value_or(0)), e = clampIndex(end.value_or(size));
  return Slice{s, e > s ? (e - s + step - 1) / step : 0, step};
}

// slice_copy.Tensor_out(self, dim, start?, end?, step, *, out).
KernelResult sliceCopy(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const int64_t dimArg = a.integer(1);
  const auto start = a.optInteger(2), end = a.optInteger(3);
  const int64_t step = a.integer(4);
  auto out = a.out(5);
  if (a.failed()) return a.outcome();
  auto dim = normalizeDim(dimArg, self.rank());
  if (!dim) return dim.error();
  auto slice = planSlice(start, end, step, self.size(*dim));
  if (!slice) return a.fail("slice_copy: " + slice.error().message);
  Sizes sizes = self.sizes(), strides = contiguousStrides(self.sizes());
  const int64_t offset = slice->start * strides[*dim];
  sizes[*dim] = slice->length;
  strides[*dim] *= slice->step;
  return gatherStrided(out, sizes, self, strides, offset);
}

// narrow_copy.out(self, dim, start, length, *, out).
KernelResult narrowCopy(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const int64_t dimArg = a.integer(1), startArg = a.integer(2), length = a.integer(3);
  auto out = a.out(4);
  if (a.failed()) return a.outcome();
  auto dim = normalizeDim(dimArg, self.rank());
  if (!dim) return dim.error();
  const int64_t start = startArg < 0 ? startArg + self.size(*dim) : startArg;
  if (start < 0 || length < 0 || start + length > self.size(*dim))
    return a.fail("narrow_copy: [" + std::to_string(start) + ", +" + std::to_string(length) + ") is outside dim " +
                  std::to_string(*dim) + " of size " + std::to_string(self.size(*dim)));
  Sizes sizes = self.sizes(), strides = contiguousStrides(self.sizes());
  sizes[*dim] = length;
  return gatherStrided(out, sizes, self, strides, start * strides[*dim]);
}

// select_copy.int_out(self, dim, index, *, out).
KernelResult selectCopy(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const int64_t dimArg = a.integer(1), indexArg = a.integer(2);
  auto out = a.out(3);
  if (a.failed()) return a.outcome();
  if (self.rank() == 0) return a.fail("select_copy: " + a.name(0) + " is a scalar");
  auto dim = normalizeDim(dimArg, self.rank());
  if (!dim) return dim.error();
  const int64_t index = indexArg < 0 ? indexArg + self.size(*dim) : indexArg;
  if (index < 0 || index >= self.size(*dim))
    return a.fail("select_copy: index " + std::to_string(indexArg) + " is out of range for dim " + std::to_string(*dim) +
                  " of size " + std::to_string(self.size(*dim)));
  Sizes sizes = self.sizes(), strides = contiguousStrides(self.sizes());
  const int64_t offset = index * strides[*dim];
  sizes.erase(sizes.begin() + std::ptrdiff_t(*dim));
  strides.erase(strides.begin() + std::ptrdiff_t(*dim));
  return gatherStrided(out, sizes, self, strides, offset);
}

// slice_scatter.out(self, src, dim, start?, end?, step, *, out) and
// select_scatter.out(self, src, dim, index, *, out): self with a slice replaced.
KernelResult scatterSlice(KernelContext& ctx, bool select) {
  Args a(ctx);
  auto self = a.in(0), src = a.in(1);
  const int64_t dimArg = a.integer(2);
  Result<Slice> slice = Slice{};
  int64_t selectIndex = 0;
  std::optional<int64_t> start, end;
  int64_t step = 1;
  if (select) {
    selectIndex = a.integer(3);
  } else {
    start = a.optInteger(3);
    end = a.optInteger(4);
    step = a.integer(5);
  }
  auto out = a.out(select ? 4 : 6);
  if (a.failed()) return a.outcome();
  auto dim = normalizeDim(dimArg, self.rank());
  if (!dim) return dim.error();
  if (select) {
    const int64_t index = selectIndex < 0 ? selectIndex + self.size(*dim) : selectIndex;
    if (index < 0 || index >= self.size(*dim)) return a.fail("select_scatter: index " + std::to_string(selectIndex) + " is out of range");
    slice = Slice{index, 1, 1};
  } else {
    slice = planSlice(start, end, step, self.size(*dim));
    if (!slice) return a.fail("slice_scatter: " + slice.error().message);
  }
  Sizes region = self.sizes();
  region[*dim] = slice->length;
  Sizes expected = region;
  if (select) expected.erase(expected.begin() + std::ptrdiff_t(*dim));
  if (src.sizes() != expected)
    return a.fail("slice/select_scatter: " + a.name(1) + " " + shapeText(src.sizes()) + " is not " + shapeText(expected));
  if (auto result = copyAll(out, self.sizes(), self); !result) return result;
  Sizes strides = contiguousStrides(self.sizes());
  const int64_t offset = slice->start * strides[*dim];
  strides[*dim] *= slice->step;
  forEachIndex<1>(region, {strides}, [&](int64_t i, const std::array<int64_t, 1>& off) { copyElement(out, offset + off[0], src, i); });
  return KernelOutcome::done();
}

// flip.out(self, dims, *, out).
KernelResult flip(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const auto dims = a.ints(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  Sizes strides = contiguousStrides(self.sizes());
  int64_t offset = 0;
  std::vector<bool> flipped(self.rank(), false);
  for (int64_t d : dims) {
    auto dim = normalizeDim(d, self.rank());
    if (!dim) return dim.error();
    if (self.rank() == 0 || flipped[*dim]) continue;
    flipped[*dim] = true;
    offset += (self.size(*dim) - 1) * strides[*dim];
    strides[*dim] = -strides[*dim];
  }
  return gatherStrided(out, self.sizes(), self, strides, offset);
}

// repeat.out(self, repeats, *, out).
KernelResult repeat(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const auto repeats = a.ints(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  if (repeats.size() < self.rank()) return a.fail("repeat: fewer repeats than dimensions of " + a.name(0));
  const size_t lead = repeats.size() - self.rank();
  Sizes padded(lead, 1);
  padded.insert(padded.end(), self.sizes().begin(), self.sizes().end());
  Sizes sizes(repeats.size());
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (repeats[d] < 0) return a.fail("repeat: negative repeat count");
    sizes[d] = padded[d] * repeats[d];
  }
  if (auto status = resize(out, sizes); !status) return status.error();
  const Sizes inStrides = contiguousStrides(padded);
  Sizes index(sizes.size(), 0);
  KernelCancelPoll cancelled;
  for (int64_t o = 0; o < numelOf(sizes) && !cancelled(); ++o) {
    int64_t source = 0;
    for (size_t d = 0; d < sizes.size(); ++d) source += (index[d] % padded[d]) * inStrides[d];
    copyElement(out, o, self, source);
    nextIndex(index, sizes);
  }
  return KernelOutcome::done();
}

// tril.out(self, diagonal, *, out).
KernelResult tril(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const int64_t diagonal = a.integer(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  if (self.rank() < 2) return a.fail("tril: " + a.name(0) + " needs at least 2 dimensions");
  if (auto result = copyAll(out, self.sizes(), self); !result) return result;
  const int64_t rows = self.size(self.rank() - 2), cols = self.size(self.rank() - 1);
  KernelCancelPoll cancelled;
  for (int64_t i = 0; i < out.numel() && !cancelled(); ++i) {
    const int64_t c = i % cols, r = (i / cols) % rows;
    if (c - r > diagonal) out.set(i, 0);
  }
  return KernelOutcome::done();
}

KernelResult plainCopy(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  auto out = a.out(1);
  if (a.failed()) return a.outcome();
  return copyAll(out, self.sizes(), self);
}

// as_strided_copy.out(self, size, stride, storage_offset?, *, out), as the
// portable kernel: out[index] = self's storage at offset + sum(index[d] *
// stride[d]); strides and the offset non-negative, and the window inside
// self's elements.
KernelResult asStridedCopy(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const auto size = a.ints(1), stride = a.ints(2);
  const int64_t offset = a.optInteger(3).value_or(0);
  auto out = a.out(4);
  if (a.failed()) return a.outcome();
  if (out.dtype() != self.dtype()) return a.fail("as_strided_copy: out " + a.name(4) + " does not have the dtype of " + a.name(0));
  if (size.size() != stride.size())
    return a.fail("as_strided_copy: mismatch in length of strides and shape; size has " + std::to_string(size.size()) +
                  " entries, stride " + std::to_string(stride.size()));
  for (int64_t v : stride)
    if (v < 0) return a.fail("as_strided_copy: negative strides are not supported: " + shapeText(stride));
  for (int64_t v : size)
    if (v < 0) return a.fail("as_strided_copy: negative size " + shapeText(size));
  if (offset < 0) return a.fail("as_strided_copy: negative storage offset " + std::to_string(offset));
  // Elements the window spans: 1 past the last one it reads (0 when it is empty).
  int64_t span = 1;
  bool overflow = false;
  for (size_t d = 0; d < size.size(); ++d) {
    int64_t step = 0;
    if (size[d] == 0 || span == 0)
      span = 0;
    else
      overflow = overflow || __builtin_mul_overflow(stride[d], size[d] - 1, &step) || __builtin_add_overflow(span, step, &span);
  }
  if (overflow || (span > 0 && (span > self.numel() || offset > self.numel() - span)))
    return a.fail("as_strided_copy: size " + shapeText(size) + ", stride " + shapeText(stride) + " and offset " +
                  std::to_string(offset) + " read " + (overflow ? std::string("more than 2^63") : std::to_string(span + offset)) +
                  " elements; " + a.name(0) + " has " + std::to_string(self.numel()));
  if (self.numel() == 0) {
    if (auto status = resize(out, size); !status) return status.error();
    return KernelOutcome::done();
  }
  return gatherStrided(out, size, self, stride, offset);
}

// diagonal_copy.out(self, offset, dim1, dim2, *, out): the diagonal of the
// (dim1, dim2) planes, moved to the last dimension (upstream's
// diagonal_copy_impl over as_strided_copy).
KernelResult diagonalCopy(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const int64_t offset = a.integer(1), dim1Arg = a.integer(2), dim2Arg = a.integer(3);
  auto out = a.out(4);
  if (a.failed()) return a.outcome();
  if (out.dtype() != self.dtype()) return a.fail("diagonal_copy: out " + a.name(4) + " does not have the dtype of " + a.name(0));
  if (self.rank() < 2) return a.fail("diagonal_copy: " + a.name(0) + " needs at least 2 dimensions, has " + std::to_string(self.rank()));
  auto dim1 = normalizeDim(dim1Arg, self.rank()), dim2 = normalizeDim(dim2Arg, self.rank());
  if (!dim1) return dim1.error();
  if (!dim2) return dim2.error();
  if (*dim1 == *dim2) return a.fail("diagonal_copy: dim1 and dim2 are both dimension " + std::to_string(*dim1));
  const int64_t rows = self.size(*dim1), columns = self.size(*dim2);
  int64_t length = 0;
  if (offset >= 0 && columns > offset) length = std::min(rows, columns - offset);
  if (offset < 0 && rows > -offset) length = std::min(rows + offset, columns);
  const Sizes inStrides = contiguousStrides(self.sizes());
  Sizes sizes, strides;
  for (size_t d = 0; d < self.rank(); ++d)
    if (d != *dim1 && d != *dim2) {
      sizes.push_back(self.size(d));
      strides.push_back(inStrides[d]);
    }
  sizes.push_back(length);
  strides.push_back(inStrides[*dim1] + inStrides[*dim2]);
  const int64_t start = length == 0 ? 0 : offset >= 0 ? offset * inStrides[*dim2] : -offset * inStrides[*dim1];
  return gatherStrided(out, sizes, self, strides, start);
}

// unfold_copy.out(self, dimension, size, step, *, out): the windows of `size`
// elements every `step` along the dimension, each window a new last
// dimension; out may have another real dtype (converted).
KernelResult unfoldCopy(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const int64_t dimArg = a.integer(1), size = a.integer(2), step = a.integer(3);
  auto out = a.out(4);
  if (a.failed()) return a.outcome();
  if (self.rank() == 0) return a.fail("unfold_copy: " + a.name(0) + " is a scalar");
  auto dim = normalizeDim(dimArg, self.rank());
  if (!dim) return dim.error();
  if (size < 0) return a.fail("unfold_copy: size is " + std::to_string(size) + " but must be >= 0");
  if (size > self.size(*dim))
    return a.fail("unfold_copy: maximum size for dimension " + std::to_string(*dim) + " of " + a.name(0) + " is " +
                  std::to_string(self.size(*dim)) + " but size is " + std::to_string(size));
  if (step <= 0) return a.fail("unfold_copy: step is " + std::to_string(step) + " but must be > 0");
  Sizes sizes = self.sizes(), strides = contiguousStrides(self.sizes());
  sizes[*dim] = (self.size(*dim) - size + step) / step;
  const int64_t along = strides[*dim];
  strides[*dim] = along * step;
  sizes.push_back(size);
  strides.push_back(along);
  return gatherStrided(out, sizes, self, strides);
}

}  // namespace

void addShapeKernels(KernelRegistry& r) {
  r.add("aten::as_strided_copy.out", asStridedCopy);
  r.add("aten::diagonal_copy.out", diagonalCopy);
  r.add("aten::unfold_copy.out", unfoldCopy);
  r.add("aten::view_copy.out", viewCopy);
  r.add("aten::_unsafe_view.out", viewCopy);
  r.add("aten::permute_copy.out", permuteCopy);
  r.add("aten::transpose_copy.int_out", transposeCopy);
  r.add("aten::t_copy.out", tCopy);
  r.add("aten::unsqueeze_copy.out", unsqueezeCopy);
  r.add("aten::squeeze_copy.dim_out", [](KernelContext& c) { return squeezeCopy(c, false); });
  r.add("aten::squeeze_copy.dims_out", [](KernelContext& c) { return squeezeCopy(c, true); });
  r.add("aten::expand_copy.out", expandCopy);
  r.add("aten::alias_copy.out", plainCopy);
  r.add("aten::detach_copy.out", plainCopy);
  r.add("aten::lift_fresh_copy.out", plainCopy);
  r.add("aten::clone.out", [](KernelContext& c) { return convertingCopy(c, SIZE_MAX, 2); });
  r.add("aten::_to_copy.out", [](KernelContext& c) { return convertingCopy(c, SIZE_MAX, 3); });
  r.add("dim_order_ops::_to_dim_order_copy.out", [](KernelContext& c) { return convertingCopy(c, 2, 3); });
  r.add("dim_order_ops::_clone_dim_order.out", [](KernelContext& c) { return convertingCopy(c, 2, 3); });
  r.add("aten::copy.out", [](KernelContext& c) { return copyInto(c, false); });
  r.add("aten::copy_", [](KernelContext& c) { return copyInto(c, true); });
  r.add("aten::cat.out", cat);
  r.add("aten::stack.out", stack);
  r.add("aten::split_with_sizes_copy.out", splitWithSizes);
  r.add("aten::split_copy.Tensor_out", splitEqual);
  r.add("aten::unbind_copy.int_out", unbind);
  r.add("aten::slice_copy.Tensor_out", sliceCopy);
  r.add("aten::narrow_copy.out", narrowCopy);
  r.add("aten::select_copy.int_out", selectCopy);
  r.add("aten::slice_scatter.out", [](KernelContext& c) { return scatterSlice(c, false); });
  r.add("aten::select_scatter.out", [](KernelContext& c) { return scatterSlice(c, true); });
  r.add("aten::flip.out", flip);
  r.add("aten::repeat.out", repeat);
  r.add("aten::tril.out", tril);
}

}  // namespace ptescope::exec::kernels
