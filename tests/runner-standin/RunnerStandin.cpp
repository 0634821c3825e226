// The executor_runner stand-in: a test tool, NOT ExecuTorch (README:
// "Measuring on the real runtime"). It has the command line, the file
// conventions and the exit codes of upstream's
// examples/portable/executor_runner built with the event tracer (as read at
// upstream cff6f4dd, ../shared/spec/device-semantics.md §7.3), and runs the
// program with ptescope's own executor on the host runtime, so that the
// tests of `profile --runner` / `run --runner` and of the app run everywhere.
// Built only for tests, never installed.
//
// What it copies from the real runner:
// - flags --model_path --data_path --inputs --output_file --method_name
//   --num_executions --print_output (none|summary|all) --cpu_threads
//   --server_mode --etdump_path, as gflags parses them (--flag=value or
//   --flag value); --help prints the flags on stdout and exits 1; an unknown
//   flag is "ERROR: unknown command line flag 'x'" and exit 1;
// - the default method is the program's first (not "forward");
// - --inputs: one raw file per method input, each exactly the input's bytes
//   (an Int/Double 8 bytes, a Bool 1); a missing file, a wrong count or a
//   wrong size logs what upstream logs and aborts (SIGABRT, a shell's 134);
//   without --inputs every tensor input is all ones;
// - output i that is a tensor goes raw to BASE-<i>.bin; other outputs are
//   skipped, the numbering keeps their index;
// - the ETDump is written only after every execution succeeded: one
//   "Default" block for the load and one "Execute" block per execution,
//   OPERATOR_CALL (with the kernel's native_call_<op> inside) per kernel,
//   et_copy included, DELEGATE_CALL per delegate, no method name; times are
//   the host clock around each instruction, in nanosecond ticks.
// - stdout holds only printed outputs; the log goes to stderr.
//
// Faults, PTESCOPE_TEST_RUNNER_FAULT=
//   crash            SIGSEGV during the first execution
//   hang             sleeps forever after loading the method
//   no-etdump        succeeds but writes no ETDump
//   truncated-etdump writes the first half of the ETDump
//   no-event-tracer  built without the event tracer: --etdump_path unknown
//   no-cuda          a CPU-only runner: a device-planned buffer aborts with
//                    "No device allocator registered for device type 1"
//   refuse           refuses the program as another version's runtime does
//   wrong-output     adds 1 to element 1 of a float32 output 0 (a runtime
//                    that computes something else)
//   drop-input       reads one input file less than it was given (a wrong
//                    count: upstream's abort)
// With PTESCOPE_TEST_RUNNER_FAULT_MODEL=NAME the fault applies only when
// --model_path's file name is NAME (e.g. program.pte, the name ptescope gives
// a program as edited): a runtime that goes wrong on one of two programs.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "etdump/EtdumpWriter.h"
#include "exec/Executor.h"
#include "exec/HostRuntime.h"
#include "exec/Profiler.h"
#include "pte/Reader.h"
#include "util/MappedFile.h"

using namespace ptescope;

