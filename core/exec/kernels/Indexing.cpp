// Indexing kernels: advanced indexing (index.Tensor, index_put), index_select,
// embedding, gather and scatter. Index tensors are int64 or int32 (bool
// masks for index/index_put); a negative index counts from the end and one
// out of range is an error naming the index, as the runtime's checks.
#include "exec/kernels/KernelSupport.h"

namespace ptescope::exec::kernels {
namespace {

std::string outOfRange(int64_t index, int64_t size, size_t dim) {
  return "index " + std::to_string(index) + " is out of range for dim " + std::to_string(dim) + " of size " + std::to_string(size);
}

// The self element offset of every element of an advanced-indexing result.
struct IndexPlan {
  Sizes result_sizes;
  std::vector<int64_t> offsets;
};

Result<IndexPlan> planIndex(const Operand& self, const std::vector<std::optional<Operand>>& indices) {
  if (indices.size() > self.rank()) return makeError("too many indices (" + std::to_string(indices.size()) + ") for rank " + std::to_string(self.rank()));
  // Expand bool masks into one long index list per masked dimension.
  std::vector<std::optional<std::vector<int64_t>>> lists;  // per self dim: the flattened indices
  std::vector<Sizes> listShapes;
  std::vector<size_t> indexedDims;
  size_t dim = 0;
  for (const auto& index : indices) {
    if (!index) {
      lists.emplace_back(std::nullopt);
      listShapes.emplace_back();
      ++dim;
      continue;
    }
    if (index->dtype() == ScalarType::Bool || index->dtype() == ScalarType::Byte) {
      const size_t k = std::max<size_t>(index->rank(), 1);
      if (dim + k > self.rank()) return makeError("a boolean mask covers more dimensions than the tensor has");
      for (size_t d = 0; d < index->rank(); ++d)
        if (index->size(d) != self.size(dim + d))
          return makeError("boolean mask " + shapeText(index->sizes()) + " does not match the indexed sizes");
      std::vector<std::vector<int64_t>> coords(k);
      const Sizes mask = index->rank() ? index->sizes() : Sizes{1};
      for (int64_t i = 0; i < index->numel(); ++i) {
        if (index->get(i) == 0) continue;
        int64_t rest = i;
        for (size_t d = k; d-- > 0;) {
          coords[d].push_back(rest % mask[d]);
          rest /= mask[d];
        }
      }
      for (size_t d = 0; d < k; ++d) {
        lists.emplace_back(coords[d]);
        listShapes.push_back({int64_t(coords[d].size())});
        indexedDims.push_back(dim + d);
      }
      dim += k;
      continue;
    }
    if (index->dtype() != ScalarType::Long && index->dtype() != ScalarType::Int)
      return makeError("index tensor %" + std::to_string(index->tensor->value) + " is " + program::scalarTypeShortName(index->dtype()) +
                       ", not int64, int32 or bool");
    std::vector<int64_t> values(size_t(index->numel()));
    for (size_t i = 0; i < values.size(); ++i) {
      int64_t v = index->index(int64_t(i));
      const int64_t size = self.size(dim);
      if (v < -size || v >= size) return makeError(outOfRange(v, size, dim));
      values[i] = v < 0 ? v + size : v;
    }
    lists.emplace_back(std::move(values));
    listShapes.push_back(index->sizes());
    indexedDims.push_back(dim);
    ++dim;
  }
  while (lists.size() < self.rank()) {
    lists.emplace_back(std::nullopt);
    listShapes.emplace_back();
  }
  std::vector<Sizes> shapes;
  for (size_t d : indexedDims) shapes.push_back(listShapes[d]);
  auto broadcast = broadcastShapes(shapes);
  if (!broadcast) return makeError("index tensors: " + broadcast.error().message);
  bool adjacent = true;
  for (size_t i = 1; i < indexedDims.size(); ++i) adjacent = adjacent && indexedDims[i] == indexedDims[i - 1] + 1;
  // Result layout: [kept before][B][kept after] when adjacent, else [B][kept].
  IndexPlan plan;
  const size_t insertAt = indexedDims.empty() ? 0 : adjacent ? indexedDims.front() : 0;
  std::vector<int> layout;  // per result dim: the self dim it walks, or -1 for a broadcast dim
  for (size_t d = 0; d < self.rank(); ++d) {
    if (d == insertAt && !indexedDims.empty())
      for (size_t b = 0; b < broadcast->size(); ++b) {
        layout.push_back(-1);
        plan.result_sizes.push_back((*broadcast)[b]);
      }
    if (lists[d]) continue;
    layout.push_back(int(d));
    plan.result_sizes.push_back(self.size(d));
  }
  if (insertAt >= self.rank() && !indexedDims.empty())
    for (int64_t b : *broadcast) {
      layout.push_back(-1);
      plan.result_sizes.push_back(b);
    }
  std::vector<Sizes> listStrides;
  for (size_t d : indexedDims) listStrides.push_back(broadcastStrides(listShapes[d], *broadcast));
  const Sizes selfStrides = contiguousStrides(self.sizes());
  const int64_t total = numelOf(plan.result_sizes);
  plan.offsets.resize(size_t(total));
  Sizes index(plan.result_sizes.size(), 0);
  // Stopped by Cancel, the offsets left are 0: in range, and the run is dropped.
  KernelCancelPoll cancelled;
  for (int64_t o = 0; o < total && !cancelled(); ++o) {
    int64_t offset = 0;
    size_t b = 0;
    std::vector<int64_t> bIndex;
    for (size_t r = 0; r < layout.size(); ++r) {
      if (layout[r] < 0)
        bIndex.push_back(index[r]);
      else
        offset += index[r] * selfStrides[size_t(layout[r])];
    }
    for (size_t i = 0; i < indexedDims.size(); ++i) {
      int64_t at = 0;
      for (b = 0; b < bIndex.size(); ++b) at += bIndex[b] * listStrides[i][b];
      offset += (*lists[indexedDims[i]])[size_t(at)] * selfStrides[indexedDims[i]];
    }
    plan.offsets[size_t(o)] = offset;
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < plan.result_sizes[d]) break;
      index[d] = 0;
    }
  }
  return plan;
}

