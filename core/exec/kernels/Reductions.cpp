// Reductions (sum, mean, prod, amax/amin, argmax/argmin, max/min over a
// dim, var, any, cumsum), softmax and log_softmax, and the norms
// (native_layer_norm, native_group_norm, batch norm in inference).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "exec/kernels/KernelSupport.h"

namespace ptescope::exec::kernels {
namespace {

// Folds every input element into its output element's accumulator.
template <class Step>
std::vector<double> accumulate(const Operand& self, const ReductionPlan& plan, double init, Step step) {
  std::vector<double> acc(size_t(numelOf(plan.out_sizes)), init);
  forEachIndex<1>(self.sizes(), {plan.out_strides},
                  [&](int64_t i, const std::array<int64_t, 1>& off) { step(acc[size_t(off[0])], self.get(i)); });
  return acc;
}

Status store(const Operand& out, const ReductionPlan& plan, const std::vector<double>& values) {
  if (auto status = resize(out, plan.out_sizes); !status) return status;
  for (size_t i = 0; i < values.size(); ++i) out.set(int64_t(i), values[i]);
  return Ok{};
}

// sum and mean as op_sum.cpp / op_mean.cpp: the accumulator ACC is float
// for float, half and bfloat16 outs and the out's own type otherwise
// (integers wrap); each element is cast to ACC and added in increasing index
// order. The general path starts each output from its first element, the fast
// path (a single innermost dim, one dtype in and out) from 0: they differ for
// a sum of -0.0 only. mean divides by the element count as a float.
template <class Acc>
void sumAs(const Operand& self, const ReductionPlan& plan, bool fromZero, bool mean, const Operand& out) {
  const size_t outputs = size_t(numelOf(plan.out_sizes));
  std::vector<Acc> acc(outputs, Acc(0));
  std::vector<bool> started(outputs, fromZero);
  forEachIndex<1>(self.sizes(), {plan.out_strides}, [&](int64_t i, const std::array<int64_t, 1>& off) {
    const size_t o = size_t(off[0]);
    const Acc x = elementAs<Acc>(self, i);
    acc[o] = started[o] ? acc[o] + x : x;
    started[o] = true;
  });
  for (size_t o = 0; o < outputs; ++o) {
    if constexpr (std::is_floating_point_v<Acc>) {
      if (mean) {
        out.set(int64_t(o), double(acc[o] / Acc(float(plan.group))));
        continue;
      }
    }
    setElement(out, int64_t(o), acc[o]);
  }
}

enum class Fold { Sum, Mean, Prod, Max, Min, Any };

KernelResult reduce(Args& a, const Operand& self, const std::optional<std::vector<int64_t>>& dims, bool keepdim,
                    const Operand& out, Fold fold) {
  if (a.failed()) return a.outcome();
  auto plan = planReduction(self.sizes(), dims, keepdim);
  if (!plan) return plan.error();
  if ((fold == Fold::Max || fold == Fold::Min) && plan->group == 0 && numelOf(plan->out_sizes) > 0)
    return a.fail("amax/amin: cannot reduce an empty dimension of " + a.name(0));
  std::vector<double> values;
  switch (fold) {
    case Fold::Sum:
    case Fold::Mean: {
      if (auto status = resize(out, plan->out_sizes); !status) return status.error();
      const bool mean = fold == Fold::Mean;
      if (mean && !isFloating(out.dtype())) return a.fail("mean: out " + a.name(a.context().argCount() - 1) + " is not floating-point");
      // The fast path: one innermost dim of a non-empty tensor, the same dtype in and out.
      size_t reducedDims = 0;
      for (bool r : plan->reduced) reducedDims += r;
      const bool fromZero = dims && dims->size() == 1 && reducedDims == 1 && plan->reduced.back() &&
                            self.numel() > 0 && self.dtype() == out.dtype();
      const ScalarType o = out.dtype();
      if (o == ScalarType::Bool) break;  // a bool sum is "any": through double below
      if (isFloating(o) && o != ScalarType::Double)
        sumAs<float>(self, *plan, fromZero, mean, out);
      else if (!withElementType(o, [&]<class T>(T) { sumAs<T>(self, *plan, fromZero, mean, out); }))
        return a.fail("sum: out " + a.name(a.context().argCount() - 1) + " has a dtype the kernel does not take");
      return KernelOutcome::done();
    }
    case Fold::Prod: {
      // As op_prod.cpp: each output starts at 1 and multiplies in every element
      // cast to the out's type, in index order, in that type (half and
      // bfloat16 round every step, integers wrap); a bool out is their "all".
      if (auto status = resize(out, plan->out_sizes); !status) return status.error();
      const bool typed = withElementType(out.dtype(), [&]<class T>(T) {
        std::vector<T> acc(size_t(numelOf(plan->out_sizes)), T(1.0));
        forEachIndex<1>(self.sizes(), {plan->out_strides}, [&](int64_t i, const std::array<int64_t, 1>& off) {
          acc[size_t(off[0])] = acc[size_t(off[0])] * elementAs<T>(self, i);
        });
        for (size_t o = 0; o < acc.size(); ++o) setElement(out, int64_t(o), acc[o]);
      });
      if (typed) return KernelOutcome::done();
      values = accumulate(self, *plan, 1.0, [](double& acc, double x) { acc = (acc != 0 && x != 0) ? 1.0 : 0.0; });
      break;
    }
    case Fold::Max:
    case Fold::Min:
      // Integers compared as integers (through double, int64 beyond 2^53 rounds:
      // max of INT64_MAX was INT64_MIN); every output has an element here.
      if (isIntegral(self.dtype(), true) && isIntegral(out.dtype(), true) && plan->group > 0) {
        if (auto status = resize(out, plan->out_sizes); !status) return status.error();
        const bool maximum = fold == Fold::Max;
        std::vector<std::optional<int64_t>> acc(size_t(numelOf(plan->out_sizes)));
        forEachIndex<1>(self.sizes(), {plan->out_strides}, [&](int64_t i, const std::array<int64_t, 1>& off) {
          const int64_t x = self.integerAt(i);
          auto& best = acc[size_t(off[0])];
          if (!best || (maximum ? x > *best : x < *best)) best = x;
        });
        for (size_t o = 0; o < acc.size(); ++o) out.setInteger(int64_t(o), acc[o].value_or(0));
        return KernelOutcome::done();
      }
      if (fold == Fold::Min) {
        values = accumulate(self, *plan, INFINITY, [](double& acc, double x) {
          if (std::isnan(x) || x < acc) acc = std::isnan(acc) ? acc : x;
        });
        break;
      }
      values = accumulate(self, *plan, -INFINITY, [](double& acc, double x) {
        if (std::isnan(x) || x > acc) acc = std::isnan(acc) ? acc : x;
      });
      break;
    case Fold::Any:
      values = accumulate(self, *plan, 0.0, [](double& acc, double x) { acc = (acc != 0 || x != 0) ? 1.0 : 0.0; });
      break;
  }
  if (fold == Fold::Sum && values.empty())  // a bool sum: true where any element is
    values = accumulate(self, *plan, 0.0, [](double& acc, double x) { acc = (acc != 0 || x != 0) ? 1.0 : 0.0; });
  if (auto status = store(out, *plan, values); !status) return status.error();
  return KernelOutcome::done();
}

// sum.IntList_out / mean.out(self, dim?, keepdim, *, dtype?, out).
KernelResult sumOrMean(KernelContext& ctx, Fold fold) {
  Args a(ctx);
  auto self = a.in(0);
  auto dims = a.optInts(1);
  const bool keepdim = a.flag(2);
  auto out = a.out(4);
  return reduce(a, self, dims, keepdim, out, fold);
}

// Walks the elements along `dim` of each (outer, inner) line.
struct Lines {
  int64_t outer = 1, length = 1, inner = 1;
  Lines(const Sizes& sizes, size_t dim) {
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (d < dim) outer *= sizes[d];
      if (d == dim) length = sizes[d];
      if (d > dim) inner *= sizes[d];
    }
  }
  int64_t count() const { return outer * inner; }
  int64_t base(int64_t line) const { return (line / inner) * length * inner + line % inner; }
};

Sizes reducedSizes(const Sizes& sizes, size_t dim, bool keepdim) {
  Sizes out;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (d != dim)
      out.push_back(sizes[d]);
    else if (keepdim)
      out.push_back(1);
  return out;
}

// The position and value of the max (or min) of each line; NaN wins, the
// first occurrence wins ties.
template <class Emit>
KernelResult extremeAlong(Args& a, const Operand& self, std::optional<int64_t> dim, bool keepdim, bool maximum, Emit emit) {
  const Sizes flat{self.numel()};
  const Sizes& sizes = dim ? self.sizes() : flat;
  size_t d = 0;
  if (dim) {
    auto normalized = normalizeDim(*dim, sizes.size());
    if (!normalized) return normalized.error();
    d = sizes.empty() ? 0 : *normalized;
  }
  const Lines lines(sizes.empty() ? Sizes{1} : sizes, d);
  if (lines.length == 0) return a.fail("cannot take the arg max/min over an empty dimension of " + a.name(0));
  Sizes outSizes = dim ? (sizes.empty() ? Sizes{} : reducedSizes(sizes, d, keepdim))
                       : (keepdim ? Sizes(self.rank(), 1) : Sizes{});
  std::vector<std::pair<int64_t, double>> results;
  KernelCancelPoll cancelled;
  for (int64_t line = 0; line < lines.count(); ++line) {
    if (cancelled(lines.length)) return KernelOutcome::done();  // the run is dropped: nothing to emit
    const int64_t base = lines.base(line);
    int64_t best = 0;
    double value = self.get(base);
    for (int64_t k = 1; k < lines.length; ++k) {
      const double x = self.get(base + k * lines.inner);
      if (std::isnan(value)) break;
      if (std::isnan(x) || (maximum ? x > value : x < value)) {
        best = k;
        value = x;
      }
    }
    results.emplace_back(best, value);
  }
  return emit(outSizes, results);
}

// argmax.out / argmin.out(self, dim?, keepdim, *, out).
KernelResult argExtreme(KernelContext& ctx, bool maximum) {
  Args a(ctx);
  auto self = a.in(0);
  const auto dim = a.optInteger(1);
  const bool keepdim = a.flag(2);
  auto out = a.out(3);
  if (a.failed()) return a.outcome();
  return extremeAlong(a, self, dim, keepdim, maximum, [&](const Sizes& sizes, const auto& results) -> KernelResult {
    if (auto status = resize(out, sizes); !status) return status.error();
    for (size_t i = 0; i < results.size(); ++i) out.set(int64_t(i), double(results[i].first));
    return KernelOutcome::done();
  });
}

// max.dim_max / min.dim_min(self, dim, keepdim, *, values, indices).
KernelResult extremeDim(KernelContext& ctx, bool maximum) {
  Args a(ctx);
  auto self = a.in(0);
  const int64_t dim = a.integer(1);
  const bool keepdim = a.flag(2);
  auto values = a.out(3), indices = a.out(4);
  if (a.failed()) return a.outcome();
  return extremeAlong(a, self, dim, keepdim, maximum, [&](const Sizes& sizes, const auto& results) -> KernelResult {
    if (auto status = resize(values, sizes); !status) return status.error();
    if (auto status = resize(indices, sizes); !status) return status.error();
    for (size_t i = 0; i < results.size(); ++i) {
      values.set(int64_t(i), results[i].second);
      indices.set(int64_t(i), double(results[i].first));
    }
    return KernelOutcome::done();
  });
}

// var.correction_out(self, dim?, *, correction?, keepdim, out) and
// var.out(self, dim?, unbiased, keepdim, *, out).
KernelResult variance(KernelContext& ctx, bool correctionForm) {
  Args a(ctx);
  auto self = a.in(0);
  const auto dims = a.optInts(1);
  double correction = 1;
  if (correctionForm)
    correction = a.optScalar(2).value_or(1.0);
  else
    correction = a.flag(2) ? 1.0 : 0.0;
  const bool keepdim = a.flag(3);
  auto out = a.out(4);
  if (a.failed()) return a.outcome();
  auto plan = planReduction(self.sizes(), dims, keepdim);
  if (!plan) return plan.error();
  if (!isFloating(self.dtype()) || !isFloating(out.dtype()))
    return a.fail("var: " + a.name(0) + " and out " + a.name(4) + " must be floating-point tensors");
  if (auto status = resize(out, plan->out_sizes); !status) return status.error();
  // As compute_variance (op_var.cpp) in the out's element type T (half and
  // bfloat16 rounding every step): the sum from each output's first element,
  // mean = sum / T(n), the squared deviations summed the same way, then
  // divided by the double denominator n - correction (NaN when it is not
  // positive or nothing is reduced).
  const size_t outputs = size_t(numelOf(plan->out_sizes));
  const double n = double(plan->group), denominator = n - correction;
  const auto compute = [&]<class T>(T) {
    std::vector<T> sums(outputs, T(0)), squares(outputs, T(0));
    std::vector<bool> started(outputs, false), startedSquares(outputs, false);
    forEachIndex<1>(self.sizes(), {plan->out_strides}, [&](int64_t i, const std::array<int64_t, 1>& off) {
      const size_t o = size_t(off[0]);
      sums[o] = started[o] ? sums[o] + T(self.get(i)) : T(self.get(i));
      started[o] = true;
    });
    for (T& v : sums) v = v / T(n);
    forEachIndex<1>(self.sizes(), {plan->out_strides}, [&](int64_t i, const std::array<int64_t, 1>& off) {
      const size_t o = size_t(off[0]);
      const T d = (T(self.get(i)) - sums[o]) * (T(self.get(i)) - sums[o]);
      squares[o] = startedSquares[o] ? squares[o] + d : d;
      startedSquares[o] = true;
    });
    for (size_t o = 0; o < outputs; ++o)
      out.set(int64_t(o), plan->group == 0 || denominator <= 0 ? NAN : double(squares[o]) / denominator);
  };
  withElementType(out.dtype(), [&]<class T>(T) {
    if constexpr (!requires { typename T::is_wrapped; }) compute(T{});
  });
  return KernelOutcome::done();
}

// The arithmetic of the portable var_mean (op_var_mean.cpp) in the output's
// element type T (`round` rounds as that type: half and bfloat16 after every
// operation): per output element, the sum of its inputs in memory order
// starting from the first, mean = sum / num, then the sum of (x - mean)^2 in
// the same order. The variance divides by the denominator in double, except
// on upstream's fast path (one dimension, the last, input dtype = output
// dtype), which divides by the denominator converted to T.
template <class T, class Round>
void varMean(const Operand& self, const ReductionPlan& plan, double denominator, bool fastPath, Round round,
             std::vector<double>& variances, std::vector<double>& means) {
  const size_t outputs = size_t(numelOf(plan.out_sizes));
  const T num = round(static_cast<T>(plan.group));
  std::vector<T> sums(outputs, T(0)), mean(outputs), squares(outputs, T(0));
  std::vector<bool> started(outputs, false);
  const auto fold = [&](std::vector<T>& acc, auto map) {
    std::fill(started.begin(), started.end(), false);
    forEachIndex<1>(self.sizes(), {plan.out_strides}, [&](int64_t i, const std::array<int64_t, 1>& off) {
      const size_t o = size_t(off[0]);
      const T value = map(round(static_cast<T>(self.get(i))), o);
      acc[o] = started[o] ? round(acc[o] + value) : value;
      started[o] = true;
    });
  };
  fold(sums, [](T x, size_t) { return x; });
  for (size_t o = 0; o < outputs; ++o) mean[o] = round(sums[o] / num);
  fold(squares, [&](T x, size_t o) {
    const T d = round(x - mean[o]);
    return round(d * d);
  });
  means.assign(mean.begin(), mean.end());
  variances.resize(outputs);
  for (size_t o = 0; o < outputs; ++o)
    variances[o] = fastPath ? double(round(squares[o] / round(static_cast<T>(denominator))))
                            : double(squares[o]) / denominator;
}

// var_mean.correction_out(self, dim?, *, correction?, keepdim, out0 (var), out1 (mean)).
KernelResult varMeanKernel(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const auto dims = a.optInts(1);
  const double correction = a.optScalar(2).value_or(1.0);
  const bool keepdim = a.flag(3);
  auto var = a.out(4), mean = a.out(5);
  if (a.failed()) return a.outcome();
  for (const auto& [t, arg] : {std::pair{&self, size_t(0)}, std::pair{&var, size_t(4)}})
    if (!isFloating(t->dtype())) return a.fail("var_mean: " + a.name(arg) + " is not a floating-point tensor");
  if (mean.dtype() != var.dtype()) return a.fail("var_mean: " + a.name(5) + " does not have the dtype of " + a.name(4));
  auto plan = planReduction(self.sizes(), dims, keepdim);
  if (!plan) return plan.error();
  if (auto status = resize(var, plan->out_sizes); !status) return status.error();
  if (auto status = resize(mean, plan->out_sizes); !status) return status.error();
  const double denominator = double(plan->group) - correction;
  std::vector<double> variances, means;
  if (plan->group == 0 || denominator <= 0) {
    variances.assign(size_t(numelOf(plan->out_sizes)), NAN);
    means = variances;
  } else if (self.numel() > 0) {
    const bool fastPath = dims && dims->size() == 1 && self.rank() > 0 && self.dtype() == var.dtype() &&
                          ((*dims)[0] == int64_t(self.rank()) - 1 || (*dims)[0] == -1);
    switch (var.dtype()) {
      case ScalarType::Double:
        varMean<double>(self, *plan, denominator, fastPath, [](double v) { return v; }, variances, means);
        break;
      case ScalarType::Half:
        varMean<float>(self, *plan, denominator, fastPath, [](float v) { return halfToFloat(floatToHalf(v)); }, variances, means);
        break;
      case ScalarType::BFloat16:
        varMean<float>(self, *plan, denominator, fastPath, [](float v) { return bfloat16ToFloat(floatToBfloat16(v)); }, variances,
                       means);
        break;
      default:
        varMean<float>(self, *plan, denominator, fastPath, [](float v) { return v; }, variances, means);
        break;
    }
  }
  for (size_t i = 0; i < variances.size(); ++i) {
    var.set(int64_t(i), variances[i]);
    mean.set(int64_t(i), means[i]);
  }
  return KernelOutcome::done();
}

// One line of topk as upstream's perform_topk (op_topk.cpp): (value, position)
// pairs ordered on the value only, NaN above every number, with the same
// standard algorithms (std::partial_sort when k * 64 <= the line's length,
// else std::nth_element, then std::sort of the first k - 1 when sorted), so
// equal values come out in the same order as the runtime's (the same C++
// library: libstdc++); values are copied as bytes from their positions.
template <class T>
void topkLine(const Operand& self, const Operand& values, const Operand& indices, int64_t baseIn, int64_t baseOut, int64_t stride,
              int64_t length, int64_t k, bool largest, bool sorted, std::vector<std::pair<T, int64_t>>& queue) {
  using Elem = std::pair<T, int64_t>;
  for (int64_t i = 0; i < length; ++i) {
    const int64_t at = baseIn + i * stride;
    if constexpr (std::is_integral_v<T>)
      queue[size_t(i)] = {self.index(at), i};
    else
      queue[size_t(i)] = {self.get(at), i};
  }
  bool (*greater)(const Elem&, const Elem&) = [](const Elem& x, const Elem& y) {
    return (!std::is_integral_v<T> && !std::isnan(double(y.first)) && std::isnan(double(x.first))) || y.first < x.first;
  };
  bool (*lesser)(const Elem&, const Elem&) = [](const Elem& x, const Elem& y) {
    return (!std::is_integral_v<T> && !std::isnan(double(x.first)) && std::isnan(double(y.first))) || x.first < y.first;
  };
  const auto cmp = largest ? greater : lesser;
  auto* first = queue.data();
  if (k * 64 <= length) {
    std::partial_sort(first, first + k, first + length, cmp);
  } else {
    std::nth_element(first, first + k - 1, first + length, cmp);
    if (sorted) std::sort(first, first + k - 1, cmp);
  }
  for (int64_t i = 0; i < k; ++i) {
    copyElement(values, baseOut + i * stride, self, baseIn + queue[size_t(i)].second * stride);
    indices.set(baseOut + i * stride, double(queue[size_t(i)].second));
  }
}

// topk.values(self, k, dim, largest, sorted, *, values, indices).
KernelResult topk(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const int64_t k = a.integer(1), dimArg = a.integer(2);
  const bool largest = a.flag(3), sorted = a.flag(4);
  auto values = a.out(5), indices = a.out(6);
  if (a.failed()) return a.outcome();
  if (values.dtype() != self.dtype()) return a.fail("topk: values " + a.name(5) + " does not have the dtype of " + a.name(0));
  if (indices.dtype() != ScalarType::Long) return a.fail("topk: indices " + a.name(6) + " must be int64");
  if (self.dtype() == ScalarType::Bool) return a.fail("topk: " + a.name(0) + " is bool, which topk does not take");
  auto dimIndex = normalizeDim(dimArg, self.rank());
  if (!dimIndex) return dimIndex.error();
  const size_t dim = self.rank() ? *dimIndex : 0;
  const int64_t length = self.rank() ? self.size(dim) : 1;
  const int64_t nonempty = std::max<int64_t>(length, 1);
  if (k < 0 || k > nonempty)
    return a.fail("topk: selected index k out of range; k = " + std::to_string(k) + ", dim = " + std::to_string(dim) + " of size " +
                  std::to_string(length));
  Sizes sizes = self.sizes();
  if (!sizes.empty()) sizes[dim] = k;
  if (auto status = resize(values, sizes); !status) return status.error();
  if (auto status = resize(indices, sizes); !status) return status.error();
  if (self.numel() == 0 || (k == 0 && self.rank() > 0)) return KernelOutcome::done();
  if (self.rank() == 0) {
    copyElement(values, 0, self, 0);
    indices.set(0, 0);
    return KernelOutcome::done();
  }
  const Lines lines(self.sizes(), dim);
  const bool integral = !isFloating(self.dtype());
  std::vector<std::pair<double, int64_t>> realQueue(integral ? 0 : size_t(length));
  std::vector<std::pair<int64_t, int64_t>> intQueue(integral ? size_t(length) : 0);
  KernelCancelPoll cancelled;
  for (int64_t line = 0; line < lines.count(); ++line) {
    if (cancelled(length)) return KernelOutcome::done();
    const int64_t baseIn = lines.base(line);
    const int64_t baseOut = (line / lines.inner) * k * lines.inner + line % lines.inner;
    if (integral)
      topkLine(self, values, indices, baseIn, baseOut, lines.inner, length, k, largest, sorted, intQueue);
    else
      topkLine(self, values, indices, baseIn, baseOut, lines.inner, length, k, largest, sorted, realQueue);
  }
  return KernelOutcome::done();
}

// The kernels that turn each line along `dim` into a line of the same
// length: (self, dim, ..., *, out) with out at argument 3. scan(self, out,
// first element, lines) fills one line.
template <class Scan>
KernelResult scanLines(KernelContext& ctx, Scan scan) {
  Args a(ctx);
  auto self = a.in(0);
  const int64_t dimArg = a.integer(1);
  auto out = a.out(3);
  if (a.failed()) return a.outcome();
  auto dim = normalizeDim(dimArg, self.rank());
  if (!dim) return dim.error();
  if (auto status = resize(out, self.sizes()); !status) return status.error();
  const Lines lines(self.rank() ? self.sizes() : Sizes{1}, self.rank() ? *dim : 0);
  KernelCancelPoll cancelled;
  for (int64_t line = 0; line < lines.count() && !cancelled(lines.length); ++line) scan(self, out, lines.base(line), lines);
  return KernelOutcome::done();
}

// cumsum.out(self, dim, *, dtype?, out).
KernelResult cumsum(KernelContext& ctx) {
  // As op_cumsum.cpp: out[k] = self[k] + out[k - 1] in out's element type
  // (float32 rounds in float, half and bfloat16 every step, integers wrap).
  return scanLines(ctx, [](const Operand& self, const Operand& out, int64_t base, const Lines& lines) {
    const bool typed = withElementType(out.dtype(), [&]<class T>(T) {
      T sum(0);
      for (int64_t k = 0; k < lines.length; ++k) {
        const T x = elementAs<T>(self, base + k * lines.inner);
        sum = k == 0 ? x : x + sum;
        setElement(out, base + k * lines.inner, sum);
      }
    });
    if (typed) return;
    double sum = 0;  // bool
    for (int64_t k = 0; k < lines.length; ++k) {
      sum += self.get(base + k * lines.inner);
      out.set(base + k * lines.inner, sum);
    }
  });
}

// One line of _softmax / _log_softmax as the portable kernel computes it
// (op_softmax.cpp, op_log_softmax.cpp): the maximum taken in the element
// type with std::max(x, acc) from the first element on, exp(x - max) summed
// in line order in Acc (float for float32, half and bfloat16; double for
// float64), std::exp / std::log of Acc, each result rounded to the element
// type once.
template <class Acc>
void softmaxLine(const Operand& self, const Operand& out, int64_t base, const Lines& lines, bool logarithmic) {
  const auto x = [&](int64_t k) { return static_cast<Acc>(self.get(base + k * lines.inner)); };
  Acc maximum = x(0);
  for (int64_t k = 1; k < lines.length; ++k) maximum = std::max(x(k), maximum);
  Acc sum = std::exp(x(0) - maximum);
  for (int64_t k = 1; k < lines.length; ++k) sum = sum + std::exp(x(k) - maximum);
  const Acc logSum = std::log(sum);
  for (int64_t k = 0; k < lines.length; ++k) {
    const Acc y = logarithmic ? x(k) - maximum - logSum : std::exp(x(k) - maximum) / sum;
    out.set(base + k * lines.inner, double(y));
  }
}

// _softmax.out / _log_softmax.out(self, dim, half_to_float, *, out).
KernelResult softmax(KernelContext& ctx, bool logarithmic) {
  Args a(ctx);
  auto self = a.inAnyLayout(0);
  const int64_t dimArg = a.integer(1);
  const bool halfToFloat = a.flag(2);
  auto out = a.outAnyLayout(3);
  if (a.failed()) return a.outcome();
  const std::string name = logarithmic ? "_log_softmax" : "_softmax";
  if (halfToFloat) return a.fail(name + ": half to float conversion is not supported on CPU (half_to_float=True)");
  if (!isFloating(self.dtype())) return a.fail(name + ": " + a.name(0) + " is not a floating-point tensor");
  if (out.dtype() != self.dtype()) return a.fail(name + ": out " + a.name(3) + " does not have the dtype of " + a.name(0));
  const auto orderOf = [](const Operand& t) { return t.tensor->default_dim_order ? std::vector<int64_t>{} : t.tensor->dim_order; };
  const auto inOrder = orderOf(self);
  if (self.rank() > 1 && inOrder != orderOf(out) && !(inOrder.empty() || orderOf(out).empty()))
    return a.fail(name + ": out " + a.name(3) + " does not have the dim order of " + a.name(0));
  auto dim = normalizeDim(dimArg, self.rank());
  if (!dim) return dim.error();
  if (auto status = resize(out, self.sizes()); !status) return status.error();
  if (self.numel() == 0) return KernelOutcome::done();
  // upstream's apply_over_dim: lines of the dimension's size, `stride` apart
  // in memory, where stride is the dimension's stride under the dim order;
  // on channels_last that walks only part of the tensor, as the runtime does.
  Lines lines(self.rank() ? self.sizes() : Sizes{1}, self.rank() ? *dim : 0);
  if (self.rank() > 1 && !inOrder.empty()) lines.inner = stridesForDimOrder(self.sizes(), inOrder)[*dim];
  if (lines.outer * lines.length * lines.inner > self.numel())
    return a.fail(name + ": on " + a.name(0) + "'s dim order, dim " + std::to_string(*dim) +
                  " makes upstream's apply_over_dim walk past the end of the tensor (the runtime reads and writes outside it "
                  "and corrupts memory); export it contiguous");
  KernelCancelPoll cancelled;
  for (int64_t line = 0; line < lines.count(); ++line) {
    if (cancelled(3 * lines.length)) return KernelOutcome::done();
    if (self.dtype() == ScalarType::Double)
      softmaxLine<double>(self, out, lines.base(line), lines, logarithmic);
    else
      softmaxLine<float>(self, out, lines.base(line), lines, logarithmic);
  }
  return KernelOutcome::done();
}

// native_layer_norm.out(input, normalized_shape, weight?, bias?, eps, *, out, mean, rstd).
KernelResult layerNorm(KernelContext& ctx) {
  Args a(ctx);
  auto input = a.in(0);
  const auto normalized = a.ints(1);
  const auto weight = a.optIn(2), bias = a.optIn(3);
  const double eps = a.scalar(4);
  auto out = a.out(5), mean = a.out(6), rstd = a.out(7);
  if (a.failed()) return a.outcome();
  const auto& sizes = input.sizes();
  if (normalized.size() > sizes.size() ||
      !std::equal(normalized.begin(), normalized.end(), sizes.end() - std::ptrdiff_t(normalized.size())))
    return a.fail("native_layer_norm: normalized_shape " + shapeText(normalized) + " is not the trailing sizes of " +
                  a.name(0) + " " + shapeText(sizes));
  const size_t axis = sizes.size() - normalized.size();
  int64_t rows = 1, columns = 1;
  for (size_t d = 0; d < sizes.size(); ++d) (d < axis ? rows : columns) *= sizes[d];
  Sizes statSizes(sizes.begin(), sizes.begin() + std::ptrdiff_t(axis));
  statSizes.resize(sizes.size(), 1);
  for (const auto& affine : {weight, bias})
    if (affine && affine->numel() != columns)
      return a.fail("native_layer_norm: weight/bias %" + std::to_string(affine->tensor->value) + " has " +
                    std::to_string(affine->numel()) + " elements, the normalized shape " + std::to_string(columns));
  if (auto status = resize(out, sizes); !status) return status.error();
  if (auto status = resize(mean, statSizes); !status) return status.error();
  if (auto status = resize(rstd, statSizes); !status) return status.error();
  KernelCancelPoll cancelled;
  for (int64_t r = 0; r < rows; ++r) {
    if (cancelled(3 * columns)) return KernelOutcome::done();
    double sum = 0;
    for (int64_t c = 0; c < columns; ++c) sum += input.get(r * columns + c);
    const double m = columns ? sum / double(columns) : 0.0;
    double squares = 0;
    for (int64_t c = 0; c < columns; ++c) {
      const double d = input.get(r * columns + c) - m;
      squares += d * d;
    }
    const double inverse = 1.0 / std::sqrt((columns ? squares / double(columns) : 0.0) + eps);
    for (int64_t c = 0; c < columns; ++c) {
      double y = (input.get(r * columns + c) - m) * inverse;
      if (weight) y *= weight->get(c);
      if (bias) y += bias->get(c);
      out.set(r * columns + c, y);
    }
    mean.set(r, m);
    rstd.set(r, inverse);
  }
  return KernelOutcome::done();
}

// native_group_norm.out(input, weight?, bias?, N, C, HxW, group, eps, *, out, mean, rstd).
KernelResult groupNorm(KernelContext& ctx) {
  Args a(ctx);
  auto input = a.in(0);
  const auto weight = a.optIn(1), bias = a.optIn(2);
  const int64_t n = a.integer(3), c = a.integer(4), hxw = a.integer(5), groups = a.integer(6);
  const double eps = a.scalar(7);
  auto out = a.out(8), mean = a.out(9), rstd = a.out(10);
  if (a.failed()) return a.outcome();
  if (groups <= 0 || c % groups != 0 || n * c * hxw != input.numel())
    return a.fail("native_group_norm: N=" + std::to_string(n) + " C=" + std::to_string(c) + " HxW=" + std::to_string(hxw) +
                  " group=" + std::to_string(groups) + " do not fit " + a.name(0) + " " + shapeText(input.sizes()));
  if (auto status = resize(out, input.sizes()); !status) return status.error();
  if (auto status = resize(mean, {n, groups}); !status) return status.error();
  if (auto status = resize(rstd, {n, groups}); !status) return status.error();
  // As op_native_group_norm.cpp: per group, the sum and the sum of squares in a
  // float (vec_ops.h's reduce_add and vec_powerf: for double inputs each step in
  // double, then kept in the float), mean and variance E[x²] - E[x]² in double,
  // rstd = 1 / sqrt(var + eps); out = scale * x + beta with scale = rstd * weight
  // and beta = -scale * mean + bias in double (or (x - mean) * rstd without
  // weight and bias), cast to the element type.
  const int64_t perGroup = (c / groups) * hxw;
  const bool isDouble = input.dtype() == ScalarType::Double;
  KernelCancelPoll cancelled;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t g = 0; g < groups; ++g) {
      if (cancelled(2 * perGroup)) return KernelOutcome::done();
      const int64_t base = (b * groups + g) * perGroup;
      if (perGroup == 0) {
        mean.set(b * groups + g, 0.0);
        rstd.set(b * groups + g, NAN);
        continue;
      }
      float sum = 0, squares = 0;
      for (int64_t i = 0; i < perGroup; ++i) {
        const double x = input.get(base + i);
        sum = float(double(sum) + x);
        const double square = isDouble ? double(float(x)) * x : double(float(x) * float(x));
        squares = float(double(squares) + square);
      }
      const double m = double(sum) / double(perGroup);
      const double variance = double(squares) / double(perGroup) - m * m;
      const double inverse = 1.0 / std::sqrt(variance + eps);
      for (int64_t i = 0; i < perGroup; ++i) {
        const int64_t channel = g * (c / groups) + i / hxw;
        const double x = input.get(base + i);
        if (!weight && !bias) {
          out.set(base + i, (x - m) * inverse);
          continue;
        }
        const double scale = inverse * (weight ? weight->get(channel) : 1.0);
        const double beta = -scale * m + (bias ? bias->get(channel) : 0.0);
        out.set(base + i, scale * x + beta);
      }
      mean.set(b * groups + g, m);
      rstd.set(b * groups + g, inverse);
    }
  }
  return KernelOutcome::done();
}