namespace {

// ET_LOG's layout: level letter, time, file:line, message.
void logLine(char level, const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  std::fprintf(stderr, "%c 00:00:00.000000 executorch:executor_runner.cpp:0] ", level);
  std::vfprintf(stderr, format, args);
  std::fprintf(stderr, "\n");
  va_end(args);
}

// ET_CHECK_MSG: a Fatal line, then abort.
[[noreturn]] void checkFailed(const char* condition, const std::string& message) {
  logLine('F', "In function main(), assert failed (%s): %s", condition, message.c_str());
  std::fflush(stderr);
  std::abort();
}

struct Flags {
  std::map<std::string, std::string> values = {
      {"model_path", "model.pte"}, {"data_path", ""},       {"inputs", ""},        {"output_file", ""},
      {"server_mode", "false"},    {"print_output", "summary"}, {"num_executions", "1"}, {"method_name", ""},
      {"etdump_path", "model.etdump"}, {"cpu_threads", "-1"}};
  std::string get(const std::string& name) const { return values.at(name); }
};

void printHelp() {
  std::printf(
      "executor_runner: Warning: SetUsageMessage() never called\n\n"
      "  Flags from executor_runner.cpp (ptescope's test stand-in, not ExecuTorch):\n"
      "    -cpu_threads (Number of CPU threads for inference.) type: int32 default: -1\n"
      "    -data_path (Path to data file (.ptd).) type: string default: \"\"\n");
  if (std::getenv("PTESCOPE_TEST_RUNNER_FAULT") == nullptr ||
      std::string(std::getenv("PTESCOPE_TEST_RUNNER_FAULT")) != "no-event-tracer")
    std::printf("    -etdump_path (Write ETDump data to this path.) type: string default: \"model.etdump\"\n");
  std::printf(
      "    -inputs (Comma-separated list of input files) type: string default: \"\"\n"
      "    -method_name (Name of the method to run.) type: string default: \"\"\n"
      "    -model_path (Model serialized in flatbuffer format.) type: string default: \"model.pte\"\n"
      "    -num_executions (Number of times to run the model.) type: uint32 default: 1\n"
      "    -output_file (Base name of output file.) type: string default: \"\"\n"
      "    -print_output (Output printing mode: none, summary, all.) type: string default: \"summary\"\n"
      "    -server_mode (Run continuously.) type: bool default: false\n");
}

// gflags' rules for the flags above; exits as gflags does.
Flags parseFlags(int argc, char** argv, bool eventTracer) {
  Flags flags;
  std::vector<std::string> extra;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() < 2 || arg[0] != '-') {
      extra.push_back(arg);
      continue;
    }
    arg = arg.substr(arg[1] == '-' ? 2 : 1);
    std::optional<std::string> value;
    if (auto eq = arg.find('='); eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    if (arg == "help" || arg == "helpfull") {
      printHelp();
      std::exit(1);
    }
    if (!flags.values.contains(arg) || (arg == "etdump_path" && !eventTracer)) {
      std::fprintf(stderr, "ERROR: unknown command line flag '%s'\n", arg.c_str());
      std::exit(1);
    }
    if (arg == "server_mode") {
      flags.values[arg] = value.value_or("true");
      continue;
    }
    if (!value) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "ERROR: flag '%s' is missing its argument\n", arg.c_str());
        std::exit(1);
      }
      value = argv[++i];
    }
    flags.values[arg] = *value;
  }
  if (!extra.empty()) {
    std::string message = "Extra commandline args:";
    for (const auto& e : extra) message += " " + e;
    logLine('E', "%s", message.c_str());
    std::exit(1);
  }
  return flags;
}

std::vector<std::string> splitCommas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