// index.Tensor_out(self, indices?[], *, out).
KernelResult indexTensor(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  auto indices = a.optTensors(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  auto plan = planIndex(self, indices);
  if (!plan) return a.fail("index.Tensor: " + plan.error().message);
  if (auto status = resize(out, plan->result_sizes); !status) return status.error();
  KernelCancelPoll cancelled;
  for (size_t i = 0; i < plan->offsets.size() && !cancelled(); ++i) copyElement(out, int64_t(i), self, plan->offsets[i]);
  return KernelOutcome::done();
}

// index_put.out(self, indices?[], values, accumulate, *, out) and
// index_put_(self, indices?[], values, accumulate).
KernelResult indexPut(KernelContext& ctx, bool inPlace) {
  Args a(ctx);
  auto self = a.in(0);
  auto indices = a.optTensors(1);
  auto values = a.in(2);
  const bool accumulate = a.flag(3);
  auto out = inPlace ? a.out(0) : a.out(4);
  if (a.failed()) return a.outcome();
  auto plan = planIndex(self, indices);
  if (!plan) return a.fail("index_put: " + plan.error().message);
  auto shape = broadcastShapes({values.sizes(), plan->result_sizes});
  if (!shape || *shape != plan->result_sizes)
    return a.fail("index_put: values " + shapeText(values.sizes()) + " do not broadcast to " + shapeText(plan->result_sizes));
  if (!inPlace) {
    if (auto status = resize(out, self.sizes()); !status) return status.error();
    KernelCancelPoll cancelled;
    for (int64_t i = 0; i < self.numel() && !cancelled(); ++i) copyElement(out, i, self, i);
  }
  const Sizes strides = broadcastStrides(values.sizes(), plan->result_sizes);
  forEachIndex<1>(plan->result_sizes, {strides}, [&](int64_t i, const std::array<int64_t, 1>& off) {
    const int64_t target = plan->offsets[size_t(i)];
    if (accumulate)
      out.set(target, out.get(target) + values.get(off[0]));
    else
      copyElement(out, target, values, off[0]);
  });
  return KernelOutcome::done();
}

// index_select.out(self, dim, index, *, out).
KernelResult indexSelect(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const int64_t dimArg = a.integer(1);
  auto index = a.in(2);
  auto out = a.out(3);
  if (a.failed()) return a.outcome();
  auto dim = normalizeDim(dimArg, self.rank());
  if (!dim) return dim.error();
  if (index.rank() > 1) return a.fail("index_select: " + a.name(2) + " must be 0-D or 1-D");
  const Sizes base = self.rank() ? self.sizes() : Sizes{1};
  Sizes sizes = self.sizes();
  if (self.rank()) sizes[*dim] = index.numel();
  if (auto status = resize(out, sizes); !status) return status.error();
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < base.size(); ++d) {
    if (d < *dim) outer *= base[d];
    if (d > *dim) inner *= base[d];
  }
  const int64_t length = base[*dim];
  int64_t at = 0;
  KernelCancelPoll cancelled;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < index.numel(); ++k) {
      if (cancelled(inner)) return KernelOutcome::done();
      int64_t i = index.index(k);
      if (i < -length || i >= length) return a.fail("index_select: " + outOfRange(i, length, *dim));
      if (i < 0) i += length;
      for (int64_t j = 0; j < inner; ++j) copyElement(out, at++, self, (o * length + i) * inner + j);
    }
  return KernelOutcome::done();
}