// _native_batch_norm_legit_no_training.out(input, weight?, bias?, running_mean,
// running_var, momentum, eps, *, out, save_mean, save_invstd).
KernelResult batchNormInference(KernelContext& ctx) {
  Args a(ctx);
  auto input = a.in(0);
  const auto weight = a.optIn(1), bias = a.optIn(2);
  auto runningMean = a.in(3), runningVar = a.in(4);
  const double eps = a.scalar(6);
  auto out = a.out(7), saveMean = a.out(8), saveInvstd = a.out(9);
  if (a.failed()) return a.outcome();
  if (input.rank() < 2) return a.fail("batch norm: " + a.name(0) + " needs at least 2 dimensions");
  const int64_t channels = input.size(1);
  if (runningMean.numel() != channels || runningVar.numel() != channels)
    return a.fail("batch norm: running statistics do not have " + std::to_string(channels) + " channels");
  if (auto status = resize(out, input.sizes()); !status) return status.error();
  // The portable kernel leaves the saved statistics empty.
  (void)resize(saveMean, {0});
  (void)resize(saveInvstd, {0});
  int64_t inner = 1;
  for (size_t d = 2; d < input.rank(); ++d) inner *= input.size(d);
  // As op_native_batch_norm.cpp in the element type CTYPE:
  // invstd = 1.0 / std::sqrt(var + eps) in double (eps is a double) and cast
  // to CTYPE, then (x - mean) * invstd * weight + bias left to right in CTYPE.
  KernelCancelPoll cancelled;
  const auto normalize = [&]<class T>(T) {
    for (int64_t i = 0; i < input.numel() && !cancelled(); ++i) {
      const int64_t ch = (i / inner) % channels;
      const T mean = T(runningMean.get(ch)), var = T(runningVar.get(ch));
      const T invstd = T(1.0 / std::sqrt(double(var) + eps));
      const T w = weight ? T(weight->get(ch)) : T(1), b = bias ? T(bias->get(ch)) : T(0);
      out.set(i, double((T(input.get(i)) - mean) * invstd * w + b));
    }
  };
  // Half and bfloat16 as c10's operators: each step rounded to 16 bits, var + eps in double.
  if (!isFloating(input.dtype()) || !withElementType(input.dtype(), normalize))
    return a.fail("batch norm: " + a.name(0) + " is not a floating-point tensor");
  return KernelOutcome::done();
}

