// Custom operators of the shared samples that no upstream kernel library
// carries, implemented from what the sample computes.
//
// etnp::lstm.out (lstm-custom-op.pte, from corey-cole/executorch-numpy-runtime):
// a single-layer, unidirectional, sequence-first LSTM with torch.nn.LSTM's
// semantics and gate order (input, forget, cell, output):
//   (input [T, B, I], h0 [B, H], c0 [B, H], w_ih [4H, I], w_hh [4H, H],
//    b_ih [4H], b_hh [4H], *, output [T, B, H], h_n [B, H], c_n [B, H])
// followed by one TensorList of the three outs, as the emitter writes a
// multi-output op. The operator's own source is not public in the samples'
// provenance; the argument shapes match torch.nn.LSTM's exactly.
#include <cmath>

#include "exec/kernels/KernelSupport.h"

namespace ptescope::exec::kernels {
namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

KernelResult lstm(KernelContext& ctx) {
  Args a(ctx);
  auto input = a.in(0), h0 = a.in(1), c0 = a.in(2), wih = a.in(3), whh = a.in(4), bih = a.in(5), bhh = a.in(6);
  auto output = a.out(7), hn = a.out(8), cn = a.out(9);
  if (a.failed()) return a.outcome();
  if (input.rank() != 3 || h0.rank() != 2 || c0.rank() != 2 || wih.rank() != 2 || whh.rank() != 2)
    return a.fail("etnp::lstm: expects input [T, B, I], h0/c0 [B, H] and 2-D weights");
  const int64_t steps = input.size(0), batch = input.size(1), in = input.size(2), hidden = h0.size(1);
  if (h0.size(0) != batch || c0.sizes() != h0.sizes() || wih.size(0) != 4 * hidden || wih.size(1) != in ||
      whh.size(0) != 4 * hidden || whh.size(1) != hidden || bih.numel() != 4 * hidden || bhh.numel() != 4 * hidden)
    return a.fail("etnp::lstm: weights " + shapeText(wih.sizes()) + ", " + shapeText(whh.sizes()) + " do not fit input " +
                  shapeText(input.sizes()) + " and state " + shapeText(h0.sizes()));
  if (auto status = resize(output, {steps, batch, hidden}); !status) return status.error();
  if (auto status = resize(hn, {batch, hidden}); !status) return status.error();
  if (auto status = resize(cn, {batch, hidden}); !status) return status.error();
  std::vector<double> h(size_t(batch * hidden)), c(size_t(batch * hidden)), gates(size_t(4 * hidden));
  for (int64_t i = 0; i < batch * hidden; ++i) {
    h[size_t(i)] = h0.get(i);
    c[size_t(i)] = c0.get(i);
  }
  KernelCancelPoll cancelled;
  for (int64_t t = 0; t < steps; ++t) {
    std::vector<double> next(h.size());
    for (int64_t b = 0; b < batch; ++b) {
      if (cancelled(4 * hidden * (in + hidden))) return KernelOutcome::done();
      for (int64_t g = 0; g < 4 * hidden; ++g) {
        double v = bih.get(g) + bhh.get(g);
        for (int64_t k = 0; k < in; ++k) v += wih.get(g * in + k) * input.get((t * batch + b) * in + k);
        for (int64_t k = 0; k < hidden; ++k) v += whh.get(g * hidden + k) * h[size_t(b * hidden + k)];
        gates[size_t(g)] = v;
      }
      for (int64_t j = 0; j < hidden; ++j) {
        const double ig = sigmoid(gates[size_t(j)]), fg = sigmoid(gates[size_t(hidden + j)]);
        const double gg = std::tanh(gates[size_t(2 * hidden + j)]), og = sigmoid(gates[size_t(3 * hidden + j)]);
        double& cell = c[size_t(b * hidden + j)];
        cell = fg * cell + ig * gg;
        next[size_t(b * hidden + j)] = og * std::tanh(cell);
      }
    }
    h = next;
    for (int64_t i = 0; i < batch * hidden; ++i) output.set(t * batch * hidden + i, h[size_t(i)]);
  }
  for (int64_t i = 0; i < batch * hidden; ++i) {
    hn.set(i, h[size_t(i)]);
    cn.set(i, c[size_t(i)]);
  }
  return KernelOutcome::done();
}

}  // namespace

void addCustomKernels(KernelRegistry& r) { r.add("etnp::lstm.out", lstm); }

}  // namespace ptescope::exec::kernels