// embedding.out(weight, indices, padding_idx, scale_grad_by_freq, sparse, *, out).
KernelResult embedding(KernelContext& ctx) {
  Args a(ctx);
  auto weight = a.in(0), indices = a.in(1);
  auto out = a.out(5);
  if (a.failed()) return a.outcome();
  if (weight.rank() != 2) return a.fail("embedding: weight " + a.name(0) + " must be 2-D, not " + shapeText(weight.sizes()));
  const int64_t rows = weight.size(0), dim = weight.size(1);
  Sizes sizes = indices.sizes();
  sizes.push_back(dim);
  if (auto status = resize(out, sizes); !status) return status.error();
  KernelCancelPoll cancelled;
  for (int64_t k = 0; k < indices.numel(); ++k) {
    if (cancelled(dim)) return KernelOutcome::done();
    const int64_t row = indices.index(k);
    if (row < 0 || row >= rows) return a.fail("embedding: " + outOfRange(row, rows, 0) + " of weight " + a.name(0));
    for (int64_t j = 0; j < dim; ++j) copyElement(out, k * dim + j, weight, row * dim + j);
  }
  return KernelOutcome::done();
}

// For gather/scatter: the self offset of index element `i` along `dim`.
struct AlongDim {
  Sizes index_sizes, self_strides, index_strides;
  size_t dim = 0;
  int64_t offset(const Operand& index, int64_t i, int64_t target) const {
    int64_t rest = i, offset = 0;
    for (size_t d = index_sizes.size(); d-- > 0;) {
      const int64_t coord = rest % index_sizes[d];
      rest /= index_sizes[d];
      offset += (d == dim ? target : coord) * self_strides[d];
    }
    (void)index;
    return offset;
  }
};

Result<AlongDim> planAlong(const Operand& self, size_t dim, const Operand& index) {
  if (index.rank() != self.rank() && !(index.rank() <= 1 && self.rank() <= 1))
    return makeError("index " + shapeText(index.sizes()) + " and self " + shapeText(self.sizes()) + " differ in rank");
  for (size_t d = 0; d < index.rank() && d < self.rank(); ++d)
    if (d != dim && index.size(d) > self.size(d)) return makeError("index " + shapeText(index.sizes()) + " is larger than self " + shapeText(self.sizes()));
  return AlongDim{index.rank() ? index.sizes() : Sizes{1}, self.rank() ? contiguousStrides(self.sizes()) : Sizes{1},
                  contiguousStrides(index.sizes()), dim};
}

// gather.out(self, dim, index, *, sparse_grad, out).
KernelResult gather(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const int64_t dimArg = a.integer(1);
  auto index = a.in(2);
  auto out = a.out(4);
  if (a.failed()) return a.outcome();
  auto dim = normalizeDim(dimArg, self.rank());
  if (!dim) return dim.error();
  auto plan = planAlong(self, *dim, index);
  if (!plan) return a.fail("gather: " + plan.error().message);
  if (auto status = resize(out, index.sizes()); !status) return status.error();
  const int64_t length = self.rank() ? self.size(*dim) : 1;
  KernelCancelPoll cancelled;
  for (int64_t i = 0; i < index.numel() && !cancelled(); ++i) {
    int64_t target = index.index(i);
    if (target < -length || target >= length) return a.fail("gather: " + outOfRange(target, length, *dim));
    if (target < 0) target += length;
    copyElement(out, i, self, plan->offset(index, i, target));
  }
  return KernelOutcome::done();
}