// prod.out(self, *, dtype?, out) and prod.int_out(self, dim, keepdim, *,
// dtype?, out), with check_prod_out_args / check_reduction_args_single_dim:
// a dtype given must be out's; prod.out of an integer or bool tensor without
// one must have an int64 out, of a floating one out must have its dtype.
Kernel prodKernel(bool overDim) {
  return [overDim](KernelContext& c) -> KernelResult {
    Args a(c);
    auto self = a.in(0);
    const size_t dtypeArg = overDim ? 3 : 1;
    const auto dtype = a.optDtype(dtypeArg);
    auto out = a.out(dtypeArg + 1);
    std::optional<std::vector<int64_t>> dims;
    bool keepdim = false;
    if (overDim) {
      dims = std::vector<int64_t>{a.integer(1)};
      keepdim = a.flag(2);
    }
    if (a.failed()) return a.outcome();
    if (dtype && *dtype != out.dtype())
      return a.fail("prod: out " + a.name(dtypeArg + 1) + " does not have the dtype argument's type");
    if (!overDim && !dtype) {
      const bool integral = !isFloating(self.dtype());
      if (integral && out.dtype() != ScalarType::Long)
        return a.fail("prod: the product of the integer tensor " + a.name(0) + " needs an int64 out (or a dtype)");
      if (!integral && out.dtype() != self.dtype())
        return a.fail("prod: out " + a.name(dtypeArg + 1) + " does not have the dtype of " + a.name(0));
    }
    return reduce(a, self, dims, keepdim, out, Fold::Prod);
  };
}

