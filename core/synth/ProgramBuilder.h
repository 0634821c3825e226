// Building ExecuTorch programs from code: methods, tensors, constants with
// data, scalar arguments, kernel calls and delegate calls, laid out the way
// ExecuTorch's emitter lays them out, so that everything built here passes
// pte::writeProgramFile. Tests, demos and benchmarks make their programs
// with this (and JsonSpec builds on it).
//
// Usage:
//   ProgramBuilder builder;
//   auto& m = builder.addMethod("forward");
//   auto a = m.addTensor(ScalarType::Float, {2, 2});
//   auto b = m.addTensor(ScalarType::Float, {2, 2});
//   auto y = m.addTensor(ScalarType::Float, {2, 2});
//   m.addKernelCall("aten::add.out", {a, b, m.addInt(1)}, {y});
//   m.setInputs({a, b});
//   m.setOutputs({y});
//   Result<Program> program = builder.build();
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "passes/MemoryPlanner.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::synth {

// Index of a value in its method's values table.
using ValueId = int32_t;

struct CompileSpecEntry {
  std::string key;
  std::vector<uint8_t> value;
};
// A compile spec whose value is the bytes of `text` (as "target_device" is).
CompileSpecEntry textCompileSpec(std::string key, std::string_view text);

class MethodBuilder {
 public:
  explicit MethodBuilder(std::string name);

  const std::string& name() const { return name_; }

  // A tensor without data: an input, an intermediate or an output. Its
  // dim_order is 0..rank-1 (contiguous).
  ValueId addTensor(program::ScalarType dtype, std::vector<int32_t> sizes,
                    program::ShapeDynamism dynamism = program::ShapeDynamism::Static);
  // A constant tensor whose bytes go into the program's constant segment.
  // `data` must hold exactly nbytes bytes (checked by build()).
  ValueId addConstant(program::ScalarType dtype, std::vector<int32_t> sizes, std::vector<uint8_t> data);

  ValueId addInt(int64_t value);
  ValueId addDouble(double value);
  ValueId addBool(bool value);
  ValueId addNull();
  ValueId addString(std::string value);
  // IntList items are indices of Int values; this adds one Int per item.
  ValueId addIntList(const std::vector<int64_t>& items);
  ValueId addDoubleList(std::vector<double> items);
  ValueId addBoolList(const std::vector<bool>& items);
  ValueId addTensorList(std::vector<ValueId> tensors);
  // A Tensor?[] (index.Tensor's indices): -1 items are None.
  ValueId addOptionalTensorList(std::vector<ValueId> tensors);
  // An elided static view of `base` (a reshape as upstream writes it after
  // ReplaceViewCopyWithViewPass): a tensor of `sizes` with the base's dtype,
  // byte size and dynamism (static) that no instruction writes; build() plans
  // it over its base's storage. The base is a tensor, not a constant or a
  // view; a view is no method input or output and no instruction's output.
  ValueId addView(ValueId base, std::vector<int32_t> sizes);

  // An out-variant kernel call of `op` ("namespace::name.overload"; the
  // overload may be absent). Args are laid out as upstream's emitter
  // (exir/emit/_emitter.py _emit_operator) does: every schema argument in
  // schema order (`inputs`: the non-out ones, scalars and None included;
  // then the outs), then the return: with one out, that out again
  // ([a, b, alpha, out, out] for add.out); with several outs, ONE new
  // TensorList of them ([..., out, mean, rstd, TensorList[out, mean, rstd]]
  // for native_layer_norm.out, 9 args); with one out that is a tensor list
  // (split_copy's `Tensor(a!)[] out`), a new TensorList of the same members.
  void addKernelCall(std::string_view op, const std::vector<ValueId>& inputs, const std::vector<ValueId>& outputs);
  // A call of a new backend delegate. Args are the inputs then the outputs.
  // A non-empty `blob` becomes a SEGMENT (identical blobs share one); an
  // empty one stays INLINE with empty data, as upstream writes it.
  void addDelegateCall(std::string backendId, std::vector<CompileSpecEntry> compileSpecs, std::vector<uint8_t> blob,
                       const std::vector<ValueId>& inputs, const std::vector<ValueId>& outputs);

  void setInputs(std::vector<ValueId> inputs);
  void setOutputs(std::vector<ValueId> outputs);
  // Gives a tensor another dim order (the memory order of its dimensions,
  // outermost first: {0, 2, 3, 1} is channels last); the caller passes a
  // permutation of 0..rank-1.
  void setDimOrder(ValueId tensor, std::vector<uint8_t> dimOrder);
  // Tags a tensor with a device (ExtraTensorInfo only when not CPU).
  void setDevice(ValueId tensor, program::Device device);