// scatter.src_out(self, dim, index, src, *, out), scatter.value_out(self, dim,
// index, value, *, out), scatter_add.out(self, dim, index, src, *, out).
KernelResult scatter(KernelContext& ctx, bool scalarValue, bool add) {
  Args a(ctx);
  auto self = a.in(0);
  const int64_t dimArg = a.integer(1);
  auto index = a.in(2);
  const auto [src, value] = a.inOrScalar(3, scalarValue);
  auto out = a.out(4);
  if (a.failed()) return a.outcome();
  auto dim = normalizeDim(dimArg, self.rank());
  if (!dim) return dim.error();
  auto plan = planAlong(self, *dim, index);
  if (!plan) return a.fail("scatter: " + plan.error().message);
  if (auto status = resize(out, self.sizes()); !status) return status.error();
  KernelCancelPoll cancelled;
  for (int64_t i = 0; i < self.numel() && !cancelled(); ++i) copyElement(out, i, self, i);
  const int64_t length = self.rank() ? self.size(*dim) : 1;
  const Sizes srcStrides = src ? contiguousStrides(src.sizes()) : Sizes{};
  for (int64_t i = 0; i < index.numel() && !cancelled(); ++i) {
    int64_t target = index.index(i);
    if (target < -length || target >= length) return a.fail("scatter: " + outOfRange(target, length, *dim));
    if (target < 0) target += length;
    const int64_t at = plan->offset(index, i, target);
    double v = value;
    if (src) {
      // The src element at the same coordinates as index element i.
      int64_t rest = i, offset = 0;
      for (size_t d = plan->index_sizes.size(); d-- > 0;) {
        offset += (rest % plan->index_sizes[d]) * (d < srcStrides.size() ? srcStrides[d] : 0);
        rest /= plan->index_sizes[d];
      }
      v = src.get(offset);
    }
    out.set(at, add ? out.get(at) + v : v);
  }
  return KernelOutcome::done();
}

// masked_scatter.out(self, mask, source, *, out): self and the bool mask
// broadcast to out; where the mask is set, the next element of source (in
// source's memory order), elsewhere self's element (op_masked_scatter.cpp).
KernelResult maskedScatter(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0), mask = a.in(1), source = a.in(2);
  auto out = a.out(3);
  if (a.failed()) return a.outcome();
  if (mask.dtype() != ScalarType::Bool) return a.fail("masked_scatter: mask " + a.name(1) + " must be bool");
  if (source.dtype() != self.dtype() || out.dtype() != self.dtype())
    return a.fail("masked_scatter: source " + a.name(2) + " and out " + a.name(3) + " must have the dtype of " + a.name(0));
  auto sizes = broadcastShapes({self.sizes(), mask.sizes()});
  if (!sizes) return sizes.error();
  if (auto status = resize(out, *sizes); !status) return status.error();
  int64_t next = 0;
  bool enough = true;
  forEachIndex<2>(*sizes, {broadcastStrides(self.sizes(), *sizes), broadcastStrides(mask.sizes(), *sizes)},
                  [&](int64_t i, const std::array<int64_t, 2>& off) {
                    if (mask.get(off[1]) != 0 && next < source.numel())
                      copyElement(out, i, source, next++);
                    else {
                      enough = enough && mask.get(off[1]) == 0;
                      copyElement(out, i, self, off[0]);
                    }
                  });
  if (!enough)
    return a.fail("masked_scatter: source " + a.name(2) + " doesn't have enough elements (" + std::to_string(source.numel()) +
                  ") for the set elements of the mask");
  return KernelOutcome::done();
}

}  // namespace

void addIndexingKernels(KernelRegistry& r) {
  r.add("aten::masked_scatter.out", maskedScatter);
  r.add("aten::index.Tensor_out", indexTensor);
  r.add("aten::index_put.out", [](KernelContext& c) { return indexPut(c, false); });
  r.add("aten::index_put_", [](KernelContext& c) { return indexPut(c, true); });
  r.add("aten::index_select.out", indexSelect);
  r.add("aten::embedding.out", embedding);
  r.add("aten::gather.out", gather);
  r.add("aten::scatter.src_out", [](KernelContext& c) { return scatter(c, false, false); });
  r.add("aten::scatter.value_out", [](KernelContext& c) { return scatter(c, true, false); });
  r.add("aten::scatter_add.out", [](KernelContext& c) { return scatter(c, false, true); });
}

}  // namespace ptescope::exec::kernels
