#include "exec/RunOnce.h"

#include <cmath>
#include <cstring>
#include <filesystem>

#include "exec/InputFiles.h"
#include "exec/Profiler.h"
#include "exec/kernels/KernelSupport.h"
#include "util/MappedFile.h"

namespace ptescope::exec {

std::vector<double> elementsOf(const HostTensor& tensor) {
  const auto codec = kernels::codecFor(tensor.dtype);
  if (codec.load == nullptr || codec.size == 0) return {};
  const size_t n = tensor.bytes.size() / size_t(codec.size);
  std::vector<double> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = codec.load(tensor.bytes.data() + i * size_t(codec.size));
  return values;
}

ValueStats statsOf(const HostTensor& tensor) {
  ValueStats stats;
  double sum = 0;
  bool any = false;
  for (double v : elementsOf(tensor)) {
    ++stats.count;
    if (std::isnan(v)) {
      ++stats.nan_count;
      continue;
    }
    if (!any) stats.min = stats.max = v;
    any = true;
    stats.min = std::min(stats.min, v);
    stats.max = std::max(stats.max, v);
    sum += v;
  }
  const size_t numbers = stats.count - stats.nan_count;
  stats.mean = numbers ? sum / double(numbers) : 0.0;
  return stats;
}

Result<RunOnceResult> runMethodOnce(const program::Program& program, DeviceRuntime& runtime, const RunOnceOptions& options) {
  const std::string methodName = options.method.empty() ? defaultMethodName(program) : options.method;
  if (methodName.empty()) return makeError("the program has no method to run");
  if (program.findMethod(methodName) == nullptr) return makeError("no method named '" + methodName + "'");
  ExecutorOptions executorOptions;
  executorOptions.host_memory = options.host_memory;
  executorOptions.max_memory = options.max_memory;
  executorOptions.budget_setting = options.budget_setting;
  auto executor = Executor::create(program, methodName, runtime, executorOptions);
  if (!executor) return executor.error();
  Executor& exec = *executor.value();
  const auto cancelled = [&] { return options.cancel_requested && options.cancel_requested(); };
  InputOptions inputs = options.inputs;
  if (!inputs.cancel_requested) inputs.cancel_requested = options.cancel_requested;
  if (auto status = exec.fillInputs(inputs); !status) return cancelled() ? makeError(kRunCancelled) : status.error();
  auto record = exec.run(options.cancel_requested, options.progress);
  if (!record) return record.error();
  if (record->cancelled) return makeError(kRunCancelled);

  RunOnceResult result;
  result.method = methodName;
  const bool usesDevice = exec.usesDeviceMemory();
  result.emulated = runtime.isEmulated() && usesDevice;
  result.runtime = runtime.isEmulated() && !usesDevice ? std::string(kHostCpuRuntimeName) : runtime.name();
  result.instructions = record->steps.size();
  result.wall_seconds = record->wall_seconds;
  for (const auto& step : record->steps)
    if (step.status == StepStatus::NotExecuted) result.not_executed.push_back(step);
  const auto& outputs = program::items(exec.method().outputs);
  std::vector<size_t> notExecuted;
  for (const auto& step : result.not_executed) notExecuted.push_back(step.instruction);
  auto exactness = outputExactness(exec.method(), notExecuted);
  for (size_t position = 0; position < outputs.size(); ++position) {
    RunOutput out;
    out.position = position;
    out.value = outputs[position];
    if (position < exactness.size()) out.exactness = std::move(exactness[position]);
    if (auto tensor = exec.readTensor(out.value); tensor) {
      const auto values = elementsOf(*tensor);
      out.readable = !values.empty() || tensor->bytes.empty();
      out.stats = statsOf(*tensor);
      out.first_values.assign(values.begin(), values.begin() + std::ptrdiff_t(std::min<size_t>(values.size(), 8)));
      out.tensor = std::move(tensor.value());
    } else {
      auto literal = exec.readLiteral(out.value);
      if (!literal) return makeError("output " + std::to_string(position) + ": " + tensor.error().message);
      out.literal = literal.value();
    }
    result.outputs.push_back(std::move(out));
  }
  return result;
}

namespace {
// A 0-d array holding one scalar.
HostTensor scalarTensor(program::ScalarType dtype, const void* bytes, size_t size) {
  HostTensor t;
  t.dtype = dtype;
  t.bytes.resize(size);
  std::memcpy(t.bytes.data(), bytes, size);
  return t;
}
}  // namespace

Result<std::vector<std::string>> writeOutputsAsNpy(const RunOnceResult& result, const std::string& directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error || !std::filesystem::is_directory(directory))
    return makeError(directory + ": cannot create the output folder (" + error.message() + ")");
  std::vector<std::string> paths;
  for (const auto& out : result.outputs) {
    std::optional<HostTensor> tensor = out.tensor;
    if (!tensor) {
      if (const auto* i = std::get_if<program::IntValue>(&out.literal)) {
        tensor = scalarTensor(program::ScalarType::Long, &i->value, 8);
      } else if (const auto* d = std::get_if<program::DoubleValue>(&out.literal)) {
        tensor = scalarTensor(program::ScalarType::Double, &d->value, 8);
      } else if (const auto* b = std::get_if<program::BoolValue>(&out.literal)) {
        const uint8_t byte = b->value ? 1 : 0;
        tensor = scalarTensor(program::ScalarType::Bool, &byte, 1);
      } else if (const auto* s = std::get_if<program::StringValue>(&out.literal)) {
        // A String has no NumPy form: its text, as <i>.txt.
        const std::string path = (std::filesystem::path(directory) / (std::to_string(out.position) + ".txt")).string();
        const std::string& text = s->value ? *s->value : std::string();
        if (auto status = writeFileAtomically(path, std::string_view(text)); !status) return status.error();
        paths.push_back(path);
        continue;
      } else {
        continue;
      }
    }
    // NumPy has no bfloat16: its raw bits go out as uint16, as upstream tools write them.
    if (tensor->dtype == program::ScalarType::BFloat16) tensor->dtype = program::ScalarType::UInt16;
    const std::string path = (std::filesystem::path(directory) / (std::to_string(out.position) + ".npy")).string();
    const auto bytes = encodeNpy(*tensor);
    if (auto status = writeFileAtomically(path, bytes); !status) return status.error();
    paths.push_back(path);
  }
  return paths;
}

}  // namespace ptescope::exec