  size_t valueCount() const { return program::items(method_.values).size(); }
  size_t instructionCount() const;
  // The method as built so far (constants not yet numbered, not planned).
  const program::Method& method() const { return method_; }

 private:
  friend class ProgramBuilder;

  ValueId addValue(program::ValueData data);
  bool checkValue(ValueId id, const std::string& what);
  bool checkNotView(ValueId id, const std::string& what);
  void fail(std::string message);
  void appendInstruction(program::InstructionData data);

  std::string name_;
  program::Method method_;
  std::map<std::string, int32_t> operatorIndex_;  // "name.overload" -> operators index
  std::vector<std::pair<ValueId, std::vector<uint8_t>>> constants_;  // in creation order
  std::vector<std::vector<uint8_t>> delegateBlobs_;  // one per delegates entry
  std::map<ValueId, ValueId> viewBase_;  // view -> its base
  std::string firstError_;
};

// The compile specs CudaPartitioner gives an AOTI delegate: the caller's
// method_name spec, then target_device (backends/cuda/cuda_partitioner.py).
std::vector<CompileSpecEntry> aotiCompileSpecs(std::string_view methodName, std::string_view targetDevice = "cuda:0");

struct BuildOptions {
  // Run the memory planner on every method (off: no allocation_info, the
  // buffer list [0]).
  bool plan_memory = true;
  passes::PlanningOptions planning;
  // Overrides `planning` for the methods named here.
  std::map<std::string, passes::PlanningOptions> planning_per_method;
  // Padding between constants in the constant segment (tensor alignment).
  uint32_t constant_alignment = 16;
};

class ProgramBuilder {
 public:
  ProgramBuilder();
  ~ProgramBuilder();
  ProgramBuilder(ProgramBuilder&&) noexcept;
  ProgramBuilder& operator=(ProgramBuilder&&) noexcept;

  // The returned reference stays valid as long as the builder.
  MethodBuilder& addMethod(std::string name);
  MethodBuilder* findMethod(std::string_view name);

  // Named data in the program (Program.named_data, one segment per distinct
  // content). Adding a key again with the same bytes is a no-op; with other
  // bytes it fails the build.
  void addNamedData(std::string key, std::vector<uint8_t> data);
  // Named data kept out of the program, in the data file `<tag>.ptd`
  // (Program.external_data, path "<tag>.ptd"), as upstream's NamedDataStore
  // does for an external tag; written beside the program by the caller.
  void addExternalNamedData(std::string tag, std::string key, std::vector<uint8_t> data);
  // An AOTI delegate's payload as upstream's AotiBackend.preprocess writes it
  // (backends/aoti/aoti_backend.py): the shared object under
  // "<sha256 of it>_so_blob" in the program's named data, the weights under
  // "<sha256 of them>_weights_blob" in `aoti_<device>_blob.ptd` (or in the
  // program when weightsExternal is false); returns the processed bytes
  // "<so_key>\n<weights_key>" to pass to addDelegateCall.
  std::vector<uint8_t> addAotiPayload(const std::vector<uint8_t>& so, const std::vector<uint8_t>& weights,
                                      std::string_view deviceName = "cuda", bool weightsExternal = true);

  // The program: constants numbered program-wide and packed into segment 0
  // (the constant segment, always present), delegate blobs in the segments
  // after it, operators deduplicated per method in first-use order, and
  // memory planned. Fails with the first mistake made while building (a bad
  // value id, an op name without a namespace, constant data of the wrong
  // size, a duplicate method name) or when the result would not validate.
  Result<program::Program> build(const BuildOptions& options = {}) const;

 private:
  std::vector<std::unique_ptr<MethodBuilder>> methods_;
  struct NamedEntry {
    std::string tag;  // empty: in the program
    std::string key;
    std::vector<uint8_t> data;
  };
  std::vector<NamedEntry> namedData_;
  std::string namedDataError_;
};

// Splits "namespace::name.overload" into the operator table's name and
// overload ("aten::add", "out"). The overload is empty when absent. Fails
// when the namespace or the name is missing.
Result<program::Operator> parseOperatorName(std::string_view op);

// Bytes of `count` elements of `dtype`, each `value` converted to the type
// (float16 and bfloat16 rounded to nearest even). Fails for dtypes that
// have no plain numeric encoding (quantized, complex, bits, float8).
Result<std::vector<uint8_t>> encodeElements(program::ScalarType dtype, const std::vector<double>& values);

}  // namespace ptescope::synth