// One element of value 1 in `type`, little-endian; zeros for types without a one.
std::vector<uint8_t> oneOf(program::ScalarType type) {
  using program::ScalarType;
  const int size = program::elementSize(type);
  std::vector<uint8_t> bytes(size_t(std::max(size, 0)), 0);
  auto put = [&bytes](auto v) { std::memcpy(bytes.data(), &v, sizeof v); };
  switch (type) {
    case ScalarType::Float: put(1.0f); break;
    case ScalarType::Double: put(1.0); break;
    case ScalarType::Half: put(uint16_t(0x3C00)); break;
    case ScalarType::BFloat16: put(uint16_t(0x3F80)); break;
    case ScalarType::Byte: case ScalarType::Char: case ScalarType::Bool: case ScalarType::Short:
    case ScalarType::Int: case ScalarType::Long: case ScalarType::UInt16: case ScalarType::UInt32:
    case ScalarType::UInt64:
      if (!bytes.empty()) bytes[0] = 1;
      break;
    default: break;
  }
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  const char* faultEnv = std::getenv("PTESCOPE_TEST_RUNNER_FAULT");
  std::string fault = faultEnv != nullptr ? faultEnv : "";
  const Flags flags = parseFlags(argc, argv, fault != "no-event-tracer");
  const std::string printOutput = flags.get("print_output");
  if (printOutput != "none" && printOutput != "summary" && printOutput != "all") {
    logLine('E', "Unknown --print_output mode '%s'. Expected 'none', 'summary', or 'all'.", printOutput.c_str());
    return 1;
  }
  const std::string modelPath = flags.get("model_path");
  if (const char* only = std::getenv("PTESCOPE_TEST_RUNNER_FAULT_MODEL"); only != nullptr) {
    const std::string name = modelPath.substr(modelPath.find_last_of('/') + 1);
    if (name != only) fault.clear();
  }

  // Inputs are read before the program, as upstream does.
  std::vector<std::vector<uint8_t>> inputFiles;
  const bool haveInputs = !flags.get("inputs").empty();
  if (haveInputs) {
    logLine('I', "Loading inputs from input file(s).");
    for (const auto& path : splitCommas(flags.get("inputs"))) {
      auto bytes = mapFile(path);
      if (!bytes) {
        logLine('E', "Failed to open input file: %s", path.c_str());
        checkFailed("load_status == Error::Ok", "Could not load inputs: 0x21");
      }
      inputFiles.emplace_back(bytes->span().begin(), bytes->span().end());
    }
    if (fault == "drop-input" && !inputFiles.empty()) inputFiles.pop_back();
  }

  pte::ReadOptions readOptions;
  readOptions.find_ptd_beside = false;
  if (!flags.get("data_path").empty()) readOptions.ptd_paths = {flags.get("data_path")};
  auto loaded = pte::readProgramFile(modelPath, readOptions);
  if (fault == "refuse" || !loaded) {
    logLine('E', "Program identifier 'ET12' != expected 'ET11'");
    logLine('E', "Failed to parse model file %s", modelPath.c_str());
    return 1;
  }
  const program::Program& program = loaded->program;
  logLine('I', "Model file %s is loaded.", modelPath.c_str());
  if (program.methods().empty()) checkFailed("method_name_result.ok()", "Program has no methods");
  const std::string methodName =
      flags.get("method_name").empty() ? program.methods().front().displayName() : flags.get("method_name");
  logLine('I', "Using method %s", methodName.c_str());
  const program::Method* method = program.findMethod(methodName);
  if (method == nullptr) checkFailed("method_meta.ok()", "Failed to get method_meta for " + methodName + ": 0x12");

  const auto& sizes = program::items(method->non_const_buffer_sizes);
  for (size_t id = 0; id + 1 < sizes.size(); ++id) {
    program::DeviceType type = program::DeviceType::Cpu;
    for (const auto& d : program::items(method->non_const_buffer_device))
      if (d.buffer_idx == int32_t(id + 1)) {
        type = d.device_type;
        break;
      }
    if (type == program::DeviceType::Cpu) {
      logLine('I', "Setting up CPU planned buffer %zu, size %lld.", id, (long long)sizes[id + 1]);
    } else if (fault == "no-cuda") {
      logLine('E', "No device allocator registered for device type %d", int(type));
      checkFailed("device_buffer.ok()", "Failed to allocate device memory for planned buffer " + std::to_string(id) +
                                            " (device_type=" + std::to_string(int(type)) + "): 0x14");
    } else {
      logLine('I', "Setting up device planned buffer %zu, size %lld, device_type %d.", id, (long long)sizes[id + 1],
              int(type));
    }
  }

  exec::HostRuntime runtime;
  auto executor = exec::Executor::create(program, methodName, runtime);
  if (!executor) {
    logLine('E', "%s", executor.error().message.c_str());
    checkFailed("method.ok()", "Loading of method " + methodName + " failed with status 0x1");
  }
  exec::Executor& ex = *executor.value();
  if (fault == "hang")
    for (;;) ::pause();

  const auto& inputs = program::items(method->inputs);
  const auto& values = program::items(method->values);
  if (haveInputs && inputFiles.size() != inputs.size()) {
    logLine('E', "Wrong number of inputs allocated compared to method  %zu ? %zu", inputs.size(), inputFiles.size());
    checkFailed("res.ok()", "Could not prepare inputs: 0x12");
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const int32_t v = inputs[i];
    if (v < 0 || size_t(v) >= values.size()) continue;
    const auto* tensor = values[size_t(v)].tensor();
    if (tensor == nullptr) continue;  // a scalar input keeps its stored value here
    auto current = ex.readTensor(v);
    if (!current) checkFailed("res.ok()", "Could not prepare inputs: 0x1");
    std::vector<uint8_t> bytes;
    if (haveInputs) {
      bytes = inputFiles[i];
      if (bytes.size() != current->bytes.size()) {
        logLine('E', "input size (%zu) and tensor size (%zu) mismatch!", bytes.size(), current->bytes.size());
        checkFailed("res.ok()", "Could not prepare inputs: 0x12");
      }
    } else {
      const auto one = oneOf(current->dtype);
      for (size_t k = 0; k + one.size() <= current->bytes.size() && !one.empty(); k += one.size())
        bytes.insert(bytes.end(), one.begin(), one.end());
      bytes.resize(current->bytes.size(), 0);
    }
    if (auto s = ex.writeTensor(v, bytes); !s) checkFailed("res.ok()", "Could not prepare inputs: 0x12");
  }

  // Nanoseconds per (execution, flat instruction), summed over repeats.
  const size_t executions = size_t(std::stoul(flags.get("num_executions")));
  std::vector<std::map<size_t, uint64_t>> ticks(executions);
  for (size_t e = 0; e < executions; ++e) {
    if (fault == "crash") std::raise(SIGSEGV);
    auto record = ex.run();
    if (!record) {
      logLine('E', "%s", record.error().message.c_str());
      checkFailed("status == Error::Ok", "Execution of method " + methodName + " failed with status 0x1");
    }
    for (const auto& step : record->steps) ticks[e][step.instruction] += uint64_t(step.host_seconds * 1e9);
    logLine('I', "Iteration %zu of %zu: %f ms", e + 1, executions, record->wall_seconds * 1e3);
  }
  logLine('I', "Model executed successfully %zu time(s).", executions);

  const auto& outputs = program::items(method->outputs);
  logLine('I', "%zu outputs: ", outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const int32_t v = outputs[i];
    const bool isTensor = v >= 0 && size_t(v) < values.size() && values[size_t(v)].tensor() != nullptr;
    if (!isTensor) {
      if (printOutput == "all") std::printf("Output[%zu]: Not Tensor\n", i);
      continue;
    }
    auto tensor = ex.readTensor(v);
    if (!tensor) checkFailed("status == Error::Ok", "");
    if (fault == "wrong-output" && i == 0 && tensor->dtype == program::ScalarType::Float && tensor->bytes.size() >= 8) {
      float element;
      std::memcpy(&element, tensor->bytes.data() + 4, 4);
      element += 1.0f;
      std::memcpy(tensor->bytes.data() + 4, &element, 4);
    }
    if (!flags.get("output_file").empty()) {
      const std::string name = flags.get("output_file") + "-" + std::to_string(i) + ".bin";
      logLine('I', "Writing output to file: %s", name.c_str());
      if (!writeFileAtomically(name, tensor->bytes)) checkFailed("out_file != nullptr", "Failed to open output file: " + name);
    }
    if (printOutput == "summary") {
      const auto elements = tensor->toDoubles();
      std::printf("OutputX %zu: tensor(sizes=[", i);
      for (size_t k = 0; k < tensor->sizes.size(); ++k) std::printf("%s%lld", k ? ", " : "", (long long)tensor->sizes[k]);
      std::printf("], [");
      for (size_t k = 0; k < elements.size() && k < 100; ++k) std::printf("%s%g", k ? ", " : "", elements[k]);
      std::printf("%s])\n", elements.size() > 100 ? ", ..." : "");
    }
  }

  if (fault != "no-event-tracer" && fault != "no-etdump") {
    etdump::TraceSpec spec;
    spec.method = methodName;
    spec.iterations = executions;
    spec.ticks = [&ticks](size_t iteration, size_t instruction) -> uint64_t {
      const auto& t = ticks[iteration];
      auto it = t.find(instruction);
      return it == t.end() ? 0 : it->second;
    };
    auto dump = etdump::synthesizeEtdump(program, spec);
    if (!dump) checkFailed("status == Error::Ok", "Failed to save ETDump file.");
    auto bytes = etdump::serializeEtdump(dump.value());
    if (fault == "truncated-etdump") bytes.resize(bytes.size() / 2);
    const std::string path = flags.get("etdump_path");
    if (!writeFileAtomically(path, bytes)) {
      logLine('E', "Failed to open ETDump file at %s.", path.c_str());
      checkFailed("status == Error::Ok", "Failed to save ETDump file.");
    }
    logLine('I', "ETDump written to file '%s'.", path.c_str());
  }
  std::fflush(stdout);
  return 0;
}