// (self, ..., *, out): every element folded into one; out at `outArg`.
Kernel reduceAll(Fold fold, size_t outArg) {
  return [fold, outArg](KernelContext& c) {
    Args a(c);
    auto self = a.in(0);
    auto out = a.out(outArg);
    return reduce(a, self, std::nullopt, false, out, fold);
  };
}

// (self, int dim, bool keepdim, ..., *, out).
Kernel reduceOneDim(Fold fold, size_t outArg) {
  return [fold, outArg](KernelContext& c) {
    Args a(c);
    auto self = a.in(0);
    const int64_t dim = a.integer(1);
    const bool keepdim = a.flag(2);
    auto out = a.out(outArg);
    return reduce(a, self, std::vector<int64_t>{dim}, keepdim, out, fold);
  };
}

// (self, int[] dim (or int[]? dim when optionalDims), bool keepdim, *, out).
Kernel reduceDims(Fold fold, bool optionalDims) {
  return [fold, optionalDims](KernelContext& c) {
    Args a(c);
    auto self = a.in(0);
    const std::optional<std::vector<int64_t>> dims = optionalDims ? a.optInts(1) : a.ints(1);
    const bool keepdim = a.flag(2);
    auto out = a.out(3);
    return reduce(a, self, dims, keepdim, out, fold);
  };
}

}  // namespace

