#include "passes/ProgramDiff.h"


namespace ptescope::passes {
using namespace ptescope::program;

namespace {

std::string instructionSignature(const Method& m, const Instruction& ins) {
  const auto& ops = items(m.operators);
  if (const auto* k = std::get_if<KernelCall>(&ins.data))
    return k->op_index >= 0 && size_t(k->op_index) < ops.size() ? ops[size_t(k->op_index)].qualifiedName() : "kernel ?";
  if (const auto* d = std::get_if<DelegateCall>(&ins.data)) {
    const auto& dels = items(m.delegates);
    return "delegate " + (d->delegate_index >= 0 && size_t(d->delegate_index) < dels.size()
                              ? dels[size_t(d->delegate_index)].id.value_or("?")
                              : std::string("?"));
  }
  return instructionKindName(ins.kind());
}

void compareStructure(const Method& a, const Method& b, std::vector<std::string>& out) {
  const auto& va = items(a.values);
  const auto& vb = items(b.values);
  if (va.size() != vb.size())
    out.push_back("values: " + std::to_string(va.size()) + " vs " + std::to_string(vb.size()));
  for (size_t v = 0; v < std::min(va.size(), vb.size()); ++v) {
    if (va[v].kind() != vb[v].kind()) {
      out.push_back("value %" + std::to_string(v) + ": " + valueKindName(va[v].kind()) + " vs " + valueKindName(vb[v].kind()));
      continue;
    }
    const Tensor* ta = va[v].tensor();
    const Tensor* tb = vb[v].tensor();
    if (ta && tb && (ta->scalar_type != tb->scalar_type || items(ta->sizes) != items(tb->sizes)))
      out.push_back("value %" + std::to_string(v) + ": dtype or shape differs");
  }
  std::vector<std::string> ia, ib;
  for (const auto& c : items(a.chains))
    for (const auto& i : items(c.instructions)) ia.push_back(instructionSignature(a, i));
  for (const auto& c : items(b.chains))
    for (const auto& i : items(c.instructions)) ib.push_back(instructionSignature(b, i));
  if (ia.size() != ib.size())
    out.push_back("instructions (without copies): " + std::to_string(ia.size()) + " vs " + std::to_string(ib.size()));
  for (size_t i = 0; i < std::min(ia.size(), ib.size()); ++i)
    if (ia[i] != ib[i]) out.push_back("instruction " + std::to_string(i) + ": " + ia[i] + " vs " + ib[i]);
  if (items(a.inputs) != items(b.inputs)) out.push_back("method inputs differ");
  if (items(a.outputs) != items(b.outputs)) out.push_back("method outputs differ");
  const auto& da = items(a.delegates);
  const auto& db = items(b.delegates);
  if (da.size() != db.size()) out.push_back("delegates: " + std::to_string(da.size()) + " vs " + std::to_string(db.size()));
  for (size_t d = 0; d < std::min(da.size(), db.size()); ++d) {
    if (da[d].id != db[d].id) out.push_back("delegate " + std::to_string(d) + ": backend id differs");
    const CompileSpec* ta = da[d].findCompileSpec("target_device");
    const CompileSpec* tb = db[d].findCompileSpec("target_device");
    const std::string sa = ta ? ta->valueText() : "none", sb = tb ? tb->valueText() : "none";
    if (sa != sb) out.push_back("delegate " + std::to_string(d) + ": target_device " + sa + " vs " + sb);
  }
}

}  // namespace

bool ProgramDiff::same() const {
  if (!methods_only_in_a.empty() || !methods_only_in_b.empty()) return false;
  for (const auto& m : methods)
    if (!m.same()) return false;
  return true;
}

Result<ProgramDiff> diffPrograms(const Program& a, const Program& b) {
  ProgramDiff diff;
  for (const auto& m : a.methods())
    if (!b.findMethod(m.displayName())) diff.methods_only_in_a.push_back(m.displayName());
  for (const auto& m : b.methods())
    if (!a.findMethod(m.displayName())) diff.methods_only_in_b.push_back(m.displayName());
  for (const auto& ma : a.methods()) {
    const Method* mb = b.findMethod(ma.displayName());
    if (mb == nullptr) continue;
    MethodDiff md;
    md.name = ma.displayName();
    md.buffers_a = buffersOf(ma);
    md.buffers_b = buffersOf(*mb);
    Method sa = ma, sb = *mb;
    auto stripA = stripDeviceCopies(sa);
    if (!stripA) return makeError("first program: " + stripA.error().message);
    auto stripB = stripDeviceCopies(sb);
    if (!stripB) return makeError("second program: " + stripB.error().message);
    md.copies_only_in_a = copiesNotIn(stripA->removed, stripB->removed);
    md.copies_only_in_b = copiesNotIn(stripB->removed, stripA->removed);
    // Placement in the stripped numbering, read from the unstripped values.
    auto devicesOf = [](const Method& original, const StripResult& strip, size_t count) {
      std::vector<bool> copyOutput(strip.canonical.size(), false);
      for (const auto& r : strip.removed) copyOutput[size_t(r.value)] = true;
      std::vector<std::optional<Device>> devices(count);
      for (size_t v = 0; v < strip.canonical.size(); ++v)
        if (const Tensor* t = (*original.values)[v].tensor(); t && !copyOutput[v])
          devices[size_t(strip.canonical[v])] = t->device();
      return devices;
    };
    const size_t count = std::min(items(sa.values).size(), items(sb.values).size());
    auto da = devicesOf(ma, stripA.value(), items(sa.values).size());
    auto db = devicesOf(*mb, stripB.value(), items(sb.values).size());
    for (size_t v = 0; v < count; ++v)
      if (da[v] && db[v] && *da[v] != *db[v]) md.placement.push_back(RetaggedValue{int32_t(v), *da[v], *db[v]});
    compareStructure(sa, sb, md.structure);
    diff.methods.push_back(std::move(md));
  }
  return diff;
}

}  // namespace ptescope::passes