void addReductionKernels(KernelRegistry& r) {
  r.add("aten::sum.IntList_out", [](KernelContext& c) { return sumOrMean(c, Fold::Sum); });
  r.add("aten::mean.out", [](KernelContext& c) { return sumOrMean(c, Fold::Mean); });
  r.add("aten::mean.dtype_out", reduceAll(Fold::Mean, 2));  // (self, *, dtype?, out)
  r.add("aten::sum.out", reduceAll(Fold::Sum, 2));          // (self, *, dtype?, out)
  r.add("aten::prod.int_out", prodKernel(true));   // (self, dim, keepdim, *, dtype?, out)
  r.add("aten::prod.out", prodKernel(false));      // (self, *, dtype?, out)
  r.add("aten::amax.out", reduceDims(Fold::Max, false));
  r.add("aten::amin.out", reduceDims(Fold::Min, false));
  r.add("aten::max.unary_out", reduceAll(Fold::Max, 1));
  r.add("aten::min.unary_out", reduceAll(Fold::Min, 1));
  r.add("aten::any.all_out", reduceAll(Fold::Any, 1));
  r.add("aten::any.dims_out", reduceDims(Fold::Any, true));
  r.add("aten::any.out", reduceOneDim(Fold::Any, 3));
  r.add("aten::argmax.out", [](KernelContext& c) { return argExtreme(c, true); });
  r.add("aten::argmin.out", [](KernelContext& c) { return argExtreme(c, false); });
  r.add("aten::max.dim_max", [](KernelContext& c) { return extremeDim(c, true); });
  r.add("aten::min.dim_min", [](KernelContext& c) { return extremeDim(c, false); });
  r.add("aten::var.correction_out", [](KernelContext& c) { return variance(c, true); });
  r.add("aten::var.out", [](KernelContext& c) { return variance(c, false); });
  r.add("aten::var_mean.correction_out", varMeanKernel);
  r.add("aten::cumsum.out", cumsum);
  r.add("aten::topk.values", topk);
  r.add("aten::_softmax.out", [](KernelContext& c) { return softmax(c, false); });
  r.add("aten::_log_softmax.out", [](KernelContext& c) { return softmax(c, true); });
  r.add("aten::native_layer_norm.out", layerNorm);
  r.add("aten::native_group_norm.out", groupNorm);
  r.add("aten::_native_batch_norm_legit_no_training.out", batchNormInference);
}

}  // namespace ptescope::exec::kernels
